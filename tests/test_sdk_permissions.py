"""The inline SDK's helpers reach only what the plugin was granted."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.permissions import PermissionDenied
from homeclaw_cli.sdk import BasePlugin


def plugin(tmp_path: Path, **perms: object) -> BasePlugin:
    folder = tmp_path / "plug"
    folder.mkdir(exist_ok=True)
    return BasePlugin(
        plugin_id="p",
        folder=folder,
        data_dir=tmp_path / "data",
        permissions=Permissions.model_validate(perms),
    )


def test_files_only_in_granted_folders_and_data_dir(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("A")
    (tmp_path / "secret.txt").write_text("S")
    p = plugin(tmp_path, filesystem=[str(notes)])
    assert p.read_text(notes / "a.txt") == "A"
    assert p.write_text("cache.json", "{}") == (p.data_dir / "cache.json").resolve()
    assert p.read_text("cache.json") == "{}"
    with pytest.raises(PermissionDenied, match="outside the granted folders"):
        p.read_text(tmp_path / "secret.txt")
    with pytest.raises(PermissionDenied):
        p.write_text("../../secret.txt", "x")
    (notes / "link").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(PermissionDenied):
        p.read_text(notes / "link")
    with pytest.raises(PermissionDenied):  # its own folder is readable, not writable
        p.write_text(p.folder / "plugin.py", "x")


def test_no_grant_means_no_outside_files(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("x")
    with pytest.raises(PermissionDenied):
        plugin(tmp_path).read_text(tmp_path / "x")


def test_getenv_only_granted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HC_TEST_KEY", "k")
    monkeypatch.setenv("HC_TEST_OTHER", "o")
    p = plugin(tmp_path, env_vars=["HC_TEST_KEY", "HC_TEST_UNSET"])
    assert p.getenv("HC_TEST_KEY") == "k"
    assert p.getenv("HC_TEST_UNSET", "dflt") == "dflt"
    with pytest.raises(PermissionDenied):
        p.getenv("HC_TEST_OTHER")


@pytest.fixture
def servers() -> Iterator[tuple[int, int]]:
    """Two local servers; the first redirects /away to the second."""
    started: list[ThreadingHTTPServer] = []

    def make(redirect_to: list[int]) -> ThreadingHTTPServer:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/away" and redirect_to:
                    self.send_response(302)
                    self.send_header("Location", f"http://127.0.0.1:{redirect_to[0]}/")
                    self.end_headers()
                    return
                body = b"hello"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    target: list[int] = []
    first = make(target)
    second = make([])
    target.append(second.server_port)
    yield first.server_port, second.server_port
    for server in started:
        server.shutdown()
        server.server_close()


def test_fetch_reaches_only_granted_hosts_redirects_included(
    tmp_path: Path, servers: tuple[int, int]
) -> None:
    allowed, other = servers
    p = plugin(tmp_path, network=[f"127.0.0.1:{allowed}"])
    assert p.fetch(f"http://127.0.0.1:{allowed}/").text == "hello"
    with pytest.raises(PermissionDenied, match="may not reach"):
        p.fetch(f"http://127.0.0.1:{other}/")
    with pytest.raises(PermissionDenied):
        p.fetch(f"http://127.0.0.1:{allowed}/away")  # redirect to the other port
    assert asyncio.run(p.afetch(f"http://127.0.0.1:{allowed}/")).text == "hello"
    with pytest.raises(PermissionDenied):
        asyncio.run(p.afetch(f"http://127.0.0.1:{allowed}/away"))


def test_run_command_needs_shell_and_gets_only_granted_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HC_SECRET", "s")
    monkeypatch.setenv("HC_GRANTED", "g")
    with pytest.raises(PermissionDenied, match="shell"):
        plugin(tmp_path).run_command([sys.executable, "-c", "pass"])
    p = plugin(tmp_path, shell=True, env_vars=["HC_GRANTED"])
    code = "import os; print(os.environ.get('HC_SECRET'), os.environ.get('HC_GRANTED'))"
    done = p.run_command([sys.executable, "-c", code])
    assert done.stdout.split() == ["None", "g"]
