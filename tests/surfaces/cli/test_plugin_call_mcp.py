"""`homeclaw plugin call` on mcp plugins: real servers over stdio (slow: each spawns one)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.errors import ExitCode
from homeclaw_cli.settings import load_settings
from tests.fakes.processes import gone_soon
from tests.json_output import payload
from tests.plugin_factory import BUNDLED, REPO_ROOT, free_port, workspace_plugins, write_plugin

pytestmark = pytest.mark.slow
SERVER = REPO_ROOT / "tests" / "fakes" / "mcp_test_server.py"


def mcp_plugin(capabilities: list[dict[str, Any]], **config: Any) -> Path:
    manifest = {
        "id": "testmcp",
        "name": "Test MCP",
        "description": "A test MCP server.",
        "type": "mcp",
        "config": {"command": "python", "args": [str(SERVER)], "timeout_sec": 20, **config},
        "capabilities": capabilities,
    }
    return write_plugin(workspace_plugins(), manifest)


def cap(cap_id: str, *params: dict[str, Any]) -> dict[str, Any]:
    return {"id": cap_id, "name": cap_id, "description": "A tool.", "parameters": list(params)}


def test_bundled_time_server(cli: Any) -> None:
    result = cli(
        "plugin", "call", "mcp-time", "get_current_time", "-p", "timezone=Asia/Tokyo", "--json"
    )
    assert result.exit_code == 0, result.output
    outcome = payload(result)
    assert outcome["result"]["metadata"]["structured"]["timezone"] == "Asia/Tokyo"
    assert outcome["result"]["metadata"]["tool"] == "get_current_time"
    refused = cli(
        "plugin",
        "call",
        "mcp-time",
        "convert_time",
        "-p",
        "source_timezone=Mars/Olympus",
        "-p",
        "time=12:00",
        "-p",
        "target_timezone=UTC",
    )
    assert refused.exit_code == ExitCode.FAILURE
    assert "Invalid timezone" in refused.stderr


def test_bundled_filesystem_server_from_npm(cli: Any, hc_home: Path) -> None:
    if not (BUNDLED / "files" / "node_modules" / ".bin" / "mcp-server-filesystem").exists():
        pytest.skip("run `make install` (npm install in plugins/files) first")
    allowed = cli("plugin", "call", "files", "list_allowed_directories")
    assert allowed.exit_code == 0, allowed.output  # the folder is created on first use
    files = hc_home / "data" / "plugin-data" / "files"
    assert str(files) in allowed.stdout
    (files / "note.txt").write_text("line one\nline two\n")
    result = cli(
        "plugin",
        "call",
        "files",
        "read_text_file",
        "-p",
        f"path={files / 'note.txt'}",
        "-p",
        "head=1",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == "line one\n"
    denied = cli("plugin", "call", "files", "read_text_file", "-p", "path=/etc/hostname")
    assert denied.exit_code == ExitCode.FAILURE
    assert "outside allowed directories" in denied.stderr


def test_capability_named_like_a_tool_calls_it_with_the_parameters(cli: Any) -> None:
    mcp_plugin([cap("add", {"name": "a", "type": "number"}, {"name": "b", "type": "number"})])
    result = cli("plugin", "call", "testmcp", "add", "-p", "a=2", "-p", "b=3.5")
    assert result.exit_code == 0, result.output
    assert result.stdout == "5.5\n"


def test_other_capabilities_go_to_the_designated_tool_with_the_request(cli: Any) -> None:
    mcp_plugin([cap("summarize", {"name": "topic", "type": "string"})])
    result = cli("plugin", "call", "testmcp", "summarize", "-p", "topic=cats", "--input", "tell me")
    assert result.exit_code == 0, result.output
    assert result.stdout == "handled summarize for 'tell me' with {'topic': 'cats'}\n"


def test_content_without_text_parts_is_shown_not_an_empty_answer(cli: Any) -> None:
    mcp_plugin([cap("snapshot")])
    result = cli("plugin", "call", "testmcp", "snapshot")
    assert result.exit_code == 0, result.output
    assert result.stdout == "[image/png image, 8 bytes]\nresource body\n"
    assert "empty answer" not in result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_a_daemon_the_stdio_server_started_ends_with_its_session(cli: Any) -> None:
    mcp_plugin([cap("detach")])
    result = cli("plugin", "call", "testmcp", "detach")
    assert result.exit_code == 0, result.output
    daemon = int(result.stdout)
    if not gone_soon(daemon):
        os.kill(daemon, 9)
        pytest.fail(f"the detached process {daemon} outlived the server's session")


def test_server_exiting_mid_call_is_reported_with_its_stderr(cli: Any) -> None:
    mcp_plugin([cap("die")])
    result = cli("plugin", "call", "testmcp", "die")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "closed the connection (it exited?)" in result.stderr
    assert "fatal: out of cheese" in result.stderr


def test_hanging_tool_times_out(cli: Any) -> None:
    mcp_plugin([cap("hang")], timeout_sec=1)
    result = cli("plugin", "call", "testmcp", "hang")
    assert result.exit_code == ExitCode.FAILURE
    assert "the MCP tool did not answer within 1 s" in result.stderr


def test_server_that_cannot_start(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad_server.py"
    bad.write_text("import sys\nsys.stderr.write('missing API key\\n')\nsys.exit(1)\n")
    mcp_plugin([cap("x")], args=[str(bad)])
    result = cli("plugin", "call", "testmcp", "x")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "missing API key" in result.stderr
    # python is there: the hint points at the server's own complaint, not at installing it
    assert "install `python`" not in result.stderr
    assert "`python` is there, but the server it starts did not answer" in result.stderr


def test_a_server_printing_a_banner_on_stdout_works_without_sdk_tracebacks(
    hc_home: Path, tmp_path: Path
) -> None:
    chatty = tmp_path / "chatty_server.py"
    chatty.write_text(
        f"import runpy\nprint('Welcome to my server!', flush=True)\n"
        f"runpy.run_path({str(SERVER)!r}, run_name='__main__')\n"
    )
    numbers = [{"name": "a", "type": "number"}, {"name": "b", "type": "number"}]
    mcp_plugin([cap("add", *numbers)], args=[str(chatty)])

    def call(*flags: str) -> subprocess.CompletedProcess[str]:
        args = ["plugin", "call", "testmcp", "add", "-p", "a=1", "-p", "b=2"]
        return subprocess.run(
            [sys.executable, "-m", "homeclaw_cli", *flags, *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        )

    done = call()
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3.0\n"
    assert "Traceback" not in done.stderr and "JSONRPC" not in done.stderr
    assert "debug: Failed to parse JSONRPC message from server" in call("--debug").stderr


def test_a_server_that_never_answers_the_handshake_fails_cleanly(
    hc_home: Path, tmp_path: Path
) -> None:
    silent = tmp_path / "silent_server.py"
    silent.write_text("import time\ntime.sleep(120)\n")
    mcp_plugin([cap("x")], args=[str(silent)], timeout_sec=1)  # the handshake gets 15 s
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "homeclaw_cli", "plugin", "call", "testmcp", "x"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert done.returncode == ExitCode.UNAVAILABLE, done.stderr
    assert "did not complete its handshake within 15 s" in done.stderr
    # nothing on its stderr to read: the hint says to run it by hand, not to read the error
    assert f"it printed nothing on stderr: run `python {silent}` in " in done.stderr
    assert "Future exception was never retrieved" not in done.stderr
    assert "Traceback" not in done.stderr
    assert time.monotonic() - started < 24  # the stuck server is stopped at once, not after 10 s


def test_no_matching_tool_and_no_designated_tool(cli: Any) -> None:
    mcp_plugin([cap("nothing")], tool="no_such_tool")
    result = cli("plugin", "call", "testmcp", "nothing")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "has no tool for capability 'nothing' and no `no_such_tool` tool" in result.stderr
    # the server answered: the hint is about mapping its tools, not about its stderr
    assert "did not answer" not in result.stderr
    assert "hint: run `homeclaw plugin mcp-import " in result.stderr
    assert "or map the capability to one of its tools in config.tools" in result.stderr


def test_caller_reuses_one_session_and_restarts_a_dead_server(hc_home: Path) -> None:
    mcp_plugin([cap("pid"), cap("die")])

    async def scenario() -> tuple[str, str, bool, str]:
        async with AppContext(load_settings()).caller as caller:
            first = await caller.call("testmcp", "pid", {})
            second = await caller.call("testmcp", "pid", {})
            died = await caller.call("testmcp", "die", {})
            third = await caller.call("testmcp", "pid", {})
            assert first.result.success and third.result.success
            return first.result.text, second.result.text, died.result.success, third.result.text

    first, second, died_ok, third = asyncio.run(scenario())
    assert first == second
    assert died_ok is False
    assert third != first


def test_a_caller_used_from_a_new_event_loop_reconnects(hc_home: Path) -> None:
    mcp_plugin([cap("pid")])
    caller = AppContext(load_settings()).caller

    async def pid() -> str:
        outcome = await asyncio.wait_for(caller.call("testmcp", "pid", {}), 30)
        assert outcome.result.success, outcome.result.error
        return outcome.result.text

    first = asyncio.run(pid())
    second = asyncio.run(pid())  # the first loop, and the session's worker task, are gone
    asyncio.run(caller.aclose())
    assert first.isdigit()
    assert second.isdigit()


def test_mcp_import_writes_capabilities_that_then_work(cli: Any) -> None:
    folder = mcp_plugin(
        [cap("add", {"name": "a", "type": "number"}, {"name": "b", "type": "number"})]
    )
    result = cli("plugin", "mcp-import", str(folder), "--only", "getTime", "--only", "pid")
    assert result.exit_code == 0, result.output
    manifest = yaml.safe_load((folder / "plugin.yaml").read_text())
    assert sorted(c["id"] for c in manifest["capabilities"]) == ["add", "get-time", "pid"]
    assert manifest["config"]["tools"] == {"get-time": "getTime"}
    assert cli("plugin", "validate", str(folder)).exit_code == 0
    assert cli("plugin", "call", "testmcp", "get-time").stdout == "noon\n"


def test_mcp_import_of_an_unknown_tool_names_the_real_ones(cli: Any) -> None:
    folder = mcp_plugin([])
    result = cli("plugin", "mcp-import", str(folder), "--only", "ad", "--dry-run")
    assert result.exit_code == ExitCode.USAGE
    assert "no tool 'ad' (did you mean `add`?)" in result.stderr


def test_missing_npm_install_says_so(cli: Any, tmp_path: Path) -> None:
    copy = workspace_plugins() / "files"
    shutil.copytree(BUNDLED / "files", copy, ignore=shutil.ignore_patterns("node_modules"))
    result = cli("plugin", "call", "files", "list_allowed_directories")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "command 'mcp-server-filesystem' was not found (run `npm install` in" in result.stderr


@pytest.mark.parametrize(("transport", "path"), [("streamable-http", "/mcp"), ("sse", "/sse")])
def test_url_transports(cli: Any, transport: str, path: str) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(SERVER), transport, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_listening(port, server)
        write_plugin(
            workspace_plugins(),
            {
                "id": "remote",
                "name": "Remote",
                "description": "An MCP server over HTTP.",
                "type": "mcp",
                "config": {"transport": transport, "url": f"http://127.0.0.1:{port}{path}"},
                "capabilities": [
                    cap("add", {"name": "a", "type": "number"}, {"name": "b", "type": "number"})
                ],
            },
        )
        result = cli("plugin", "call", "remote", "add", "-p", "a=1", "-p", "b=2")
        assert result.exit_code == 0, result.output
        assert result.stdout == "3.0\n"
    finally:
        server.kill()
        server.wait()
    down = cli("plugin", "call", "remote", "add", "-p", "a=1", "-p", "b=2")
    assert down.exit_code == ExitCode.UNAVAILABLE
    assert f"MCP server at http://127.0.0.1:{port}{path}" in down.stderr


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert process.poll() is None, "the MCP test server exited"
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("the MCP test server did not start listening")


def test_a_hanging_call_does_not_hold_up_other_calls_to_the_same_server(hc_home: Path) -> None:
    mcp_plugin([cap("hang"), cap("pid")], timeout_sec=20)

    async def scenario() -> tuple[float, bool]:
        async with AppContext(load_settings()).caller as caller:
            await caller.call("testmcp", "pid", {})  # the server is up
            hanging = asyncio.create_task(caller.call("testmcp", "hang", {}))
            started = time.monotonic()
            quick = await caller.call("testmcp", "pid", {})
            elapsed = time.monotonic() - started
            hanging.cancel()
            return elapsed, quick.result.success

    elapsed, ok = asyncio.run(scenario())
    assert ok
    assert elapsed < 5
