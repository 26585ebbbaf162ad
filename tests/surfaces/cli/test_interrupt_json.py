"""Ctrl-C in any command under --json: the envelope still comes out, with the interruption
as its error (exit 130), so a script reading stdout gets JSON and not nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.fakes.slow_tools import kill_leftovers, none_alive, sleepy_plugin, wait_for_pids
from tests.json_output import envelope


def test_ctrl_c_in_plugin_call_json_writes_the_envelope(hc_home: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "sleepy.pids"
    sleepy_plugin(Path.cwd() / "plugins", pid_file)
    proc = subprocess.Popen(
        [sys.executable, "-m", "homeclaw_cli", "plugin", "call", "sleepy", "go", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "HOMECLAW_NO_BUNDLED": "1"},
    )
    pids: list[int] = []
    try:
        pids = wait_for_pids(pid_file)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        kill_leftovers(pids)
    assert proc.returncode == 130, stderr
    document = envelope(stdout)
    assert document["ok"] is False and document["command"] == "plugin call"
    assert document["error"]["exit_code"] == 130 and document["error"]["kind"] == "interrupt"
    assert stderr.strip().splitlines()[-1] == "interrupted"
    assert none_alive(pids)
