"""The journaled swap: every point a process can die at is rolled back by recover()."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.adapters.install_source import (
    BACKUP_PREFIX,
    JOURNAL_PREFIX,
    STAGING_PREFIX,
    SwapJournal,
    recover,
    staging_area,
    swap_into_place,
)


def folder(path: Path, text: str) -> Path:
    path.mkdir(parents=True)
    (path / "v").write_text(text)
    return path


def state(parent: Path) -> tuple[str | None, list[str]]:
    dest = parent / "p" / "v"
    return (dest.read_text() if dest.exists() else None), sorted(
        p.name.split("-")[0] for p in parent.iterdir() if p.name.startswith(".hc")
    )


def test_commit_replaces_and_cleans_up(tmp_path: Path) -> None:
    folder(tmp_path / "p", "old")
    with staging_area(tmp_path) as work:
        new = folder(work / "new", "new")
        with swap_into_place(new, tmp_path / "p"):
            pass
    assert state(tmp_path) == ("new", [])


def test_exception_in_block_restores_old(tmp_path: Path) -> None:
    folder(tmp_path / "p", "old")
    with staging_area(tmp_path) as work:
        new = folder(work / "new", "new")
        with pytest.raises(RuntimeError), swap_into_place(new, tmp_path / "p"):
            assert (tmp_path / "p" / "v").read_text() == "new"
            raise RuntimeError("after swap")
    assert state(tmp_path) == ("old", [])


def test_exception_on_fresh_install_leaves_nothing(tmp_path: Path) -> None:
    with staging_area(tmp_path) as work:
        new = folder(work / "new", "new")
        with pytest.raises(RuntimeError), swap_into_place(new, tmp_path / "p"):
            raise RuntimeError("boom")
    assert state(tmp_path) == (None, [])


def journal(parent: Path, had_old: bool) -> SwapJournal:
    j = SwapJournal(
        parent / f"{JOURNAL_PREFIX}p-x.json",
        parent / "p",
        parent / f"{BACKUP_PREFIX}p-x",
        parent / f"{STAGING_PREFIX}abc" / "content",
        had_old,
        {"id": "p"},
    )
    j.write()
    return j


@pytest.mark.parametrize("point", ["journal written", "old moved away", "new moved in"])
def test_kill_during_upgrade_is_rolled_back(tmp_path: Path, point: str) -> None:
    folder(tmp_path / "p", "old")
    j = journal(tmp_path, had_old=True)
    folder(j.staged, "new")
    if point in ("old moved away", "new moved in"):
        (tmp_path / "p").rename(j.backup)
    if point == "new moved in":
        j.staged.rename(tmp_path / "p")
    seen: list[dict[str, object]] = []
    rolled = recover(tmp_path, on_rollback=lambda jj: seen.append(jj.meta))
    assert [r.dest.name for r in rolled] == ["p"] and seen == [{"id": "p"}]
    assert state(tmp_path) == ("old", [])


@pytest.mark.parametrize("moved_in", [False, True])
def test_kill_during_fresh_install_is_rolled_back(tmp_path: Path, moved_in: bool) -> None:
    j = journal(tmp_path, had_old=False)
    folder(j.staged, "new")
    if moved_in:
        j.staged.rename(tmp_path / "p")
    recover(tmp_path)
    assert state(tmp_path) == (None, [])


def test_kill_during_removal_is_rolled_back(tmp_path: Path) -> None:
    folder(tmp_path / "p", "old")
    j = journal(tmp_path, had_old=True)
    (tmp_path / "p").rename(j.backup)
    recover(tmp_path)
    assert state(tmp_path) == ("old", [])


def test_recover_is_idempotent_and_ignores_damaged_journals(tmp_path: Path) -> None:
    folder(tmp_path / "p", "old")
    (tmp_path / f"{JOURNAL_PREFIX}q-y.json").write_text("{not json")
    assert recover(tmp_path) == []
    assert recover(tmp_path / "missing") == []
    assert state(tmp_path)[0] == "old"
