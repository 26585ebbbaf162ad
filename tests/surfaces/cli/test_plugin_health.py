"""`homeclaw plugin health`: per-type checks, stored results, and what listings show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.errors import ExitCode
from homeclaw_cli.settings import load_settings
from homeclaw_cli.state.health import HealthStore
from tests.json_output import payload
from tests.plugin_factory import free_port, todo_server, workspace_plugins, write_plugin


def http_plugin(plugin_id: str, url: str, with_health_url: bool = True) -> None:
    manifest: dict[str, Any] = {
        "id": plugin_id,
        "name": plugin_id,
        "description": "A test plugin.",
        "type": "http",
        "config": {"base_url": url},
    }
    if with_health_url:
        manifest["health_check_url"] = url + "/health"
    write_plugin(workspace_plugins(), manifest)


def subprocess_plugin(plugin_id: str, command: str) -> None:
    write_plugin(
        workspace_plugins(),
        {
            "id": plugin_id,
            "name": plugin_id,
            "description": "A test plugin.",
            "type": "subprocess",
            "config": {"command": command},
        },
    )


def test_down_server_is_unhealthy_stored_and_listed(cli: Any, hc_home: Path) -> None:
    http_plugin("down", f"http://127.0.0.1:{free_port()}")
    result = cli("plugin", "health", "down", "--json")
    assert result.exit_code == ExitCode.UNAVAILABLE
    [report] = payload(result)
    assert report["ok"] is False
    assert "not running at" in report["detail"]
    assert report["failures"] == 1
    stored = HealthStore(load_settings().state_dir).get("down")
    assert stored is not None and not stored.ok
    listing = {r["id"]: r for r in payload(cli("plugin", "list", "--json"))}
    assert listing["down"]["status"] == "unhealthy"
    assert "not running at" in listing["down"]["problem"]


def test_unknown_host_is_reported_as_such(cli: Any) -> None:
    http_plugin("nowhere", "http://no-such-host.invalid", with_health_url=False)
    http_plugin("nohealth", "http://no-such-host.invalid")
    result = cli("plugin", "health", "--json")
    assert result.exit_code == ExitCode.UNAVAILABLE
    reports = {r["id"]: r for r in payload(result)}
    assert reports["nowhere"]["ok"] is False
    assert reports["nowhere"]["detail"] == (
        "cannot resolve host no-such-host.invalid: check base_url"
    )
    assert reports["nohealth"]["detail"] == (
        "cannot resolve host no-such-host.invalid: check health_check_url"
    )
    table = cli("plugin", "health", "nowhere")
    assert "cannot resolve host" in table.stdout and "connection refused" not in table.stdout


def test_running_server_is_healthy_and_a_later_check_clears_the_mark(
    cli: Any, tmp_path: Path
) -> None:
    port = free_port()
    http_plugin("todo-copy", f"http://127.0.0.1:{port}", with_health_url=False)
    assert cli("plugin", "health", "todo-copy").exit_code == ExitCode.UNAVAILABLE
    with todo_server(tmp_path / "t.json") as url:
        http_plugin("todo-copy", url)
        result = cli("plugin", "health", "todo-copy")
        assert result.exit_code == 0, result.output
        assert "todo-copy\thttp\tok\t" in result.stdout
        assert "GET " + url + "/health -> 200" in result.stdout
    listing = {r["id"]: r for r in payload(cli("plugin", "list", "--json"))}
    assert listing["todo-copy"]["status"] == "ok"


def test_a_call_that_finds_the_server_down_marks_it_and_success_clears_it(
    cli: Any, tmp_path: Path
) -> None:
    port = free_port()
    http_plugin("flaky", f"http://127.0.0.1:{port}")
    cli("plugin", "call", "flaky")
    store = HealthStore(load_settings().state_dir)
    assert store.unhealthy() == {"flaky"}
    with todo_server(tmp_path / "t.json") as url:
        http_plugin("flaky", url)
        assert cli("plugin", "call", "flaky").exit_code == 0
    assert store.unhealthy() == frozenset()


def test_subprocess_health_checks_the_command(cli: Any) -> None:
    subprocess_plugin("has-cmd", "python")
    subprocess_plugin("no-cmd", "definitely-not-a-command")
    ok = payload(cli("plugin", "health", "has-cmd", "--json"))[0]
    assert ok["ok"] is True
    bad = cli("plugin", "health", "no-cmd", "--json")
    assert bad.exit_code == ExitCode.UNAVAILABLE
    assert payload(bad)[0]["detail"] == "command 'definitely-not-a-command' not found"


def inline_plugin(plugin_id: str, code: str) -> None:
    go = {"id": "go", "name": "Go", "description": "Go."}
    manifest = {"id": plugin_id, "name": plugin_id, "description": "A test plugin."}
    manifest |= {"type": "inline", "capabilities": [go]}
    write_plugin(workspace_plugins(), manifest, {"plugin.py": code})


PLUGIN_CODE = """\
    {first_line}
    from homeclaw_cli.sdk import BasePlugin


    class Go(BasePlugin):
        def initialize(self) -> None:
            {on_start}

        def go(self) -> str:
            return "went"
    """


def test_inline_health_loads_the_code_as_a_call_would(cli: Any) -> None:
    """A call would fail on an import or a failing initialize(): health says so, not ok."""
    inline_plugin("fine", PLUGIN_CODE.format(first_line="import json", on_start="pass"))
    missing = "import nonexistent_module_x"
    inline_plugin("no-dep", PLUGIN_CODE.format(first_line=missing, on_start="pass"))
    bad_start = 'raise RuntimeError("no token in config")'
    inline_plugin("no-token", PLUGIN_CODE.format(first_line="import json", on_start=bad_start))
    ok = payload(cli("plugin", "health", "fine", "--json"))[0]
    assert (ok["ok"], ok["detail"]) == (True, "plugin.py loads")
    for plugin_id, why in [
        ("no-dep", "No module named 'nonexistent_module_x'"),
        ("no-token", "initialize) raised RuntimeError: no token in config"),
    ]:
        bad = cli("plugin", "health", plugin_id, "--json")
        assert bad.exit_code == ExitCode.UNAVAILABLE
        assert why in payload(bad)[0]["detail"]


def test_unknown_plugin_is_not_found(cli: Any) -> None:
    result = cli("plugin", "health", "nope-nope")
    assert result.exit_code == ExitCode.NOT_FOUND


@pytest.mark.slow
def test_mcp_health_initializes_and_checks_the_tool_mapping(cli: Any) -> None:
    result = cli("plugin", "health", "mcp-time", "--json")
    assert result.exit_code == 0, result.output
    [report] = payload(result)
    assert report["detail"] == "2 tools: get_current_time, convert_time"
    folder = write_plugin(
        workspace_plugins(),
        {
            "id": "time-typo",
            "name": "t",
            "description": "A test plugin.",
            "type": "mcp",
            "config": {"command": "mcp-server-time"},
            "capabilities": [{"id": "get_time", "name": "t", "description": "Time."}],
        },
    )
    bad = cli("plugin", "health", "time-typo", "--json")
    assert bad.exit_code == ExitCode.UNAVAILABLE
    detail = payload(bad)[0]["detail"]
    assert "capabilities without a server tool: get_time" in detail
    assert f"run `homeclaw plugin mcp-import {folder}`, or map them in config.tools" in detail


def test_validate_live_checks_http_plugins(cli: Any, tmp_path: Path) -> None:
    http_plugin("gone", f"http://127.0.0.1:{free_port()}")
    folder = workspace_plugins() / "gone"
    assert cli("plugin", "validate", str(folder)).exit_code == 0
    result = cli("plugin", "validate", "--live", str(folder), "--json")
    assert result.exit_code == ExitCode.FAILURE
    [report] = payload(result)["plugins"]
    [error] = report["errors"]
    assert error["field"] == "health_check_url"
    assert error["line"] is not None
    assert "not running at" in error["message"]
    with todo_server(tmp_path / "t.json") as url:
        http_plugin("gone", url)
        assert cli("plugin", "validate", "--live", str(folder)).exit_code == 0


@pytest.mark.slow
def test_validate_live_finds_capabilities_without_an_mcp_tool(cli: Any) -> None:
    folder = write_plugin(
        workspace_plugins(),
        {
            "id": "time-typo",
            "name": "t",
            "description": "A test plugin.",
            "type": "mcp",
            "config": {"command": "mcp-server-time"},
            "capabilities": [
                {"id": "convert_time", "name": "t", "description": "Convert."},
                {"id": "get_time", "name": "t", "description": "Time."},
            ],
        },
    )
    result = cli("plugin", "validate", "--live", str(folder))
    assert result.exit_code == ExitCode.FAILURE
    assert "error: capabilities[1].id: capability 'get_time' matches no tool" in result.stdout
    assert "(its tools: get_current_time, convert_time)" in result.stdout


@pytest.mark.parametrize("body", ['{"plugins": 5}', '{"version": 1, "plugins": [1]}'])
def test_a_health_file_of_the_wrong_shape_reads_as_empty(cli: Any, body: str) -> None:
    store = HealthStore(load_settings().state_dir)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text(body)
    listed = cli("plugin", "list")
    assert listed.exit_code == 0, listed.output
    assert "calculator" in listed.stdout
    checked = cli("plugin", "health", "calculator")
    assert checked.exit_code == 0, checked.output
    assert set(HealthStore(load_settings().state_dir).all()) == {"calculator"}
