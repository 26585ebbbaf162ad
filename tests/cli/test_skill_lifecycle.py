"""`homeclaw skill install/update/remove` on the shared install machinery."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from homeclaw_cli.cli.main import _ErrorBoundary
from homeclaw_cli.cli.skill_lifecycle import register
from homeclaw_cli.domain.permissions import ApprovalStore, permissions_for, skill_permissions


@pytest.fixture
def skill_cli(hc_home: Path) -> Any:
    root = typer.Typer(cls=_ErrorBoundary)
    skill_app = typer.Typer()
    register(skill_app)
    root.add_typer(skill_app, name="skill")
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Any:
        return runner.invoke(root, list(args), input=input, catch_exceptions=False)

    return invoke


def write_skill(folder: Path, *, version: str = "1", env: list[str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    meta = f"metadata: {json.dumps({'openclaw': {'requires': {'env': env}}})}\n" if env else ""
    (folder / "SKILL.md").write_text(
        f"---\nname: gh-helper\ndescription: Work with GitHub issues.\nversion: '{version}'\n"
        f"{meta}---\nUse the gh CLI.\n"
    )
    (folder / "scripts").mkdir(exist_ok=True)
    (folder / "scripts" / "run.sh").write_text("echo hi\n")
    return folder


def test_skill_install_records_lock_and_env_permission(
    skill_cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_skill(tmp_path / "any-folder-name", env=["GITHUB_TOKEN"])
    refused = skill_cli("skill", "install", str(src), input="n\n")
    assert refused.exit_code == 1 and "skill gh-helper asks" in refused.stderr
    assert "env var: GITHUB_TOKEN" in refused.stderr
    result = skill_cli("skill", "install", str(src), "--yes", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kind"] == "skill"
    dest = hc_home / "data" / "skills" / "gh-helper"
    assert (dest / "scripts" / "run.sh").is_file()
    lock = json.loads((hc_home / "data" / "homeclaw-lock.json").read_text())
    assert lock["plugins"] == {} and lock["skills"]["gh-helper"]["version"] == "1"
    state = hc_home / "data" / "state"
    assert ApprovalStore.for_state_dir(state).get("gh-helper", "skill") is not None
    granted = permissions_for(
        state,
        "gh-helper",
        skill_permissions(
            {"metadata": {"openclaw": {"requires": {"env": ["GITHUB_TOKEN", "OTHER"]}}}}
        ),
        "skill",
    )
    assert granted.env_vars == ["GITHUB_TOKEN"]


def test_skill_upgrade_update_and_remove(skill_cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_skill(tmp_path / "s")
    assert skill_cli("skill", "install", str(src)).exit_code == 0
    again = skill_cli("skill", "install", str(src))
    assert again.exit_code == 2 and "already installed" in again.stderr
    assert "up to date" in skill_cli("skill", "update", "gh-helper").stdout
    write_skill(src, version="2")
    updated = skill_cli("skill", "update", "--all")
    assert updated.exit_code == 0 and "upgraded gh-helper 2 (was 1)" in updated.stdout
    assert "~ SKILL.md" in updated.stdout
    assert skill_cli("skill", "remove", "gh-helper").exit_code == 0
    assert not (hc_home / "data" / "skills" / "gh-helper").exists()
    assert skill_cli("skill", "remove", "gh-helper").exit_code == 4


def test_invalid_skill_is_refused(skill_cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = tmp_path / "bad"
    src.mkdir()
    (src / "SKILL.md").write_text("no frontmatter here\n")
    result = skill_cli("skill", "install", str(src))
    assert result.exit_code == 1 and "frontmatter" in result.stderr
    bad_perm = tmp_path / "badperm"
    bad_perm.mkdir()
    (bad_perm / "SKILL.md").write_text(
        "---\nname: x\ndescription: y\npermissions:\n  filesystem: [rel]\n---\nbody\n"
    )
    result = skill_cli("skill", "install", str(bad_perm))
    assert result.exit_code == 1 and "permissions.filesystem" in result.stderr
    assert not (hc_home / "data" / "skills").exists() or not any(
        p for p in (hc_home / "data" / "skills").iterdir()
    )
