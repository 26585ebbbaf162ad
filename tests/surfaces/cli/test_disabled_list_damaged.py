"""A damaged disabled_plugins.json keeps what it still names disabled (the safe side), says
so, and the next `plugin disable` moves it to .bak instead of overwriting the user's choice."""

from __future__ import annotations

import json
from typing import Any

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
