"""The commit step keeps files, approvals and the lockfile together, and recovery restores
all three after a kill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeclaw_cli.adapters.install_source import swap_into_place
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install import swap
from homeclaw_cli.app.install.records import journal_meta, recover_interrupted
from homeclaw_cli.app.install.swap import commit_install, commit_removal
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.lockfile import LockEntry, lockfile_path, read_lockfile
from tests.skill_helpers import settings_for


def entry(settings: Settings, version: str) -> LockEntry:
    folder = settings.user_skills_dir / "s"
    return LockEntry(
        id="s",
        kind="skill",
        source="src",
        source_kind="folder",
        location="/src",
        digest=f"sha256:{version}",
        version=version,
        installed_at="2024-01-01T00:00:00+00:00",
        folder=str(folder),
    )


def staged(settings: Settings, text: str) -> Path:
    folder = settings.user_skills_dir / f".hc-staging-{text}"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text)
    return folder


def records(settings: Settings) -> tuple[str | None, list[str] | None]:
    lock = read_lockfile(lockfile_path(settings)).skills.get("s")
    perms = ApprovalStore.for_state_dir(settings.state_dir).get("s", "skill")
    return (lock.version if lock else None), (perms.env_vars if perms else None)


def test_install_then_remove_move_files_and_records_together(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    dest = settings.user_skills_dir / "s"
    commit_install(
        AppContext(settings), staged(settings, "v1"), dest, entry(settings, "1"), Permissions()
    )
    assert (dest / "SKILL.md").read_text() == "v1" and records(settings) == ("1", [])
    commit_removal(AppContext(settings), "skill", "s", dest)
    assert not dest.exists() and records(settings) == (None, None)


def test_a_failed_lockfile_write_restores_folder_and_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for(tmp_path)
    dest = settings.user_skills_dir / "s"
    old = Permissions(env_vars=["A"])
    commit_install(AppContext(settings), staged(settings, "v1"), dest, entry(settings, "1"), old)

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(swap, "write_lockfile", boom)
    new = Permissions(env_vars=["A", "B"])
    with pytest.raises(OSError, match="disk full"):
        commit_install(
            AppContext(settings), staged(settings, "v2"), dest, entry(settings, "2"), new
        )
    assert (dest / "SKILL.md").read_text() == "v1" and records(settings) == ("1", ["A"])


def test_recovery_restores_the_records_a_killed_swap_left(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    dest = settings.user_skills_dir / "s"
    commit_install(
        AppContext(settings), staged(settings, "v1"), dest, entry(settings, "1"), Permissions()
    )
    store = ApprovalStore.for_state_dir(settings.state_dir)
    meta = journal_meta("skill", "s", entry(settings, "1"), store.raw("s", "skill"))
    swapped = swap_into_place(staged(settings, "v2"), dest, meta=meta)
    # The process "dies" inside the swap: the block never ends, so nothing is committed.
    swapped.__enter__()
    store.grant("s", Permissions(env_vars=["NEW"]), "skill")
    lock_file = lockfile_path(settings)
    data = json.loads(lock_file.read_text())
    data["skills"]["s"]["version"] = "2"
    lock_file.write_text(json.dumps(data))
    assert recover_interrupted(AppContext(settings)) == ["s"]
    assert (dest / "SKILL.md").read_text() == "v1" and records(settings) == ("1", [])
    events = (settings.data_dir / "audit.jsonl").read_text()
    assert '"rollback"' in events
