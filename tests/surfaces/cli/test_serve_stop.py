"""Ctrl-C is how a server is stopped: `serve` and `mcp serve` (either transport) both end with
exit 0 and "stopped", not 130 (interrupted)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.processes import LineProcess, child_env


@pytest.mark.parametrize(
    ("args", "banner"),
    [
        (("serve", "--port", "0"), r"serving on http://"),
        (("mcp", "serve", "-t", "http", "--port", "0"), r"MCP server on http://"),
    ],
)
def test_ctrl_c_stops_an_http_server_with_exit_0(
    hc_home: Path, args: tuple[str, ...], banner: str
) -> None:
    proc = LineProcess(
        [sys.executable, "-m", "homeclaw_cli", *args], env=child_env({"HOMECLAW_NO_BUNDLED": "1"})
    )
    try:
        proc.wait_for(banner)
        proc.proc.send_signal(signal.SIGINT)
        proc.wait_for(r"^stopped$")
        assert proc.proc.wait(timeout=10) == 0
    finally:
        proc.kill()


def test_ctrl_c_stops_the_stdio_mcp_server_with_exit_0(hc_home: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "homeclaw_cli", "mcp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env({"HOMECLAW_NO_BUNDLED": "1"}),
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
        proc.stdin.write(json.dumps(initialize).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # it serves
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=10)
        assert proc.returncode == 0, stderr
        assert stderr.decode().strip().endswith("stopped")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
