"""`homeclaw skill install/update/remove` on the shared install machinery: lockfile,
approvals, git refs, audit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.core.permissions import skill_permissions
from homeclaw_cli.state.approvals import ApprovalStore, permissions_for
from homeclaw_cli.surfaces.cli import confirm
from tests.json_output import payload


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


def lock(hc_home: Path) -> dict[str, Any]:
    return json.loads((hc_home / "data" / "homeclaw-lock.json").read_text())


def test_skill_install_asks_records_lock_and_grants_env(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confirm, "on_terminal", lambda: True)
    src = write_skill(tmp_path / "gh-helper", env=["GITHUB_TOKEN"])
    refused = cli("skill", "install", str(src), input="n\n")
    assert refused.exit_code == 1 and "skill gh-helper asks" in refused.stderr
    assert "env var: GITHUB_TOKEN" in refused.stderr
    assert not (hc_home / "data" / "skills" / "gh-helper").exists()
    result = cli("skill", "install", str(src), "--yes", "--json")
    assert result.exit_code == 0, result.output
    data = payload(result)
    assert data["id"] == "gh-helper" and data["digest"].startswith("sha256:")
    dest = hc_home / "data" / "skills" / "gh-helper"
    assert (dest / "scripts" / "run.sh").is_file()
    entry = lock(hc_home)["skills"]["gh-helper"]
    assert (entry["kind"], entry["version"], entry["source_kind"]) == ("skill", "1", "folder")
    state = hc_home / "data" / "state"
    assert ApprovalStore.for_state_dir(state).get("gh-helper", "skill") is not None
    declared = skill_permissions(
        {"metadata": {"openclaw": {"requires": {"env": ["GITHUB_TOKEN", "OTHER"]}}}}
    )
    assert permissions_for(state, "gh-helper", declared, "skill").env_vars == ["GITHUB_TOKEN"]
    events = payload(cli("audit", "--json"))
    assert [(e["action"], e.get("kind")) for e in events] == [
        ("approval-refused", "skill"),
        ("install", "skill"),
        ("approve", "skill"),
    ]


def test_skill_upgrade_update_and_remove(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_skill(tmp_path / "gh-helper")
    assert cli("skill", "install", str(src), "--id", "gh").exit_code == 0
    again = cli("skill", "install", str(src), "--id", "gh")
    assert again.exit_code == 2 and "--force" in again.stderr
    assert "up to date" in cli("skill", "update", "gh").stdout
    write_skill(src, version="2")
    updated = cli("skill", "update", "--all")
    assert updated.exit_code == 0, updated.output
    assert "upgraded gh 1 -> 2 (" in updated.stdout and "~ SKILL.md" in updated.stdout
    assert lock(hc_home)["skills"]["gh"]["version"] == "2"
    removed = cli("skill", "remove", "gh", "--yes", "--json")
    assert removed.exit_code == 0, removed.output
    assert payload(removed)["removed"] == str(hc_home / "data" / "skills" / "gh")
    assert not (hc_home / "data" / "skills" / "gh").exists()
    assert lock(hc_home)["skills"] == {}
    assert cli("skill", "remove", "gh", "--yes").exit_code == 4


def test_skill_from_git_ref_records_the_commit(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "skills-repo"
    write_skill(repo / "skills" / "gh-helper")

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=repo,
            check=True,
            capture_output=True,
            text=True,
        )
        return done.stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    git("tag", "v1")
    commit = git("rev-parse", "HEAD")
    write_skill(repo / "skills" / "gh-helper", version="2")
    git("commit", "-qam", "two")
    result = cli("skill", "install", f"file://{repo}@v1", "--subdir", "skills/gh-helper")
    assert result.exit_code == 0, result.output
    entry = lock(hc_home)["skills"]["gh-helper"]
    assert (entry["ref"], entry["commit"], entry["version"]) == ("v1", commit, "1")
    assert entry["subdir"] == "skills/gh-helper"
    assert "up to date" in cli("skill", "update", "gh-helper").stdout  # pinned to v1


def test_invalid_skill_permissions_are_named(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "badperm"
    bad.mkdir()
    (bad / "SKILL.md").write_text(
        "---\nname: x\ndescription: y\npermissions:\n  filesystem: [rel]\n---\nbody\n"
    )
    result = cli("skill", "install", str(bad))
    assert result.exit_code == 1 and "permissions.filesystem" in result.stderr
    skills = hc_home / "data" / "skills"
    assert not skills.exists() or list(skills.iterdir()) == []


def test_update_needs_one_id_or_all(cli: Any, hc_home: Path) -> None:
    for kind in ("plugin", "skill"):
        result = cli(kind, "update")
        assert result.exit_code == 2 and f"give one {kind} id, or --all" in result.stderr
        nothing = cli(kind, "update", "--all", "--json")
        assert nothing.exit_code == 0 and payload(nothing) == []


def test_remove_of_a_skill_homeclaw_did_not_install_says_where_it_comes_from(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was 'no installed skill' though skill list showed it: remove deletes only what
    skill install put in the user skills dir, so it names the source and `disable`."""
    monkeypatch.setenv("HOMECLAW_SKILLS_PATH", str(tmp_path / "mine"))
    folder = write_skill(tmp_path / "mine" / "gh-helper")
    bundled = cli("skill", "remove", "disk-usage", "--yes")
    assert bundled.exit_code == 2, bundled.output
    assert "skill 'disk-usage' is a bundled skill (" in bundled.stderr
    assert "`homeclaw skill disable disk-usage` turns it off" in bundled.stderr
    path = cli("skill", "remove", "gh-helper", "--yes")
    assert path.exit_code == 2, path.output
    assert f"skill 'gh-helper' is a path skill ({folder})" in path.stderr
    assert (folder / "SKILL.md").is_file()
    assert cli("skill", "disable", "gh-helper").exit_code == 0
    disabled = cli("skill", "remove", "gh-helper", "--yes")
    assert disabled.exit_code == 2 and "it is disabled already" in disabled.stderr
    assert cli("skill", "remove", "no-such", "--yes").exit_code == 4
