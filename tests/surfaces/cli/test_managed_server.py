"""Managed plugin servers (`config.start`): the bundled to-do plugin works on a fresh machine.

homeclaw starts the server on first use, waits until it is ready, stops it when the command
ends (no orphan), and `plugin health` / `doctor` report it without warning about a server
that is simply not started yet. Each test runs a copy of the bundled plugin on a free port.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.errors import ExitCode
from homeclaw_cli.settings import load_settings
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.json_output import payload
from tests.plugin_factory import BUNDLED, free_port, workspace_plugins, write_plugin


def answers(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def todo(hc_home: Path) -> int:
    """The bundled to-do plugin, managed, on a free port; returns the port."""
    port = free_port()
    folder = workspace_plugins() / "todo"
    folder.mkdir()
    manifest = (BUNDLED / "todo" / "plugin.yaml").read_text().replace("3107", str(port))
    (folder / "plugin.yaml").write_text(manifest)
    (folder / "server.py").write_text((BUNDLED / "todo" / "server.py").read_text())
    return port


def record(hc_home: Path) -> Path:
    return hc_home / "data" / "state" / "servers" / "todo.json"


def test_plugin_call_starts_the_server_and_stops_it_on_exit(
    cli: Callable[..., Any], todo: int, hc_home: Path
) -> None:
    assert not answers(todo)
    added = cli("plugin", "call", "todo", "add-todo", "-p", "text=buy milk")
    assert added.exit_code == 0, added.output
    assert added.stdout == "Added task 1: buy milk\n"
    assert not answers(todo) and not record(hc_home).exists()  # stopped with the command
    listed = cli("plugin", "call", "todo", "list-todos")
    assert listed.stdout == "1. [ ] buy milk\n"  # its data lives under HOMECLAW_HOME
    assert (hc_home / "data" / "plugin-data" / "todo" / "todos.json").is_file()
    log = (hc_home / "data" / "logs" / "todo.log").read_text()
    assert log.count("homeclaw starts:") == 2 and f"listening on http://127.0.0.1:{todo}" in log
    assert not answers(todo)


def test_the_readme_chat_example_works_and_leaves_nothing_running(
    cli: Callable[..., Any], todo: int, fake_models: object
) -> None:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        fake.script(tool_call("todo__list-todos", {}))
        result = cli(
            "chat",
            "--host",
            fake.host,
            "--json",
            input="what's on my todo list\n",
            env={"HOMECLAW_NO_BUNDLED": "1"},
        )
    assert result.exit_code == 0, result.output
    assert payload(result)["answer"] == "No open tasks."
    assert not answers(todo)


def test_not_started_is_healthy_and_lists_do_not_warn(cli: Callable[..., Any], todo: int) -> None:
    health = cli("plugin", "health", "todo", "--json")
    assert health.exit_code == 0, health.output
    (report,) = payload(health)
    assert report["ok"] and report["detail"].startswith("managed: not started")
    listed = cli("plugin", "list")
    assert listed.exit_code == 0 and "todo" in listed.stdout and listed.stderr == ""
    assert not answers(todo)  # a health check does not start it


def doctor_check(cli: Callable[..., Any], name: str) -> dict[str, Any]:
    result = cli("doctor", "--json", env={"HOMECLAW_NO_BUNDLED": "1"})
    checks = payload(result)["checks"] if isinstance(payload(result), dict) else payload(result)
    return next(c for c in checks if c["name"] == name)


def test_a_running_server_is_reported_with_its_pid(
    cli: Callable[..., Any], todo: int, hc_home: Path
) -> None:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.runtime.runners.base import RunTarget

    context = AppContext(load_settings())
    entry = context.registry.get("todo")
    start = entry.manifest.managed_start()
    assert start is not None
    target = RunTarget(
        entry.manifest, entry.manifest.capabilities[0], entry.folder, context.settings.data_dir
    )
    servers = context.caller.servers
    asyncio.run(servers.ensure(target, start))
    try:
        pid = servers.running()["todo"]
        health = cli("plugin", "health", "todo")
        assert health.exit_code == 0
        assert f"managed: running (pid {pid})" in health.stdout
        check = doctor_check(cli, "plugin todo")
        assert check["status"] == "ok"
        assert check["detail"].startswith(f"managed: running (pid {pid}); GET ")
    finally:
        servers.stop_all()
    assert not answers(todo)
    assert doctor_check(cli, "plugin todo")["detail"].startswith("managed: not started")


def managed(start: dict[str, Any]) -> Path:
    port = free_port()
    manifest = {
        "id": "flaky",
        "name": "Flaky",
        "description": "A server that does not come up.",
        "type": "http",
        "config": {
            "base_url": f"http://127.0.0.1:{port}",
            "start": {"command": "python", "ready": f"http://127.0.0.1:{port}/health", **start},
        },
        "capabilities": [
            {
                "id": "ping",
                "name": "Ping",
                "description": "Ping.",
                "method": "GET",
                "path": "/ping",
                "effects": "read",
            }
        ],
    }
    return write_plugin(workspace_plugins(), manifest)


def test_a_server_that_exits_is_one_clear_error_with_its_log(
    cli: Callable[..., Any], hc_home: Path
) -> None:
    managed({"args": ["-c", "import sys; print('port 3107 is taken'); sys.exit(3)"]})
    result = cli("plugin", "call", "flaky", "ping")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "plugin flaky: its server exited with code 3" in result.stderr
    assert "port 3107 is taken" in result.stderr  # the log's tail
    assert str(hc_home / "data" / "logs" / "flaky.log") in result.stderr
    hint = " ".join(result.stderr.split())
    assert "hint: homeclaw starts its server (config.start in" in hint  # not "start its server"
    assert f"its log, {hc_home / 'data' / 'logs' / 'flaky.log'}, says why" in hint
    assert "start its server (`homeclaw plugin show" not in hint
    health = cli("plugin", "health", "flaky")
    assert health.exit_code == ExitCode.UNAVAILABLE
    assert "managed: failed: plugin flaky: its server exited with code 3" in health.stdout
    check = doctor_check(cli, "plugin flaky")
    assert check["status"] == "fail" and "flaky.log" in check["fix"]


def test_the_log_tail_of_a_failed_start_is_this_starts_output_only(
    cli: Callable[..., Any], hc_home: Path
) -> None:
    managed({"args": ["-c", "import sys; print('port 3107 is taken'); sys.exit(3)"]})
    log = hc_home / "data" / "logs" / "flaky.log"
    log.parent.mkdir(parents=True)
    log.write_text(
        "--- 2026-01-01T00:00:00 homeclaw starts: python old.py\nold run: API_KEY unset\n"
    )
    result = cli("plugin", "call", "flaky", "ping")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "port 3107 is taken" in result.stderr
    assert "API_KEY" not in result.stderr and "old.py" not in result.stderr


def test_a_server_that_never_gets_ready_is_stopped_after_timeout_s(
    cli: Callable[..., Any],
) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    code = f"import time  # {marker}\nprint('warming up', flush=True)\ntime.sleep(60)"
    managed({"args": ["-c", code], "timeout_s": 1})
    result = cli("plugin", "call", "flaky", "ping")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "did not answer http://127.0.0.1:" in result.stderr and "within 1 s" in result.stderr
    assert "warming up" in result.stderr
    assert not processes_with(marker)


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_validate_checks_the_start_command_and_the_ready_url(
    cli: Callable[..., Any],
) -> None:
    remote = managed({"ready": "http://example.com:3107/health"})
    result = cli("plugin", "validate", str(remote))
    assert result.exit_code == 1
    assert "config.start.ready" in result.stdout and "not on this machine" in result.stdout
    missing = managed({"command": "no-such-server-binary"})
    result = cli("plugin", "validate", str(missing), "--strict")
    assert result.exit_code == 1
    assert "start command 'no-such-server-binary' is not on PATH" in result.stdout


def test_show_prints_the_start_command(cli: Callable[..., Any], todo: int) -> None:
    shown = cli("plugin", "show", "todo")
    assert f"managed server: homeclaw runs `python {{plugin_dir}}/server.py --port {todo}" in (
        shown.stdout.replace("\n", " ")
    )


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_chat_leaves_no_server_behind(todo: int, hc_home: Path, signum: int) -> None:
    """SIGTERM: homeclaw stops its servers, then dies of the signal; SIGKILL (nothing runs in
    homeclaw): the kernel tells the server its parent died (Linux)."""
    import subprocess
    import sys
    import threading

    from tests.conftest import REPO_ROOT

    reached, release = threading.Event(), threading.Event()

    def hold(body: dict[str, Any]) -> Any:  # the post-processing request: homeclaw waits here
        reached.set()
        release.wait(30)
        return text("late")

    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        fake.script(tool_call("todo__summary", {}), hold)
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HOMECLAW_NO_BUNDLED": "1"}
        # no index: the chat routes by keyword (no embedding model in this process)
        env["HOMECLAW_PLUGINS__REFRESH_ON_STARTUP"] = "false"
        env["HOMECLAW_SKILLS__REFRESH_ON_STARTUP"] = "false"
        with subprocess.Popen(
            [
                sys.executable,
                "-m",
                "homeclaw_cli",
                "chat",
                "--host",
                fake.host,
                "-q",
                "summarize my todo list",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        ) as chat:
            try:
                assert reached.wait(60), chat.communicate()[1]
                assert answers(todo)  # started by the chat, which now waits for the model
                chat.send_signal(signum)
                assert chat.wait(15) == -signum
            finally:
                release.set()
                if chat.poll() is None:
                    chat.kill()
    deadline = 50
    while answers(todo) and deadline:
        deadline -= 1
        threading.Event().wait(0.1)
    assert not answers(todo)


@pytest.mark.slow
def test_a_managed_mcp_server_over_streamable_http(cli: Callable[..., Any], hc_home: Path) -> None:
    from tests.plugin_factory import REPO_ROOT

    port = free_port()
    manifest = {
        "id": "webmcp",
        "name": "Web MCP",
        "description": "An MCP server over HTTP that homeclaw runs.",
        "type": "mcp",
        "config": {
            "transport": "streamable-http",
            "url": f"http://127.0.0.1:{port}/mcp",
            "timeout_sec": 20,
            "start": {
                "command": "python",
                "args": [
                    str(REPO_ROOT / "tests/fakes/mcp_test_server.py"),
                    "streamable-http",
                    str(port),
                ],
                "env": {"PYTHONPATH": str(REPO_ROOT)},
                "ready": f"http://127.0.0.1:{port}/mcp",  # answers a plain GET with 400: up
                "timeout_s": 60,
            },
        },
        "capabilities": [
            {
                "id": "add",
                "name": "Add",
                "description": "Add two numbers.",
                "effects": "read",
                "parameters": [{"name": "a", "type": "number"}, {"name": "b", "type": "number"}],
            }
        ],
    }
    write_plugin(workspace_plugins(), manifest)
    result = cli("plugin", "call", "webmcp", "add", "-p", "a=2", "-p", "b=3")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "5.0"
    assert not answers(port)
    stdio = {**manifest["config"], "transport": "stdio", "command": "python"}
    write_plugin(workspace_plugins(), {**manifest, "config": stdio})
    refused = cli("plugin", "validate", str(workspace_plugins() / "webmcp"))
    assert refused.exit_code == 1 and "`start` is for sse / streamable-http" in refused.stdout


def test_a_server_someone_else_started_is_running_for_doctor_and_health(
    cli: Callable[..., Any], todo: int
) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Elsewhere(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", todo), Elsewhere)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        health = cli("plugin", "health", "todo", "--json")
        (report,) = payload(health)
        check = doctor_check(cli, "plugin todo")
    finally:
        server.shutdown()
        server.server_close()
    assert report["detail"].startswith("managed: running (not started by homeclaw)")
    assert check["status"] == "ok" and check["detail"] == report["detail"]
