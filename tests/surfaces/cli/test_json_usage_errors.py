"""Under `--json`, bad flags and arguments still give one envelope on stdout: they stop the
command before its own `--json` is read, so the error boundary opens the envelope itself."""

from __future__ import annotations

from typing import Any

import pytest

from homeclaw_cli.surfaces.cli.main import app, command_words, json_requested
from tests.json_output import envelope

CASES = [
    (("sync", "--bogus", "--json"), "sync", 2, "No such option: --bogus"),
    (("plugin", "search", "--json"), "plugin search", 2, "Missing argument 'QUERY'"),
    (("--bogus", "plugin", "list", "--json"), "plugin list", 2, "No such option: --bogus"),
    (("--plugins-dir", "/no/such/place", "plugin", "list", "--json"), "plugin list", 4, "/no/"),
]


@pytest.mark.parametrize(("args", "command", "code", "message"), CASES, ids=str)
def test_a_usage_error_under_json_is_an_envelope(
    cli: Any, args: tuple[str, ...], command: str, code: int, message: str
) -> None:
    result = cli(*args)
    assert result.exit_code == code, result.output
    document = envelope(result)
    assert document["command"] == command
    assert document["error"]["exit_code"] == code and message in document["error"]["message"]
    assert "Usage:" in result.stderr or "error:" in result.stderr  # people still read stderr


def test_without_json_stdout_stays_empty(cli: Any) -> None:
    result = cli("sync", "--bogus")
    assert result.exit_code == 2 and result.stdout == ""


def test_command_words_skip_options_and_their_values() -> None:
    import typer

    group = typer.main.get_command(app)
    argv = ["--plugins-dir", "/x", "--config=c.yaml", "plugin", "call", "units", "--json"]
    assert command_words(group, argv) == "plugin call"  # type: ignore[arg-type]
    assert command_words(group, ["--", "sync"]) == "homeclaw"  # type: ignore[arg-type]


def test_json_as_the_value_of_an_option_asks_for_no_envelope(cli: Any) -> None:
    """`logs -q --json` searches the logs for the text --json: it printed a JSON envelope
    (`data: null`) after the plain output, so stdout was neither text nor JSON."""
    result = cli("logs", "-q", "--json")
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and "no matching turns" in result.stderr


def test_json_requested_reads_the_flag_not_an_options_value() -> None:
    import typer

    group = typer.main.get_command(app)
    asked = [
        ["plugin", "search", "weather", "--json"],
        ["plugin", "lst", "--json"],
        ["--bogus", "plugin", "list", "--json"],
        ["chat", "-q", "-", "--json"],
    ]
    assert all(json_requested(group, argv) for argv in asked)  # type: ignore[arg-type]
    not_asked = [["chat", "-q", "--json"], ["logs", "--query", "--json"], ["sync", "--", "--json"]]
    assert not any(json_requested(group, argv) for argv in not_asked)  # type: ignore[arg-type]
