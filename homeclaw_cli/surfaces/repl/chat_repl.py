"""`homeclaw chat`: the prompt-toolkit REPL around ChatSession.

Enter sends, Esc+Enter (or Alt+Enter) inserts a newline. Ctrl-C cancels the running turn (or
clears the line), Ctrl-D exits. Answers stream as Rich markdown on a terminal, as plain text
otherwise. Slash commands inspect and steer the session; see /help. Everything is printed by
the CLI's Output, into one console (the terminal prompt-toolkit patches).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable, Iterator
from typing import Any, TypeVar

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output as PTOutput
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console

from homeclaw_cli.app.chat import ChatSession
from homeclaw_cli.app.hot_reload import ReloadReport
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.settings import Settings
from homeclaw_cli.surfaces.approval_prompt import repl_asker
from homeclaw_cli.surfaces.render import Output
from homeclaw_cli.surfaces.repl.commands import COMMANDS, SlashCommands

T = TypeVar("T")


class _Completer(Completer):
    """Slash commands at the start of the line, plugin ids as their arguments.

    An ordinary message gets no completions: the prompt completes while typing, and a popup
    of plugin ids under every word of a question is in the way.
    """

    def __init__(self, plugin_ids: Callable[[], Iterable[str]]) -> None:
        self.plugin_ids = plugin_ids

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Any:
        text = document.text_before_cursor.lstrip()
        if not text.startswith("/"):
            return
        if not any(c.isspace() for c in text):
            for name, meta in COMMANDS.items():
                if name.startswith(text):
                    yield Completion(name, -len(text), display_meta=meta)
            return
        word = document.get_word_before_cursor(WORD=True)
        if word:
            for plugin_id in sorted(self.plugin_ids()):
                if plugin_id.startswith(word):
                    yield Completion(plugin_id, -len(word))


class Repl(SlashCommands):
    """The chat shell: a prompt loop that hands each line to a turn or a slash command."""

    def __init__(
        self,
        settings: Settings,
        *,
        trace: bool = False,
        log: bool = True,
        watch: bool = True,
        debug: bool = False,
        pt_input: Input | None = None,
        pt_output: PTOutput | None = None,
        console: Console | None = None,
        session_factory: Callable[[], ChatSession] | None = None,
        resume: str | None = None,
    ) -> None:
        self.settings = settings
        self.trace = trace
        self.watch = watch
        self.debug = debug
        self.out = Output(console=console or Console(), for_people=True)
        self.pt_input = pt_input
        self.pt_output = pt_output
        self._factory = session_factory or (
            lambda: ChatSession(
                settings,
                log=log,
                ask=repl_asker(pt_input, pt_output),
                resume=resume,
                notice=self.out.info,
            )
        )
        self.session: ChatSession | None = None
        self._turn: asyncio.Task[Any] | None = None

    # --- main loop ------------------------------------------------------------------------

    async def run(self) -> None:
        self.session = self._factory()
        try:
            await self.session.start()
        except BaseException:
            await self.session.aclose()
            raise
        self._show_warnings()
        stop = asyncio.Event()
        watcher = asyncio.create_task(self._watch(stop)) if self.watch else None
        history_file = self.settings.state_dir / "chat_history"
        history_file.parent.mkdir(parents=True, exist_ok=True)
        prompt: PromptSession[str] = PromptSession(
            history=FileHistory(str(history_file)),
            completer=_Completer(lambda: self._session.registry.plugins),
            key_bindings=_bindings(),
            input=self.pt_input,
            output=self.pt_output,
        )
        self.out.line(
            ("homeclaw", "bold"),
            " · model ",
            (self._session.model, "cyan"),
            f" · {len(self._session.registry.plugins)} plugins"
            " · /help for commands, Ctrl-D to exit",
        )
        if self._session.agent.exchanges:
            self.out.line(
                ("continuing", "green"),
                f" session {self._session.session_id}"
                f" ({len(self._session.agent.exchanges)} earlier turns)",
            )
        try:
            with patch_stdout(raw=True):
                await self._loop(prompt)
        finally:
            stop.set()
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await watcher
            await self._session.aclose()

    async def _loop(self, prompt: PromptSession[str]) -> None:
        while True:
            try:
                text = await prompt.prompt_async("you> ")
            except KeyboardInterrupt:
                continue
            except EOFError:
                self.out.text("bye")
                return
            text = text.strip()
            if not text:
                continue
            if text.startswith("/"):
                if await self._interruptible(self.command(text)) == "exit":
                    return
                continue
            await self.ask(text)

    async def ask(self, text: str) -> None:
        """Run one turn; Ctrl-C (SIGINT) cancels it and returns to the prompt."""
        await self._interruptible(self._stream_turn(text))

    async def _interruptible(self, work: Coroutine[Any, Any, T]) -> T | None:
        """Run `work` as a task that Ctrl-C cancels: one `cancelled` line, then the prompt.

        Errors end the task, not the session. Returns None when it did not finish.
        """
        self._turn = task = asyncio.create_task(work)
        try:
            with _sigint_calls(self.cancel_turn):
                return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not task.cancelled() or (current is not None and current.cancelling()):
                raise  # the REPL itself is being stopped
            self.out.line("\n", ("cancelled", "yellow"))
        except HomeclawError as exc:
            self.out.error(exc.message, exc.hint)
        except Exception as exc:  # a bug in one turn must not end the session
            self.out.error(
                f"{exc!r} (the session goes on; `homeclaw --debug chat` shows the traceback)",
                label="internal error",
            )
            if self.debug:
                self.out.err.print_exception()
        finally:
            self._turn = None
        return None

    def cancel_turn(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()

    async def _stream_turn(self, text: str) -> None:
        activity = self.out.activity()
        try:
            with self.out.stream(markdown=True) as show:
                result = await self._session.ask(
                    text,
                    on_text=activity.text_sink(show) if activity else show,
                    on_status=activity,
                )
        finally:
            if activity is not None:
                activity.stop()
        if not result.ok:
            self.out.error(result.error or "failed")
        self._show_warnings()
        if self.trace:
            from homeclaw_cli.surfaces.trace import trace_lines

            for line in trace_lines(result):
                self.out.info(line, style="dim")

    def _show_warnings(self) -> None:
        for warning in self._session.take_warnings():
            self.out.warning(warning)

    async def _watch(self, stop: asyncio.Event) -> None:
        from homeclaw_cli.app.hot_reload import watch

        try:
            await watch(self._session, self.show_reload, stop=stop)
        except Exception as exc:  # the REPL keeps working without hot reload
            self.out.line((f"hot reload stopped: {exc}", "yellow"))

    def show_reload(self, report: ReloadReport) -> None:
        parts = []
        for label, ids in (
            ("added", report.added),
            ("updated", report.updated),
            ("removed", report.removed),
        ):
            if ids:
                parts.append(f"{label} {', '.join(ids)}")
        if parts:
            self.out.line(("reloaded:", "green"), " " + "; ".join(parts))
        for problem in report.broken:
            self.out.line(("not reloaded (kept the last good version):", "yellow"), f" {problem}")
        if not parts and not report.broken:
            self.out.line(("reloaded: no changes", "dim"))
        self._show_warnings()


@contextlib.contextmanager
def _sigint_calls(callback: Callable[[], None]) -> Iterator[None]:
    """While inside, SIGINT (Ctrl-C) calls `callback` on the running loop instead of raising
    KeyboardInterrupt wherever the main thread happens to be; the old handler comes back."""
    loop = asyncio.get_running_loop()
    try:
        previous = signal.signal(signal.SIGINT, lambda *_: loop.call_soon_threadsafe(callback))
    except ValueError:  # not the main thread: Ctrl-C keeps its usual meaning
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def run_repl(
    settings: Settings,
    *,
    trace: bool,
    log: bool,
    watch: bool,
    debug: bool = False,
    resume: str | None = None,
) -> None:
    """Entry point of `homeclaw chat` without -q; `resume`: a logged session to continue."""
    if not sys.stdin.isatty():
        raise HomeclawError("the REPL needs a terminal", hint='use homeclaw chat -q "..."')
    repl = Repl(settings, trace=trace, log=log, watch=watch, debug=debug, resume=resume)
    asyncio.run(repl.run())
