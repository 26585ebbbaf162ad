"""Ctrl-C in the REPL (SIGINT to this process, where a terminal would send it) during a skill
script and during a slash command: cancelled, no process left, and the session goes on."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

from homeclaw_cli.settings import Settings
from homeclaw_cli.state.conversations import log_path, read_turns
from tests.fakes.ollama_server import FakeOllama, Reply, text, tool_call
from tests.fakes.slow_tools import kill_leftovers, napping_skill, none_alive, wait_for_pids
from tests.surfaces.repl.test_chat_repl import drive, fake, fast_retrieval, settings

__all__ = ["fake", "fast_retrieval", "settings"]


def interrupt_when_written(pid_file: Path, pids: list[int]) -> threading.Thread:
    def press_ctrl_c() -> None:
        pids.extend(wait_for_pids(pid_file))
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=press_ctrl_c, daemon=True)
    thread.start()
    return thread


def test_ctrl_c_during_a_skill_script_kills_it_and_logs_the_turn(
    settings: Settings, fake: FakeOllama, tmp_path: Path
) -> None:
    napping_skill(tmp_path / "skills")
    with_skill = settings.model_copy(update={"extra_skill_dirs": [tmp_path / "skills"]}, deep=True)
    with_skill.skills.script_allowlist = ["nap"]
    pid_file = tmp_path / "nap.pids"
    call = {"skill_name": "nap", "script": "nap.py", "args": [str(pid_file)]}
    fake.script(tool_call("run_skill", call), text("second answer"))
    pids: list[int] = []
    pressed = interrupt_when_written(pid_file, pids)
    try:
        out = drive(with_skill, "take a nap with the nap script\nand now?\n/exit\n")
    finally:
        pressed.join(5)
        kill_leftovers(pids)
    assert out.count("cancelled") == 1 and "second answer" in out
    assert "Traceback" not in out and "internal error" not in out
    assert pids and none_alive(pids, timeout=0.5)  # dead before the prompt came back
    turns = read_turns(log_path(with_skill.state_dir))
    assert [(t["message"], t["status"]) for t in turns] == [
        ("take a nap with the nap script", "cancelled"),
        ("and now?", "ok"),
    ]
    # the cancelled turn did not join the history: the next one starts afresh
    roles = [m["role"] for m in fake.chat_requests[-1]["messages"]]
    assert roles == ["system", "user"]


def test_ctrl_c_during_a_slash_command_returns_to_the_prompt(
    settings: Settings, fake: FakeOllama, monkeypatch: Any
) -> None:
    from homeclaw_cli.surfaces.repl.chat_repl import Repl

    release = threading.Event()

    async def slow_reload(self: Repl, _: str) -> None:
        import asyncio

        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.to_thread(release.wait, 10)

    monkeypatch.setattr(Repl, "_reload", slow_reload)

    def answer(body: dict[str, Any]) -> Reply:
        release.set()
        return text("still here")

    fake.script(answer)
    out = drive(settings, "/reload\nhello\n/exit\n")
    release.set()
    assert "cancelled" in out and "still here" in out
