"""SKILL.md parsing: frontmatter, JSON5/YAML metadata, lenient OpenClaw reading, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.catalog.skill_frontmatter import parse_skill_md
from homeclaw_cli.catalog.skills import SkillParseError, load_skill
from tests.skill_helpers import make_skill


def write(tmp_path: Path, text: str, folder: str = "s") -> Path:
    d = tmp_path / folder
    d.mkdir(exist_ok=True)
    (d / "SKILL.md").write_text(text, encoding="utf-8")
    return d


def test_minimal_skill_keeps_every_frontmatter_field(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "---\nname: demo\ndescription: Does   demo\n  things.\nhomepage: https://x.y\n"
        "license: MIT\nallowed-tools: [Read, Bash]\nuser-invocable: true\n"
        "disable-model-invocation: false\ncustom-field: {a: 1}\n---\n# Body\ntext\n",
    )
    skill = load_skill(folder, "user")
    assert skill.id == "s" and skill.name == "demo"
    assert skill.description == "Does demo things."
    assert skill.body == "# Body\ntext\n"
    fm = skill.frontmatter
    assert fm["homepage"] == "https://x.y" and fm["license"] == "MIT"
    assert fm["allowed-tools"] == ["Read", "Bash"]
    assert fm["user-invocable"] is True and fm["disable-model-invocation"] is False
    assert fm["custom-field"] == {"a": 1}
    assert skill.display_name == "demo (s)"


def test_single_line_json5_metadata_with_trailing_commas_and_bare_keys(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "---\nname: s\ndescription: d\n"
        'metadata: \'{openclaw: {requires: {bins: ["git",], env: ["TOKEN"],},}, /* c */}\'\n'
        "---\n",
    )
    skill = load_skill(folder, "user")
    assert skill.metadata == {"openclaw": {"requires": {"bins": ["git"], "env": ["TOKEN"]}}}
    assert skill.requirements.bins == ("git",) and skill.requirements.env == ("TOKEN",)
    # The frontmatter keeps what was written.
    assert isinstance(skill.frontmatter["metadata"], str)


def test_metadata_as_yaml_mapping(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "---\nname: s\ndescription: d\nmetadata:\n  openclaw:\n    os: [linux]\n"
        "    requires:\n      anyBins: [a, b]\n---\n",
    )
    skill = load_skill(folder, "user")
    assert skill.requirements.os == ("linux",)
    assert skill.requirements.any_bins == ("a", "b")


def test_multiline_flow_metadata_as_openclaw_formats_it(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        '---\nname: s\ndescription: d\nmetadata:\n  {\n    "openclaw":\n      {\n'
        '        "requires": { "config": ["a.b"] },\n      },\n  }\n---\n',
    )
    assert load_skill(folder, "user").requirements.config == ("a.b",)


def test_invalid_json5_metadata_names_line_and_fix(tmp_path: Path) -> None:
    folder = write(tmp_path, "---\nname: s\ndescription: d\nmetadata: '{openclaw: [}'\n---\n")
    with pytest.raises(SkillParseError) as info:
        load_skill(folder, "user")
    assert info.value.line == 4
    assert "`metadata` is not valid JSON5" in info.value.message
    assert "SKILL.md:4" in str(info.value)


def test_metadata_must_be_an_object(tmp_path: Path) -> None:
    folder = write(tmp_path, "---\nname: s\ndescription: d\nmetadata: '[1, 2]'\n---\n")
    with pytest.raises(SkillParseError, match="must be a JSON5 object, not list"):
        load_skill(folder, "user")
    folder = write(tmp_path, "---\nname: s\ndescription: d\nmetadata: 42\n---\n", "t")
    with pytest.raises(SkillParseError, match="JSON5 object string or a YAML mapping"):
        load_skill(folder, "user")


def test_unquoted_colon_in_description_is_read_like_openclaw(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "---\nname: discord\ndescription: Use the discord tool: send, react, poll.\n"
        'metadata: {"openclaw":{"requires":{"env":["DISCORD_TOKEN"]}}}\n---\nbody\n',
    )
    skill = load_skill(folder, "user")
    assert skill.description == "Use the discord tool: send, react, poll."
    assert skill.requirements.env == ("DISCORD_TOKEN",)
    assert any("not strict YAML (line 3" in w for w in skill.warnings)


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("# no frontmatter\n", "no YAML frontmatter", 1),
        ("---\nname: s\n", "opened by the `---` on line 1 is never closed", 1),
        ("---\ndescription: d\n---\n", "needs a non-empty `name` string (missing)", 2),
        ("---\nname: s\ndescription: ''\n---\n", "non-empty `description`", 3),
        ("---\nname: [1]\ndescription: d\n---\n", "got list", 2),
        ("---\n- a\n- b\n---\n", "must be a mapping", 2),
        ("---\nname: off\ndescription: d\n---\n", "put it in quotes", 2),
        ("---\nname: s\n description: [unclosed\n---\n", "not valid YAML", 3),
        ("---\nname: s\ndescription: d\nexamples: [ab]\n---\n", "`examples`: example 'ab'", 4),
    ],
)
def test_errors_are_precise(tmp_path: Path, text: str, message: str, line: int | None) -> None:
    folder = write(tmp_path, text)
    with pytest.raises(SkillParseError) as info:
        parse_skill_md(folder / "SKILL.md")
    assert message in info.value.message
    if line is not None:
        assert info.value.line == line


def test_binary_and_huge_files_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\x00\x01")
    with pytest.raises(SkillParseError, match="binary"):
        load_skill(folder, "user")
    (folder / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n" + "x" * 600_000)
    with pytest.raises(SkillParseError, match="limited"):
        load_skill(folder, "user")


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    bomb = "---\nname: s\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for i in range(8):
        bomb += f"l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        prev = f"l{i}"
    folder = write(tmp_path, bomb + "---\n")
    with pytest.raises(SkillParseError, match="alias"):
        load_skill(folder, "user")


def test_scripts_listing_skips_hidden_symlinks_and_caches(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "s", scripts={"a.py": "", "sub/b.sh": "", ".hidden": ""})
    (folder / "scripts" / "__pycache__").mkdir()
    (folder / "scripts" / "__pycache__" / "a.pyc").write_bytes(b"")
    (folder / "scripts" / "link.sh").symlink_to(folder / "scripts" / "a.py")
    assert load_skill(folder, "user").scripts == ["a.py", "sub/b.sh"]


def test_name_and_description_warnings(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "s", name="Not Kebab", description="x" * 1100)
    warnings = load_skill(folder, "user").warnings
    assert any("AgentSkills form" in w for w in warnings)
    assert any("1100 characters" in w for w in warnings)


def test_frontmatter_examples_are_loaded(tmp_path: Path) -> None:
    folder = write(
        tmp_path, "---\nname: s\ndescription: d\nexamples:\n  - du -sh but nicer\n---\nBody\n"
    )
    skill = load_skill(folder, "user")
    assert skill.examples == ["du -sh but nicer"]
    assert skill.to_descriptor()["examples"] == ["du -sh but nicer"]
