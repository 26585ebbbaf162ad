"""A damaged disabled_plugins.json keeps what it still names disabled (the safe side), says
so, and the next `plugin disable` moves it to .bak instead of overwriting the user's choice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.index import write_plugin


def test_a_truncated_disabled_list_keeps_its_plugins_off(
    cli: Any, index_env: dict[str, Any]
) -> None:
    write_plugin(index_env["plugins"], "notes", "Notes", "Write down and read notes.")
    state = index_env["home"] / "data" / "state"
    state.mkdir(parents=True, exist_ok=True)
    damaged = '[\n "weather",\n "notes"'
    (state / "disabled_plugins.json").write_text(damaged, encoding="utf-8")
    listed = cli("plugin", "list", "--all")
    rows = {line.split("\t")[0]: line for line in listed.stdout.splitlines()}
    assert "\tdisabled\t" in rows["weather"] and "\tdisabled\t" in rows["notes"]
    assert "invalid JSON" in listed.output and "kept disabled: notes, weather" in listed.output
    assert cli("plugin", "disable", "slack").exit_code == 0
    kept = json.loads((state / "disabled_plugins.json").read_text(encoding="utf-8"))
    assert kept == ["notes", "slack", "weather"]
    assert (state / "disabled_plugins.json.bak").read_text(encoding="utf-8") == damaged


def test_a_disabled_list_that_is_not_utf8_keeps_its_plugins_off(
    cli: Any, index_env: dict[str, Any]
) -> None:
    state = index_env["home"] / "data" / "state"
    state.mkdir(parents=True, exist_ok=True)
    damaged = b'["weather",\xff "timer"]\n'
    (state / "disabled_plugins.json").write_bytes(damaged)
    listed = cli("plugin", "list", "--all")
    rows = {line.split("\t")[0]: line for line in listed.stdout.splitlines()}
    assert "\tdisabled\t" in rows["weather"] and "\tdisabled\t" in rows["timer"]
    assert "not UTF-8 text" in listed.output
    assert cli("plugin", "disable", "slack").exit_code == 0
    kept = json.loads((state / "disabled_plugins.json").read_text(encoding="utf-8"))
    assert kept == ["slack", "timer", "weather"]
    assert (state / "disabled_plugins.json.bak").read_bytes() == damaged


def test_an_unreadable_disabled_list_is_named_not_read_as_empty(
    cli: Any, index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = index_env["home"] / "data" / "state" / "disabled_plugins.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('["weather"]\n', encoding="utf-8")
    read_bytes = Path.read_bytes

    def refused(self: Path) -> bytes:  # chmod 000 as a user root's modes do not bind
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", refused)
    for command in (["plugin", "list"], ["plugin", "disable", "slack"]):
        result = cli(*command)
        assert result.exit_code == 3, result.output
        assert f"error: {path} cannot be read (Permission denied)" in result.stderr
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == '["weather"]\n'
