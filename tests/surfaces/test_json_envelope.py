"""Every `--json` document is one versioned envelope: data, or the error that stopped it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from homeclaw_cli.errors import ExitCode
from tests.json_output import ENVELOPE_KEYS, ERROR_KEYS, FAILED_KEYS, envelope, payload


def test_a_listing_is_the_data_of_an_ok_envelope(cli: Any) -> None:
    result = cli("plugin", "list", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == ENVELOPE_KEYS
    assert document["homeclaw"] == 1
    assert document["command"] == "plugin list"
    assert document["ok"] is True
    assert document["warnings"] == []
    assert "calculator" in {row["id"] for row in document["data"]}


def test_a_single_result_is_an_object_and_the_command_path_comes_from_typer(cli: Any) -> None:
    shown = envelope(cli("plugin", "show", "calculator", "--json"))
    assert shown["command"] == "plugin show"
    assert shown["ok"] is True and shown["data"]["manifest"]["id"] == "calculator"
    assert envelope(cli("config", "show", "--json"))["command"] == "config show"
    assert envelope(cli("sync", "--check", "--json"))["command"] == "sync"


def test_a_failing_command_prints_an_error_envelope_and_keeps_its_exit_code(cli: Any) -> None:
    result = cli("plugin", "show", "nope", "--json")
    assert result.exit_code == ExitCode.NOT_FOUND
    document = envelope(result)
    assert set(document) == ERROR_KEYS
    assert document["command"] == "plugin show"
    assert document["ok"] is False
    error = document["error"]
    assert set(error) == {"message", "hint", "exit_code", "kind"}
    assert error["exit_code"] == ExitCode.NOT_FOUND and error["kind"] == "not_found"
    assert "no plugin with id 'nope'" in error["message"]
    assert error["hint"] and "homeclaw plugin list" in error["hint"]
    assert "error: no plugin with id 'nope'" in result.stderr


def test_without_json_a_failure_prints_nothing_on_stdout(cli: Any) -> None:
    result = cli("plugin", "show", "nope")
    assert result.exit_code == ExitCode.NOT_FOUND
    assert result.stdout == ""
    assert "error: no plugin with id 'nope'" in result.stderr


def test_a_failure_reported_as_data_keeps_its_data_next_to_the_error(
    cli: Any, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "plugin.yaml").write_text("id: Bad Id\n")
    result = cli("plugin", "validate", str(broken), "--json")
    assert result.exit_code == ExitCode.FAILURE
    document = envelope(result)
    assert set(document) == FAILED_KEYS and document["ok"] is False
    assert document["command"] == "plugin validate"
    assert document["data"]["plugins"][0]["valid"] is False
    assert document["error"]["exit_code"] == ExitCode.FAILURE
    assert str(broken) in document["error"]["message"]


def test_every_failing_exit_has_an_error_in_the_envelope(cli: Any, tmp_path: Path) -> None:
    """Commands that report their result and then fail: a script can read .error.kind."""
    down = tmp_path / "plugins" / "down"
    down.mkdir(parents=True)
    (down / "plugin.yaml").write_text(
        "id: down\nname: Down\ndescription: A server that is not there.\ntype: http\n"
        "config: {base_url: 'http://127.0.0.1:9'}\n"
        "capabilities: [{id: go, name: Go, description: Go.}]\n"
    )
    plugins = ("--plugins-dir", str(tmp_path / "plugins"))
    for argv, code, kind in [
        ((*plugins, "plugin", "health", "down", "--json"), ExitCode.UNAVAILABLE, "unavailable"),
        ((*plugins, "plugin", "call", "down", "go", "--json"), ExitCode.UNAVAILABLE, "unavailable"),
        (("sync", "--check", "--json"), ExitCode.FAILURE, "error"),
    ]:
        result = cli(*argv)
        assert result.exit_code == code, (argv, result.output)
        document = envelope(result)
        assert document["ok"] is False and "data" in document, argv
        assert (document["error"]["exit_code"], document["error"]["kind"]) == (code, kind), argv


def test_warnings_printed_during_the_command_are_collected(cli: Any, hc_home: Path) -> None:
    broken = hc_home / "data" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("nothing")
    result = cli("skill", "list", "--json")
    assert result.exit_code == 0, result.output
    document = envelope(result)
    assert any("no YAML frontmatter" in w for w in document["warnings"])
    assert "warning:" in result.stderr
    assert isinstance(payload(result), list)


def test_the_real_entry_point_prints_one_envelope(run_cli: Any) -> None:
    done = run_cli("plugin", "show", "nope", "--json")
    assert done.returncode == ExitCode.NOT_FOUND
    assert envelope(done)["error"]["kind"] == "not_found"
