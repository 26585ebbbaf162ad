"""`plugin list --all`: one id in two folders says which folder each row is, in the plain
and the Rich output, and an id never wraps on an 80-column terminal."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.catalog.test_registry import make

LONG_ID = "p-subprocess-python"


@pytest.fixture
def two_folders(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    make(first, LONG_ID, LONG_ID, "A plugin with a rather long descriptive name")
    make(second, LONG_ID, LONG_ID, "A plugin with a rather long descriptive name")
    return first, second


def args(first: Path, second: Path, *more: str) -> list[str]:
    return ["--plugins-dir", str(first), "--plugins-dir", str(second), "plugin", "list", *more]


def test_plain_all_ends_each_row_with_its_folder(cli: Any, two_folders: tuple[Path, Path]) -> None:
    first, second = two_folders
    result = cli(*args(first, second, "--all"), env={"HOMECLAW_NO_BUNDLED": "1"})
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [(r[0], r[5], r[7]) for r in rows] == [
        (LONG_ID, "ok", str(first / LONG_ID)),
        (LONG_ID, "shadowed", str(second / LONG_ID)),
    ]
    plain = cli(*args(first, second), env={"HOMECLAW_NO_BUNDLED": "1"})
    assert len(plain.stdout.splitlines()[0].split("\t")) == 7  # no FOLDER without --all


def test_rich_table_shows_folders_and_never_wraps_an_id(
    cli: Any, two_folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = two_folders
    monkeypatch.chdir(first.parent)
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # Rich output, as on a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")
    for extra in ([], ["--all"]):
        result = cli(*args(first, second, *extra), env={"HOMECLAW_NO_BUNDLED": "1"})
        assert result.exit_code == 0, result.output
        shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
        assert all(len(line) <= 80 for line in shown.splitlines())
        ids = [line.split("│")[0].strip() for line in shown.splitlines() if "│" in line]
        assert [i for i in ids if i] == [LONG_ID] * (2 if extra else 1), shown
    header = next(line for line in shown.splitlines() if "┃" in line)
    assert [cell.strip() for cell in header.split("┃")] == [
        *("ID", "TYPE", "SOURCE", "STATUS", "FOLDER")
    ]
    assert "ok       │ first/p-subprocess" in shown  # relative to the current folder
    assert "shadowed │ second/p-subprocess" in shown
