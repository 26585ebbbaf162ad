"""Ctrl-C in any command under --json: the envelope still comes out, with the interruption
as its error (exit 130), so a script reading stdout gets JSON and not nothing."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.slow_tools import interrupt_once_running, none_alive, sleepy_plugin
from tests.json_output import envelope


def test_ctrl_c_in_plugin_call_json_writes_the_envelope(hc_home: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "sleepy.pids"
    sleepy_plugin(Path.cwd() / "plugins", pid_file)
    argv = ["plugin", "call", "sleepy", "go", "--json"]
    code, stdout, stderr, pids = interrupt_once_running(
        argv, pid_file, {"HOMECLAW_NO_BUNDLED": "1"}
    )
    assert code == 130, stderr
    document = envelope(stdout)
    assert document["ok"] is False and document["command"] == "plugin call"
    assert document["error"]["exit_code"] == 130 and document["error"]["kind"] == "interrupt"
    assert stderr.strip().splitlines()[-1] == "interrupted"
    assert none_alive(pids)
