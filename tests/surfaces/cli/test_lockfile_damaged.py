"""A hand-edited or unreadable lockfile (homeclaw-lock.json): one error naming the file and
the field at fault; one this user may not read is not called damaged (its fix, deleting it,
would lose every install record)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def test_a_wrong_field_in_the_lockfile_is_named(cli: Any, index_env: dict[str, Any]) -> None:
    path = index_env["home"] / "data" / "homeclaw-lock.json"
    path.write_text(json.dumps({"version": 1, "plugins": {"timer": {"id": 5}}}), encoding="utf-8")
    result = cli("plugin", "remove", "timer", "--yes")
    assert result.exit_code == 3, result.output
    assert f"error: {path}: the lockfile is damaged (plugins.timer.id: " in result.stderr
    assert "more problem(s))" in result.stderr


def test_an_unreadable_lockfile_is_not_called_damaged(
    cli: Any, index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = index_env["home"] / "data" / "homeclaw-lock.json"
    path.write_text('{"version": 1}\n', encoding="utf-8")
    read_text = Path.read_text

    def refused(self: Path, *args: Any, **kwargs: Any) -> str:  # root ignores chmod 000
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", refused)
    result = cli("plugin", "remove", "timer", "--yes")
    assert result.exit_code == 3, result.output
    assert f"error: {path} cannot be read (Permission denied)" in result.stderr
    assert "damaged" not in result.stderr and "delete it" not in result.stderr
