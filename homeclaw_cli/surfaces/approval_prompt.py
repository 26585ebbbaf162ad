"""Asking the user whether the model may make a call: in the REPL and in a one-shot chat.

Both show the same question (the call with its arguments, its effect, and why it is asked) and
take y / n / a (always, for this session). Nothing but a clear "yes" runs the call.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from homeclaw_cli.core.approval import Answer, Asker, ToolAction
from homeclaw_cli.surfaces.terminal_safe import terminal_safe

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output as PTOutput

CHOICES = "[y]es / [n]o / [a]lways this session"


def question(action: ToolAction, reason: str) -> str:
    """The question, its arguments (the model's) without terminal control sequences."""
    return terminal_safe(f"allow {action.describe()}? ({reason})\n{CHOICES}: ")


def parse_answer(text: str) -> Answer | None:
    """The answer typed, or None to ask again; an empty line is a no."""
    word = text.strip().lower()
    if word in ("y", "yes"):
        return "yes"
    if word in ("", "n", "no"):
        return "no"
    if word in ("a", "always"):
        return "always"
    return None


def repl_asker(pt_input: Input | None = None, pt_output: PTOutput | None = None) -> Asker:
    """Ask with a prompt-toolkit prompt of its own (the REPL's prompt is idle during a turn).

    Ctrl-D is a no; Ctrl-C cancels the turn, as it does while the model answers (prompt-toolkit
    raises KeyboardInterrupt, which would otherwise end the whole REPL).
    """

    async def ask(action: ToolAction, reason: str) -> Answer:
        from prompt_toolkit import PromptSession

        session: PromptSession[str] = PromptSession(input=pt_input, output=pt_output)
        text = question(action, reason)
        while True:
            try:
                line = await session.prompt_async(text)
            except EOFError:
                return "no"
            except KeyboardInterrupt:
                raise asyncio.CancelledError from None
            if (answer := parse_answer(line)) is not None:
                return answer
            text = f"{CHOICES}: "

    return ask


def terminal_asker() -> Asker | None:
    """For a one-shot chat: ask on the terminal when there is one to answer, else None (the
    call is then refused with a message naming `--approve` and the config key)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    async def ask(action: ToolAction, reason: str) -> Answer:
        text = question(action, reason)
        while True:
            sys.stderr.write(text)
            sys.stderr.flush()
            try:
                line = await _read_line()
            except asyncio.CancelledError:  # Ctrl-C: `cancelled` goes on a line of its own
                sys.stderr.write("\n")
                raise
            if not line:  # end of input: nobody said yes
                return "no"
            if (answer := parse_answer(line)) is not None:
                return answer
            text = f"{CHOICES}: "

    return ask


async def _read_line() -> str:
    """A line from stdin, waiting in the event loop rather than in a thread: Ctrl-C then
    cancels at once (asyncio.run would wait for a thread blocked in readline until Enter)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    try:
        loop.add_reader(sys.stdin.fileno(), readable)
    except (NotImplementedError, OSError, ValueError):  # no selector loop (Windows)
        return await asyncio.to_thread(sys.stdin.readline)
    try:
        await ready
    finally:
        loop.remove_reader(sys.stdin.fileno())
    return sys.stdin.readline()
