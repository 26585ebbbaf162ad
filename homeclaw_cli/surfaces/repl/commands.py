"""The REPL's slash commands: inspect and steer the chat session (see /help).

SlashCommands is mixed into the Repl (surfaces/repl/chat_repl.py), which supplies the session,
the Output and `show_reload`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from homeclaw_cli.app.chat import ChatSession
from homeclaw_cli.app.hot_reload import ReloadReport
from homeclaw_cli.errors import HomeclawError, NotFoundError
from homeclaw_cli.settings import Settings
from homeclaw_cli.suggest import did_you_mean
from homeclaw_cli.surfaces.render import Output, clip

COMMANDS: dict[str, str] = {
    "/help": "this list",
    "/plugins": "installed plugins",
    "/skills": "installed skills",
    "/search": "/search QUERY: what retrieval finds for a query",
    "/why": "explain the last retrieval (scores, what was kept and why)",
    "/model": "/model [NAME]: the server's models (tools?), or switch for this session",
    "/reload": "rescan plugins and skills now",
    "/trace": "toggle the trace after each answer",
    "/context": "tokens used (system, tools, history) against the model's window",
    "/status": "model, server, index and MCP sessions; /status reconnect ID",
    "/clear": "forget the conversation so far (a new session from here)",
    "/sessions": "/sessions [ID]: recent conversations, or one whole (chat -c continues)",
    "/exit": "leave (Ctrl-D works too)",
}


class SlashCommands:
    """The handlers of the slash commands; `command(line)` runs one."""

    settings: Settings
    out: Output
    trace: bool
    session: ChatSession | None

    @property
    def _session(self) -> ChatSession:
        assert self.session is not None
        return self.session

    def show_reload(self, report: ReloadReport) -> None:
        raise NotImplementedError

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
            "/status": self._status,
            "/clear": self._clear,
            "/sessions": self._sessions,
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
        from homeclaw_cli.app.models import (
            explain_missing,
            list_models,
            stand_in,
            stand_in_warning,
        )
        from homeclaw_cli.surfaces.views import show_models

        session = self._session
        if not name:
            native = await session.agent.native_tools()
            mode = "native tool calls" if native else "JSON replies (no tool support)"
            self.out.text(f"model {session.model} · {mode}")
            show_models(self.out, await list_models(session.settings, session.llm))
            self.out.text("/model NAME switches for this session")
            return
        previous = session.model
        session.set_model(name)
        try:
            native = await session.agent.native_tools()
        except HomeclawError as exc:
            if isinstance(exc, NotFoundError):
                exc = await explain_missing(session.settings, session.llm, exc, in_chat=True)
            session.set_model(previous)
            raise exc from None
        await session.plan_window()
        mode = "native tool calls" if native else "JSON replies"
        self.out.text(f"model is now {name} ({mode})")
        if (other := await stand_in(session.settings, session.llm)) is not None:
            self.out.warning(stand_in_warning(session.settings, name, other, in_chat=True))

    async def _reload(self, _: str) -> None:
        self.show_reload(await self._session.reload())

    async def _trace(self, _: str) -> None:
        self.trace = not self.trace
        self.out.text(f"trace {'on' if self.trace else 'off'}")

    async def _context(self, _: str) -> None:
        from homeclaw_cli.app.chat_status import context_report
        from homeclaw_cli.surfaces.views import show_context

        show_context(self.out, await context_report(self._session))

    async def _status(self, arg: str) -> None:
        from homeclaw_cli.app.chat_status import reconnect, status_report
        from homeclaw_cli.surfaces.views import show_status

        action, _, plugin_id = arg.partition(" ")
        if action == "reconnect" and plugin_id.strip():
            state = await reconnect(self._session, plugin_id.strip())
            self.out.text(f"reconnected {state.plugin_id}: {state.tools} tools")
            return
        if action:
            self.out.text("usage: /status, or /status reconnect PLUGIN_ID")
            return
        show_status(self.out, await status_report(self._session))

    async def _clear(self, _: str) -> None:
        self._session.clear()
        new = f"; new session {self._session.session_id}" if self._session.session_id else ""
        self.out.text(f"conversation cleared{new}")

    async def _sessions(self, wanted: str) -> None:
        from homeclaw_cli.state.conversations import (
            list_sessions,
            log_path,
            read_turns,
            resolve_session,
        )
        from homeclaw_cli.surfaces.views import show_conversation, show_sessions

        path = log_path(self.settings.state_dir)
        if not wanted:
            show_sessions(self.out, list_sessions(path))
            self.out.text(f"this session: {self._session.session_id or '(not logged)'}")
            return
        session = resolve_session(path, wanted)
        show_conversation(self.out, session, read_turns(path, limit=None, session=session))

    async def _exit(self, _: str) -> str:
        return "exit"
