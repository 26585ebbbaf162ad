"""A plugin that cannot be indexed is reported however sync is run: on stderr, in the
`--json` envelope's warnings, and even with `--quiet` (cron mails what it prints)."""

from __future__ import annotations

from typing import Any

from tests.json_output import envelope


def _break_a_plugin(index_env: dict[str, Any]) -> None:
    broken = index_env["plugins"] / "broken"
    broken.mkdir()
    (broken / "plugin.yaml").write_text("id: broken\nname: Broken\ntype: inlinex\n")


def test_a_plugin_not_indexed_is_a_warning_in_the_envelope(
    cli: Any, index_env: dict[str, Any]
) -> None:
    _break_a_plugin(index_env)
    result = cli("sync", "--json")
    assert result.exit_code == 0, result.output
    document = envelope(result)
    assert any(w.startswith("not indexed: ") and "broken" in w for w in document["warnings"])
    assert document["data"]["errors"]


def test_quiet_sync_still_says_what_was_not_indexed(cli: Any, index_env: dict[str, Any]) -> None:
    _break_a_plugin(index_env)
    quiet = cli("sync", "--quiet")
    assert quiet.exit_code == 0
    assert quiet.stdout == ""
    assert "warning: not indexed: " in quiet.stderr and "broken" in quiet.stderr


def test_quiet_help_says_what_it_still_prints(cli: Any) -> None:
    """`--quiet` was "Print nothing unless it fails", though a sync that succeeds still warns
    of what it could not index."""
    for command in (("sync",), ("plugin", "sync"), ("skill", "sync")):
        text = " ".join(cli(*command, "--help").stdout.split())
        assert "Print only warnings and errors" in text, command
