"""The <available_skills> block and the read_skill helper."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.catalog.skill_paths import SkillPathError
from homeclaw_cli.catalog.skill_prompt import (
    READ_SKILL_TOOL,
    SKILLS_INSTRUCTION,
    build_skills_block,
    read_skill_file,
    skills_for_prompt,
)
from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.errors import NotFoundError, UsageError
from tests.fakes.retrieval import hit
from tests.skill_helpers import make_skill, settings_for


@pytest.fixture
def registry(tmp_path: Path):  # type: ignore[no-untyped-def]
    user = tmp_path / "home" / "data" / "skills"
    make_skill(user, "alpha", description="Alpha <does> & things", scripts={"run.py": ""})
    make_skill(user, "beta-folder", name="beta")
    make_skill(user, "gamma", extra='metadata: {"openclaw":{"os":["plan9"]}}\n')
    return scan_skills(settings_for(tmp_path))


def test_block_has_only_kept_eligible_existing_skills_in_order(registry) -> None:  # type: ignore[no-untyped-def]
    hits = [
        hit("beta-folder", "skill"),
        hit("gamma", "skill"),
        hit("alpha", "skill"),
        hit("gone", "skill"),
        hit("x", "plugin"),
        hit("alpha", "skill", kept=False),
    ]
    chosen = skills_for_prompt(hits, registry)
    assert [s.id for s in chosen] == ["beta-folder", "alpha"]
    block = build_skills_block(chosen)
    assert block.startswith(SKILLS_INSTRUCTION)
    assert "read_skill" in block
    body = block.split("\n<available_skills>\n", 1)[1]
    assert body.index("<name>beta</name>") < body.index("<name>alpha</name>")
    assert "<id>beta-folder</id>" in body  # the id run_skill takes, shown as it differs
    assert "<id>alpha</id>" not in body
    assert "Alpha &lt;does&gt; &amp; things" in body
    assert f"<location>{registry.skills['alpha'].skill_md}</location>" in body
    assert "<scripts>run.py</scripts>" in body
    assert "# Steps" not in block  # bodies are read on demand, never inlined


def test_no_eligible_skills_means_no_block(registry) -> None:  # type: ignore[no-untyped-def]
    assert build_skills_block([]) == ""
    assert build_skills_block([registry.skills["gamma"]]) == ""


def test_read_skill_reads_only_inside_the_skill(registry, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert read_skill_file(registry, "alpha").startswith("---\nname: alpha")
    assert read_skill_file(registry, "alpha", "scripts/run.py") == ""
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    folder = registry.skills["alpha"].folder
    (folder / "link.txt").symlink_to(outside)
    for bad in ("../beta-folder/SKILL.md", str(outside), "link.txt", "~/.ssh/id_rsa"):
        with pytest.raises(SkillPathError):
            read_skill_file(registry, "alpha", bad)
    with pytest.raises(NotFoundError):
        read_skill_file(registry, "alpha", "missing.md")
    (folder / "blob.bin").write_bytes(b"\x00\x01")
    with pytest.raises(UsageError, match="binary"):
        read_skill_file(registry, "alpha", "blob.bin")
    (folder / "big.md").write_text("y" * 3000)
    assert read_skill_file(registry, "alpha", "big.md", max_bytes=1000).endswith(
        "[... cut at 1000 of 3000 bytes]"
    )


def test_read_skill_tool_schema() -> None:
    assert READ_SKILL_TOOL["function"]["parameters"]["required"] == ["skill"]
