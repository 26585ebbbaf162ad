"""Ctrl-C during a chat turn, in real processes: the turn stops, its processes die, it is
logged as cancelled, and nothing but one `cancelled` line is printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama, fake_ollama, text, tool_call
from tests.fakes.slow_tools import (
    interrupt_once_running,
    kill_leftovers,
    napping_skill,
    none_alive,
    sleepy_plugin,
    wait_for_pids,
)
from tests.json_output import envelope, payload
from tests.surfaces.cli.test_chat_repl_pty import start_repl, stop

__all__ = ["fake_ollama"]

# The index is never built: retrieval falls back to keyword matching over what is installed.
KEYWORD_ENV = {
    "HOMECLAW_NO_BUNDLED": "1",
    "HOMECLAW_PLUGINS__REFRESH_ON_STARTUP": "false",
    "HOMECLAW_SKILLS__REFRESH_ON_STARTUP": "false",
    "HOMECLAW_SKILLS__SCRIPT_ALLOWLIST": "[nap]",
}
NOISE = ("Traceback", "Unhandled exception", "never retrieved", "was destroyed")


def slow_tool(kind: str, tmp_path: Path, fake: FakeOllama) -> tuple[Path, dict[str, str]]:
    """Install the hanging plugin or skill and script the model to call it."""
    pid_file = tmp_path / f"{kind}.pids"
    env = dict(KEYWORD_ENV)
    if kind == "plugin":
        sleepy_plugin(Path.cwd() / "plugins", pid_file)
        fake.script(tool_call("sleepy__go"), text("second answer"))
    else:
        napping_skill(tmp_path / "skills")
        env["HOMECLAW_SKILLS_PATH"] = str(tmp_path / "skills")
        call = {"skill_name": "nap", "script": "nap.py", "args": [str(pid_file)]}
        fake.script(tool_call("run_skill", call), text("second answer"))
    return pid_file, env


def logged(run_cli: Callable[..., Any]) -> list[dict[str, Any]]:
    result = run_cli("logs", "--json")
    assert result.returncode == 0, result.stderr
    turns: list[dict[str, Any]] = payload(result)
    return turns


@pytest.mark.parametrize("kind", ["plugin", "skill"])
def test_ctrl_c_in_chat_q_exits_130_and_leaves_no_process(
    kind: str,
    hc_home: Path,
    fake_ollama: FakeOllama,
    tmp_path: Path,
    run_cli: Callable[..., Any],
) -> None:
    fake_ollama.add_model("llama3.2")
    pid_file, env = slow_tool(kind, tmp_path, fake_ollama)
    question = "take a nap and sleep a while"
    argv = ["chat", "--host", fake_ollama.host, "-q", question]
    code, stdout, stderr, pids = interrupt_once_running(argv, pid_file, env)
    assert code == 130, stderr
    # Warnings come before the turn's calls (here: no index, so keyword retrieval).
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines[-1] == "cancelled", stderr
    assert all(line.startswith("warning: retrieval fell back") for line in lines[:-1]), stderr
    assert not any(noise in stderr + stdout for noise in NOISE)
    assert none_alive(pids)
    [turn] = logged(run_cli)
    assert turn["status"] == "cancelled" and turn["message"] == question


def test_ctrl_c_in_chat_q_json_puts_the_interruption_in_the_envelope(
    hc_home: Path, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.add_model("llama3.2")
    pid_file, env = slow_tool("plugin", tmp_path, fake_ollama)
    argv = ["chat", "--host", fake_ollama.host, "--json", "-q", "take a nap and sleep a while"]
    code, stdout, stderr, _ = interrupt_once_running(argv, pid_file, env)
    assert code == 130, stderr
    document = envelope(stdout)
    assert document["ok"] is False and document["data"] is None
    assert document["error"]["exit_code"] == 130 and document["error"]["kind"] == "interrupt"
    assert "cancelled" in document["error"]["message"]


def test_ctrl_c_in_the_repl_during_a_plugin_keeps_the_session(
    hc_home: Path, fake_ollama: FakeOllama, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    fake_ollama.add_model("llama3.2")
    pid_file, env = slow_tool("plugin", tmp_path, fake_ollama)
    proc, term = start_repl(fake_ollama.host, env)
    pids: list[int] = []
    try:
        term.expect(b"you>")
        term.send(b"take a nap and sleep a while\r")
        pids = wait_for_pids(pid_file)
        term.send(b"\x03")
        term.expect(b"cancelled")
        term.expect(b"you>")
        term.send(b"and now?\r")
        term.expect(b"second answer")
        term.expect(b"you>")
        term.send(b"\x04")
        term.expect(b"bye")
        assert proc.wait(timeout=30) == 0
    finally:
        kill_leftovers(pids)
        stop(proc, term)
    seen = bytes(term.seen).decode(errors="replace")
    assert not any(noise in seen for noise in NOISE), seen
    assert seen.count("cancelled") == 1
    assert none_alive(pids)
    assert [t["status"] for t in logged(run_cli)] == ["cancelled", "ok"]
