"""The REPL's spinner: on a terminal it says what the turn waits for and for how long; off a
terminal nothing of it is printed."""

from __future__ import annotations

import asyncio
import io
import re
import time
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from homeclaw_cli.settings import Settings
from homeclaw_cli.surfaces.repl.chat_repl import Repl
from tests.fakes.ollama_server import FakeOllama, Reply, text, tool_call
from tests.surfaces.repl.test_chat_repl import drive, fake, fast_retrieval, settings

__all__ = ["fake", "fast_retrieval", "settings"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def after(seconds: float, reply: Reply) -> Any:
    def slow(body: dict[str, Any]) -> Reply:
        time.sleep(seconds)
        return reply

    return slow


def on_terminal(settings: Settings, keys: str) -> list[str]:
    """The REPL on a console that says it is a terminal; the screen's lines, \\r-separated."""
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(settings, pt_input=pipe, pt_output=DummyOutput(), console=console, watch=False)
        asyncio.run(repl.run())
    raw = console.file.getvalue()  # type: ignore[attr-defined]
    return [part.strip() for part in re.split(r"[\r\n]", ANSI.sub("", raw)) if part.strip()]


@pytest.mark.slow  # a model reply that takes over a second, to see the seconds count
def test_spinner_shows_thinking_and_the_tool_with_elapsed_seconds(
    settings: Settings, fake: FakeOllama
) -> None:
    fake.script(after(1.1, tool_call("greeter__story", {"name": "Bo"})), text("Bo met a cat!"))
    frames = on_terminal(settings, "tell me a greet story about Bo\n/exit\n")
    labels = [re.sub(r"^\W+", "", f) for f in frames if re.search(r" \d+s$", f)]
    assert "thinking 0s" in labels and "thinking 1s" in labels
    assert any(label.startswith("running greeter__story ") for label in labels)
    # the answer comes after the last frame, whole
    answer = frames.index("Bo met a cat!")
    assert all(not re.search(r"(thinking|running) \d+s$", f) for f in frames[answer:])


def test_no_spinner_off_a_terminal(settings: Settings, fake: FakeOllama) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    out = drive(settings, "greet Ada hello\n/exit\n")
    assert "Hello, Ada!" in out and "thinking" not in out and "running" not in out
