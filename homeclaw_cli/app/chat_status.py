"""What the REPL's /context and /status report about a chat session, and /status reconnect.

/context: the tokens of the last prompt (system blocks, tool schemas) and of the history,
against the model's window (Ollama /api/show; llama.cpp /props or /v1/models; else unknown)
and the budget homeclaw trims the history to. /status: the model and its server, the index
(synced or stale since the last `homeclaw sync`, and how many plugins it holds) and each
MCP plugin's session (connected, tools, last error).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal

from homeclaw_cli.app.chat import ChatSession
from homeclaw_cli.core.agent import CONTEXT_SHARE
from homeclaw_cli.core.history import MAX_HISTORY_TURNS, message_tokens
from homeclaw_cli.core.ports import ModelServer
from homeclaw_cli.core.trace import LlmStep
from homeclaw_cli.errors import HomeclawError

IndexState = Literal["synced", "stale", "not synced"]


@dataclass
class ContextReport:
    """Where the prompt's tokens go, and how many the model can take."""

    system: list[tuple[str, int]]  # the system prompt's blocks (last turn), tokens each
    tools: int  # tool schemas of the last turn
    tool_count: int
    history: int  # what the next turn would carry (before trimming to the budget)
    history_turns: int
    window: int | None  # the model's context window, None when the server does not say
    budget: int  # the window homeclaw plans with (llm.num_ctx, or Ollama's default)
    num_ctx: int | None
    server_count: int | None = None  # the prompt tokens the server counted last time

    @property
    def used(self) -> int:
        return sum(t for _, t in self.system) + self.tools + self.history

    @property
    def limit(self) -> int:
        """The tokens the prompt may fill before the history is trimmed."""
        return int(self.budget * CONTEXT_SHARE)


async def context_report(session: ChatSession) -> ContextReport:
    """The last prompt, the history and the window (asked of the server, cached by it)."""
    agent = session.agent
    last = agent.last
    exchanges = agent.exchanges[-MAX_HISTORY_TURNS:]
    window = None
    if isinstance(session.llm, ModelServer):
        try:
            window = await session.llm.context_window()
        except HomeclawError:
            window = None
    server_count = None
    if last is not None:
        counts = [s.prompt_tokens for s in last.steps if isinstance(s, LlmStep)]
        server_count = next((c for c in reversed(counts) if isinstance(c, int)), None)
    return ContextReport(
        system=[(b.name, b.tokens) for b in last.prompt.blocks if b.text]
        if last is not None and last.prompt is not None
        else [],
        tools=last.tool_tokens if last is not None else 0,
        tool_count=len(last.tools_offered) if last is not None else 0,
        history=sum(message_tokens(m) for e in exchanges for m in e),
        history_turns=len(exchanges),
        window=window,
        budget=agent.config.context_tokens,
        num_ctx=session.settings.llm.num_ctx,
        server_count=server_count,
    )


@dataclass
class McpStatus:
    plugin_id: str
    connected: bool
    tools: int | None  # what its server lists, while connected
    last_error: str | None


@dataclass
class StatusReport:
    model: str
    provider: str
    host: str
    server: str  # its version, or why it cannot be reached
    server_ok: bool
    session_id: str | None
    index: IndexState
    indexed_plugins: int | None  # the plugin rows of the last sync (skills not counted)
    index_detail: str
    mcp: list[McpStatus] = field(default_factory=list)


async def status_report(session: ChatSession) -> StatusReport:
    """The model, its server, the index and the MCP sessions, as they are now."""
    settings = session.settings
    server, server_ok = "not checked", True
    if isinstance(session.llm, ModelServer):
        try:
            server = await session.llm.version()
        except HomeclawError as exc:
            server, server_ok = exc.message, False
    state, rows, detail = await asyncio.to_thread(_index_state, session)
    return StatusReport(
        model=session.model,
        provider=settings.llm.provider,
        host=settings.llm.host,
        server=server,
        server_ok=server_ok,
        session_id=session.session_id,
        index=state,
        indexed_plugins=rows,
        index_detail=detail,
        mcp=mcp_sessions(session),
    )


def _index_state(session: ChatSession) -> tuple[IndexState, int | None, str]:
    from homeclaw_cli.app.scan_fingerprint import load_state, plugins_changed_since_sync

    settings = session.settings
    saved = load_state(settings)
    if not saved.get("fingerprint"):
        return "not synced", None, f"{settings.index_uri}: run `homeclaw sync`"
    rows = saved.get("count")
    count = rows if isinstance(rows, int) else None
    if plugins_changed_since_sync(settings):
        return "stale", count, "the plugin folders changed since the last sync: `homeclaw sync`"
    return "synced", count, str(settings.index_uri)


def mcp_sessions(session: ChatSession) -> list[McpStatus]:
    """Every MCP plugin of the registry, and its session when one was opened."""
    runner = session.caller.mcp_runner()
    out = []
    for entry in sorted(session.registry.plugins.values(), key=lambda e: e.id):
        if entry.manifest.type != "mcp":
            continue
        live = runner.connection(entry.id) if runner is not None else None
        error = runner.errors.get(entry.id) if runner is not None else None
        out.append(McpStatus(entry.id, live is not None, len(live.tools) if live else None, error))
    return out


async def reconnect(session: ChatSession, plugin_id: str) -> McpStatus:
    """Restart an MCP plugin's session (UnavailableError when its server will not start)."""
    tools = await session.caller.reconnect(plugin_id)
    return McpStatus(plugin_id, True, tools, None)
