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
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
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
from homeclaw_cli.suggest import did_you_mean
from homeclaw_cli.surfaces.approval_prompt import repl_asker
from homeclaw_cli.surfaces.render import Output, clip

T = TypeVar("T")

COMMANDS: dict[str, str] = {
    "/help": "this list",
    "/plugins": "installed plugins",
    "/skills": "installed skills",
    "/search": "/search QUERY: what retrieval finds for a query",
    "/why": "explain the last retrieval (scores, what was kept and why)",
    "/model": "/model [NAME]: show or switch the chat model",
    "/reload": "rescan plugins and skills now",
    "/trace": "toggle the trace after each answer",
    "/context": "what is in the prompt and its size",
    "/clear": "forget the conversation so far",
    "/exit": "leave (Ctrl-D works too)",
}


class _Completer(Completer):
    """Slash commands at the start of the line, plugin ids after them."""

    def __init__(self, plugin_ids: Callable[[], Iterable[str]]) -> None:
        self.plugin_ids = plugin_ids

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Any:
        text = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if text.startswith("/") and " " not in text:
            for name, meta in COMMANDS.items():
                if name.startswith(text):
                    yield Completion(name, -len(text), display_meta=meta)
            return
        if word:
            for plugin_id in sorted(self.plugin_ids()):
                if plugin_id.startswith(word):
                    yield Completion(plugin_id, -len(word))


class Repl:
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
    ) -> None:
        self.settings = settings
        self.trace = trace
        self.watch = watch
        self.debug = debug
        self.out = Output(console=console or Console(), for_people=True)
        self.pt_input = pt_input
        self.pt_output = pt_output
        self._factory = session_factory or (
            lambda: ChatSession(settings, log=log, ask=repl_asker(pt_input, pt_output))
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

    @property
    def _session(self) -> ChatSession:
        assert self.session is not None
        return self.session

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
        with self.out.stream(markdown=True) as show:
            result = await self._session.ask(text, on_text=show)
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

    # --- slash commands ---------------------------------------------------------------------

    async def command(self, line: str) -> str | None:
        name, _, arg = line.partition(" ")
        arg = arg.strip()
        handlers: dict[str, Callable[[str], Awaitable[str | None]]] = {
            "/help": self._help,
            "/plugins": self._plugins,
            "/skills": self._skills,
            "/search": self._search,
            "/why": self._why,
            "/model": self._model,
            "/reload": self._reload,
            "/trace": self._trace,
            "/context": self._context,
            "/clear": self._clear,
            "/exit": self._exit,
            "/quit": self._exit,
        }
        handler = handlers.get(name)
        if handler is None:
            hint = did_you_mean(name, COMMANDS)
            self.out.text(f"unknown command {name}{hint}; /help lists them")
            return None
        try:
            return await handler(arg)
        except HomeclawError as exc:
            self.out.error(exc.message, exc.hint)
            return None

    async def _help(self, _: str) -> None:
        self.out.table(["COMMAND", "WHAT"], [[k, v] for k, v in COMMANDS.items()])

    async def _plugins(self, _: str) -> None:
        registry = self._session.registry
        health = self._session.context.health.all()

        def status(plugin_id: str) -> str:
            known = health.get(plugin_id)
            return "-" if known is None else ("ok" if known.ok else f"unhealthy: {known.detail}")

        rows: list[list[Any]] = [
            [
                e.id,
                e.source,
                len(e.manifest.callable_capabilities()),
                status(e.id),
                clip(e.manifest.description, 70),
            ]
            for e in sorted(registry.plugins.values(), key=lambda e: e.id)
        ]
        rows += [[b.folder.name, b.source, "-", "broken", b.summary] for b in registry.broken]
        self.out.table(["ID", "SOURCE", "CAPS", "HEALTH", "DESCRIPTION"], rows)

    async def _skills(self, _: str) -> None:
        bridge = self._session.skills
        if bridge is None:
            self.out.text("no skill folders found (see `homeclaw skill list`)")
            return
        skills = bridge.registry.skills
        rows = [
            [
                s.id,
                s.source,
                "yes" if s.eligible else f"no: {s.ineligible_reason}",
                clip(s.description, 70),
            ]
            for s in sorted(skills.values(), key=lambda s: s.id)
        ]
        self.out.table(["ID", "SOURCE", "ELIGIBLE", "DESCRIPTION"], rows)

    async def _search(self, query: str) -> None:
        if not query:
            self.out.text("usage: /search QUERY")
            return
        retriever = self._session.retriever
        plugins = await asyncio.to_thread(retriever.search_plugins, query)
        rows: list[list[Any]] = [
            [h.id, "plugin", f"{h.score:.3f}", h.reason] for h in plugins.candidates[:10]
        ]
        if self._session.skills is not None:
            skills = await asyncio.to_thread(retriever.search_skills, query)
            rows += [[h.id, "skill", f"{h.score:.3f}", h.reason] for h in skills.candidates[:10]]
        self.out.table(["ID", "KIND", "SCORE", "RESULT"], rows)

    async def _why(self, _: str) -> None:
        last = self._session.agent.last
        if last is None or last.plugin_retrieval is None:
            self.out.text("nothing retrieved yet: ask something first")
            return
        self.out.text(f"retrieval for: {last.message}")
        rows: list[list[Any]] = []
        for kind, res in (("plugin", last.plugin_retrieval), ("skill", last.skill_retrieval)):
            if res is None:
                continue
            rows += [[h.id, kind, f"{h.score:.3f}", h.reason] for h in res.candidates[:15]]
        self.out.table(["ID", "KIND", "SCORE", "RESULT"], rows)
        if last.plugin_retrieval.fallback:
            self.out.text("nothing cleared the threshold: the model was offered search_plugins")

    async def _model(self, name: str) -> None:
        session = self._session
        if not name:
            native = await session.agent.native_tools()
            mode = "native tool calls" if native else "JSON replies (no tool support)"
            self.out.text(f"model {session.model} · {mode}")
            return
        previous = session.model
        session.set_model(name)
        try:
            native = await session.agent.native_tools()
        except HomeclawError:
            session.set_model(previous)
            raise
        mode = "native tool calls" if native else "JSON replies"
        self.out.text(f"model is now {name} ({mode})")

    async def _reload(self, _: str) -> None:
        self.show_reload(await self._session.reload())

    async def _trace(self, _: str) -> None:
        self.trace = not self.trace
        self.out.text(f"trace {'on' if self.trace else 'off'}")

    async def _context(self, _: str) -> None:
        session = self._session
        last = session.agent.last
        history = session.agent.history
        self.out.text(f"history: {len(history)} messages")
        if last is None or last.prompt is None:
            self.out.text("no prompt built yet: ask something first")
            return
        rows: list[list[Any]] = [[b.name, b.tokens] for b in last.prompt.blocks]
        rows.append(["tool schemas", last.tool_tokens])
        rows.append(["total", last.prompt_tokens])
        self.out.table(["BLOCK", "TOKENS"], rows)
        self.out.text(f"tools: {', '.join(last.tools_offered)}")

    async def _clear(self, _: str) -> None:
        self._session.agent.clear()
        self.out.text("conversation cleared")

    async def _exit(self, _: str) -> str:
        return "exit"


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
    settings: Settings, *, trace: bool, log: bool, watch: bool, debug: bool = False
) -> None:
    """Entry point of `homeclaw chat` without -q."""
    if not sys.stdin.isatty():
        raise HomeclawError("the REPL needs a terminal", hint='use homeclaw chat -q "..."')
    asyncio.run(Repl(settings, trace=trace, log=log, watch=watch, debug=debug).run())
