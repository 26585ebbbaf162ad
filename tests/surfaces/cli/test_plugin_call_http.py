"""`homeclaw plugin call` on http plugins: the bundled to-do server and failing servers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from homeclaw_cli.errors import ExitCode
from tests.json_output import payload
from tests.plugin_factory import BUNDLED, free_port, todo_server, workspace_plugins, write_plugin

Reply = tuple[int, str]


def http_plugin(
    plugin_id: str, base_url: str, capabilities: list[dict[str, Any]], **config: Any
) -> Path:
    manifest = {
        "id": plugin_id,
        "name": plugin_id,
        "description": "A test plugin.",
        "type": "http",
        "config": {"base_url": base_url, "timeout_sec": 5, **config},
        "capabilities": capabilities,
    }
    return write_plugin(workspace_plugins(), manifest)


@pytest.fixture
def todo(tmp_path: Path) -> Iterator[str]:
    """The bundled to-do plugin, its manifest pointed at a server on a free port."""
    with todo_server(tmp_path / "todo.json") as url:
        manifest = yaml.safe_load((BUNDLED / "todo" / "plugin.yaml").read_text())
        manifest["config"]["base_url"] = url
        del manifest["config"][
            "start"
        ]  # a server run by hand (the managed one: test_managed_server)
        manifest["health_check_url"] = url + "/health"
        write_plugin(workspace_plugins(), manifest)
        yield url


def test_rest_capabilities_send_query_and_json_body(cli: Any, todo: str) -> None:
    added = cli("plugin", "call", "todo", "add-todo", "-p", "text=buy milk")
    assert added.exit_code == 0, added.output
    assert added.stdout == "Added task 1: buy milk\n"
    cli("plugin", "call", "todo", "add-todo", "-p", "text=call mum")
    done = cli("plugin", "call", "todo", "complete-todo", "-p", "id=1")
    assert done.stdout == "Done: buy milk\n"
    assert cli("plugin", "call", "todo", "list-todos").stdout == "2. [ ] call mum\n"
    everything = cli("plugin", "call", "todo", "list-todos", "-p", "status=all")
    assert everything.stdout == "1. [x] buy milk\n2. [ ] call mum\n"


def test_plugin_request_is_posted_to_the_run_path(cli: Any, todo: str) -> None:
    cli("plugin", "call", "todo", "add-todo", "-p", "text=water plants")
    outcome = payload(cli("plugin", "call", "todo", "summary", "--json"))
    assert outcome["result"]["text"] == "1 open, 0 done. Next: water plants."
    assert outcome["post_process"] is True


def test_error_status_reports_the_body_error(cli: Any, todo: str) -> None:
    result = cli("plugin", "call", "todo", "complete-todo", "-p", "id=42")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin todo: POST " in result.stderr
    assert "/todos/done -> 404: there is no task 42" in result.stderr


def test_server_down_says_not_running(cli: Any) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    http_plugin("offline", url, [])
    result = cli("plugin", "call", "offline", "--input", "hi")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert f"plugin offline is not running at {url} (connection refused)" in result.stderr
    assert "homeclaw plugin health offline" in result.stderr
    assert "start its server (`homeclaw plugin show offline`" in result.stderr


def test_unknown_host_says_it_cannot_be_resolved(cli: Any) -> None:
    http_plugin("nowhere", "http://no-such-host.invalid", [])
    result = cli("plugin", "call", "nowhere", "--input", "hi")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "plugin nowhere: cannot resolve host no-such-host.invalid: check base_url" in (
        result.stderr
    )
    assert "connection refused" not in result.stderr
    assert "start its server" not in result.stderr
    assert "fix the host in config.base_url" in result.stderr
    assert "homeclaw plugin health nowhere" in result.stderr


def test_tls_to_a_plain_http_server_names_the_handshake(cli: Any, tmp_path: Path) -> None:
    with todo_server(tmp_path / "todo.json") as url:
        http_plugin("tls", url.replace("http://", "https://"), [])
        result = cli("plugin", "call", "tls", "--input", "hi")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "plugin tls: TLS handshake with 127.0.0.1 failed: " in result.stderr
    assert "connection refused" not in result.stderr
    assert "use http:// in config.base_url" in result.stderr


@pytest.fixture
def fake_server() -> Iterator[Callable[[dict[str, Reply]], str]]:
    """A local HTTP server answering each path with a fixed (status, body), or hanging."""
    release = threading.Event()
    servers: list[ThreadingHTTPServer] = []

    def start(routes: dict[str, Reply]) -> str:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, body = routes[self.path]
                if status == 0:  # hang until the test ends
                    release.wait()
                    return
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        servers.append(server)
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    release.set()
    for server in servers:
        server.shutdown()
        server.server_close()


def test_garbage_body_is_bad_output(cli: Any, fake_server: Any) -> None:
    http_plugin("junk", fake_server({"/run": (200, "<html>oops</html>")}), [])
    result = cli("plugin", "call", "junk")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin junk answered '<html>oops</html>'" in result.stderr
    assert "which is not JSON" in result.stderr


def test_an_answer_without_text_is_shown_as_json_with_a_warning(cli: Any, fake_server: Any) -> None:
    body = '{"success": true, "content": "It is 21 C in Paris."}'
    http_plugin("wx", fake_server({"/run": (200, body)}), [])
    result = cli("plugin", "call", "wx")
    assert result.exit_code == 0, result.output
    assert '"content": "It is 21 C in Paris."' in result.stdout
    assert (
        "warning: plugin wx answered without `text`, with keys a PluginResult does not have "
        "(content), so the whole answer is shown as JSON"
    ) in result.stderr
    envelope = json.loads(cli("plugin", "call", "wx", "--json").stdout)
    assert "It is 21 C" in envelope["data"]["result"]["text"]
    assert envelope["warnings"] == envelope["data"]["warnings"] != []
    http_plugin("mute", fake_server({"/run": (200, '{"success": true}')}), [])
    mute = cli("plugin", "call", "mute")
    assert mute.exit_code == 0
    assert "plugin mute answered success without `text`" in mute.stderr
    assert "empty answer" not in mute.stderr  # one warning is enough


def test_an_empty_text_is_named_not_shown_as_a_blank_answer(cli: Any, fake_server: Any) -> None:
    http_plugin("blank", fake_server({"/run": (200, '{"success": true, "text": ""}')}), [])
    result = cli("plugin", "call", "blank")
    assert result.exit_code == 0, result.output
    said = "plugin blank returned an empty answer: its `text` is empty, there is nothing to show"
    assert f"warning: {said}" in result.stderr
    envelope = json.loads(cli("plugin", "call", "blank", "--json").stdout)
    assert envelope["ok"] and envelope["warnings"] == [said]


def test_server_error_quotes_a_text_body(cli: Any, fake_server: Any) -> None:
    http_plugin("oops", fake_server({"/run": (500, "database is locked")}), [])
    result = cli("plugin", "call", "oops", "--json")
    assert result.exit_code == ExitCode.FAILURE
    outcome = payload(result)
    assert outcome["failure"] == "crash"
    assert outcome["result"]["error"].endswith("-> 500: 'database is locked'")


def test_slow_server_times_out(cli: Any, fake_server: Any) -> None:
    http_plugin("slow", fake_server({"/run": (0, "")}), [], timeout_sec=0.5)
    started = time.monotonic()
    result = cli("plugin", "call", "slow")
    assert time.monotonic() - started < 5
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin slow did not answer within 0.5 s (POST " in result.stderr


def test_huge_body_is_refused(cli: Any, fake_server: Any) -> None:
    http_plugin("big", fake_server({"/run": (200, "x" * (2 * 1024 * 1024))}), [])
    result = cli("plugin", "call", "big")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin big sent more than 1024 KiB" in result.stderr
