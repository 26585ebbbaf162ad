"""Wire the agent loop to the real services: LLM adapter, retrieval, plugin caller, skills.

ChatSession is what `homeclaw chat` (REPL and one-shot) drives: it owns the registry, the
LLM adapter, RetrievalService (degrading to keyword matching when the index fails),
PluginCaller, the skills bridge, the conversation log, and hot reload (`reload`). The heavy
collaborators are imported inside the functions that build them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from homeclaw_cli.app.context import AppContext, build_llm
from homeclaw_cli.app.hot_reload import ReloadReport, merge_plugins, merge_skills
from homeclaw_cli.app.models import explain_missing, stand_in, stand_in_warning
from homeclaw_cli.app.plugin_availability import PluginAvailability, how_to_mend
from homeclaw_cli.app.resilient_retrieval import build_retriever
from homeclaw_cli.app.scan_fingerprint import plugins_changed_since_sync
from homeclaw_cli.catalog.registry import scan
from homeclaw_cli.catalog.skills import SkillRegistry, scan_skills
from homeclaw_cli.core.agent import Agent, AgentConfig
from homeclaw_cli.core.approval import (
    ApprovalGate,
    ApprovalPolicy,
    ApprovalRecord,
    Asker,
    ToolAction,
)
from homeclaw_cli.core.history import MAX_HISTORY_TURNS
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.ports import LLM, ChatMessage, ModelServer, StatusSink, TextSink
from homeclaw_cli.core.retrieval import RetrievalHit
from homeclaw_cli.core.tool_registry import Tool, ToolRegistry
from homeclaw_cli.core.turn_result import TurnResult
from homeclaw_cli.errors import HomeclawError, NotFoundError, index_failure
from homeclaw_cli.runtime.builtin_tools import BuiltinConfig, add_builtins
from homeclaw_cli.settings import Settings
from homeclaw_cli.state import audit
from homeclaw_cli.state.conversations import ConversationLog, log_path, read_exchanges

DEFAULT_CONTEXT_TOKENS = 4096  # Ollama's default window when num_ctx is not set
KINDS = ("plugins", "skills")
SYNC_LOCK_WAIT = 2.0  # seconds a starting chat waits for another process's index write


class SkillsBridge:
    """SkillRunner over the skills module: prompt block, read_skill/run_skill, scanned once
    per session and again on every reload."""

    def __init__(self, settings: Settings, registry: SkillRegistry) -> None:
        self.settings = settings
        self.registry = registry

    def refresh(self, changed: set[Path] | None, report: ReloadReport) -> None:
        """Rescan; a skill whose edit broke it keeps its last good version."""
        fresh = scan_skills(self.settings)
        merge_skills(self.registry, fresh, changed, report)
        self.registry = fresh

    def prompt_block(self, hits: Sequence[RetrievalHit]) -> str:
        from homeclaw_cli.catalog.skill_prompt import build_skills_block, skills_for_prompt

        return build_skills_block(skills_for_prompt(hits, self.registry))

    def tools(self) -> list[Tool]:
        """read_skill / run_skill over the current skills."""
        from homeclaw_cli.app.skill_tools import ScannedSkills, skill_tools

        source = ScannedSkills(self.settings, self.registry, caller_cwd=self.settings.cwd)
        return skill_tools(source, "chat")

    def keyword_documents(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Eligible skills for the keyword fallback retriever: id -> (text, descriptor)."""
        return {s.id: (s.embedding_text(), s.to_descriptor()) for s in self.registry.eligible()}


def build_skills(context: AppContext) -> SkillsBridge | None:
    settings = context.settings
    if not settings.bundled and not _has_skill_folders(settings):
        return None
    return SkillsBridge(settings, context.skill_registry)


def _has_skill_folders(settings: Settings) -> bool:
    from homeclaw_cli.catalog.skills import skill_roots

    return any(path.is_dir() for _, path in skill_roots(settings))


def workspace_dirs(settings: Settings) -> list[Path]:
    """IDENTITY.md / TOOLS.md come from <data_dir>/workspace, then the current folder."""
    return [settings.data_dir / "workspace", settings.cwd]


def approval_policy(settings: Settings) -> ApprovalPolicy:
    """The standing answers from `tools.approve` and `tools.approve_rules` (flags included)."""
    return ApprovalPolicy(mode=settings.tools.approve, rules=dict(settings.tools.approve_rules))


def session_builtins(settings: Settings) -> ToolRegistry:
    """The built-in tools of a chat (file tools only inside `tools.allowed_dirs`)."""
    builtins = ToolRegistry()
    tools = settings.tools
    add_builtins(
        builtins,
        BuiltinConfig(
            allowed_dirs=list(tools.allowed_dirs),
            fetch_max_bytes=tools.fetch_max_bytes,
            fetch_timeout_sec=tools.fetch_timeout_sec,
            fetch_allow_private=tools.fetch_allow_private,
            plugin_allowed=tuple(tools.plugin_allowed),
        ),
    )
    return builtins


def agent_config(settings: Settings) -> AgentConfig:
    """The turn's knobs from `llm.*`."""
    return AgentConfig(
        max_rounds=settings.llm.max_rounds,
        tool_mode=settings.llm.tool_mode,
        workspace_dirs=workspace_dirs(settings),
        context_tokens=settings.llm.num_ctx or DEFAULT_CONTEXT_TOKENS,
        search_tools=settings.llm.search_tools,
        decide=settings.llm.decide,
        each_need=settings.llm.each_need,
        plugin_margin=settings.plugins.relative_margin,
        skill_margin=settings.skills.relative_margin,
    )


class ChatSession:
    """One conversation: the agent, its services and the log; swap-able registry."""

    def __init__(
        self,
        settings: Settings,
        *,
        llm: LLM | None = None,
        log: bool = True,
        context: AppContext | None = None,
        ask: Asker | None = None,
        resume: str | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        """`ask` puts a call that needs approval to the user; None: such calls are refused.
        `resume`: the id of a logged session to continue (its turns become the history).
        `notice` hears a wait for another process's index lock at startup."""
        self.settings = settings
        self.context = context or AppContext(settings, llm=llm)
        if notice is not None:
            self.context.notice = notice
        self.registry = self.context.registry
        self.llm: LLM = self.context.llm
        self.skills = build_skills(self.context)
        self.retriever = build_retriever(
            self.context, self.registry, self.skills.keyword_documents if self.skills else None
        )
        self.caller = self.context.caller
        self.caller.tool_executor = self._plugin_tool  # this session's allowlisted built-ins
        self._retired: list[Any] = []
        self._warnings: list[str] = list(self.registry.warnings())
        self._held_back_told: dict[str, str] = {}  # plugin id -> the reason last warned about
        builtins = session_builtins(settings)
        self.agent = Agent(
            llm=self.llm,
            retriever=self.retriever,
            caller=self.caller,
            manifests=self.manifest,
            skills=self.skills,
            builtins=builtins,
            config=agent_config(settings),
            approval=ApprovalGate(approval_policy(settings), ask, self._audit_decision),
            unavailable=PluginAvailability(self.caller.health, folder_of=self._folder),
        )
        path = log_path(settings.state_dir)
        self.log = ConversationLog(path, session=resume) if log else None
        self.session_id = self.log.session if self.log else resume
        if resume is not None:
            exchanges = read_exchanges(path, resume, limit=MAX_HISTORY_TURNS)
            self.agent.restore(cast("list[list[ChatMessage]]", exchanges))  # logged by record()
        self._builtins = builtins
        self._reload_lock = asyncio.Lock()

    @property
    def model(self) -> str:
        return self.llm.model

    def manifest(self, plugin_id: str) -> PluginManifest | None:
        entry = self.registry.plugins.get(plugin_id)
        return entry.manifest if entry else None

    def _folder(self, plugin_id: str) -> Path | None:
        entry = self.registry.plugins.get(plugin_id)
        return entry.folder if entry else None

    async def ask(
        self,
        message: str,
        *,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> TurnResult:
        """One turn, logged. A turn cancelled midway (Ctrl-C) is logged as cancelled, and one
        an error stopped (the model server unreachable) as failed with that error, each with
        what it did until then; the cancellation or error goes on up to the surface."""
        before = self.agent.last
        started = time.perf_counter()
        try:
            result = await self.agent.turn(message, on_text=on_text, on_status=on_status)
        except asyncio.CancelledError:
            self._log_stopped(message, before, started, "cancelled", cancelled=True)
            raise
        except HomeclawError as exc:
            self._log_stopped(message, before, started, exc.message)
            raise
        if self.log is not None:
            self.log.record(self.model, result)
        self._warnings += self._held_back_warnings(result)
        return result

    def _held_back_warnings(self, result: TurnResult) -> list[str]:
        """One warning per plugin retrieved but not offered, the first time in this session it
        is held back for that reason: the answer came without it and the user can mend that."""
        out = []
        for plugin_id, why in result.held_back.items():
            if self._held_back_told.get(plugin_id) == why:
                continue
            self._held_back_told[plugin_id] = why
            out.append(
                f"plugin {plugin_id} matched this request but was not offered: {why} "
                f"({how_to_mend(why)}, or `homeclaw plugin disable {plugin_id}`)"
            )
        return out

    def log_unasked(self, message: str, error: HomeclawError) -> None:
        """Log `message` as a failed turn when `error` came before it could be asked (the
        model server unreachable at start), so `homeclaw logs --failed` lists it."""
        if self.log is not None:
            self.log.record(self.model, TurnResult(message, ok=False, error=error.message))

    def _log_stopped(
        self,
        message: str,
        before: TurnResult | None,
        started: float,
        error: str,
        *,
        cancelled: bool = False,
    ) -> None:
        """Log the turn that did not end on its own, with what it did until then."""
        if self.log is None:
            return
        partial = self.agent.last
        turn = partial if partial is not None and partial is not before else None
        turn = turn or TurnResult(message)
        turn.ok, turn.error = False, error
        turn.timings.setdefault("total", time.perf_counter() - started)
        self.log.record(self.model, turn, cancelled=cancelled)

    def clear(self) -> None:
        """Forget the conversation so far; later turns are logged as a new session, which
        `chat -c` continues without the cleared turns."""
        self.agent.clear()
        self.session_id = self.log.new_session() if self.log is not None else None

    def set_model(self, model: str) -> None:
        settings = self.settings.model_copy(deep=True)
        settings.llm.model = model
        self.settings = settings
        self._retired.append(self.llm)
        self.llm = self.context.llm = build_llm(settings)
        self.agent.set_llm(self.llm)

    async def reload(self, changed: set[Path] | None = None) -> ReloadReport:
        """Rescan plugins and skills; a broken edit keeps the last good version.

        The new registry and caller replace the old ones in one assignment each, so a call
        already in flight finishes on the old caller (closed at the end of the session).
        """
        async with self._reload_lock:
            fresh = await asyncio.to_thread(scan, self.settings)
            report = ReloadReport()
            merge_plugins(self.registry, fresh, changed, report)
            if self.skills is not None:
                await asyncio.to_thread(self.skills.refresh, changed, report)
                self.context.set_skill_registry(self.skills.registry)
            self.registry = fresh
            self.context.set_registry(fresh)  # the caller keeps its live MCP sessions
            if report.removed:  # their managed servers would otherwise run until exit
                await asyncio.to_thread(self.caller.servers.stop, report.removed)
            await self._sync(self.context)  # what is active now, last good versions included
            self.retriever = build_retriever(
                self.context, fresh, self.skills.keyword_documents if self.skills else None
            )
            self.agent.retriever = self.retriever
            return report

    async def start(self) -> None:
        """Check the model first (fail fast when the server is down or the model missing),
        then bring the index up to date (seed 002 §8.4 `refresh_on_startup`, per kind): a
        no-change sync is a stat walk, it loads neither LanceDB nor the embedding model.
        An --approve-rule that names nothing installed is refused before anything runs."""
        self._warnings += self._check_approval_rules()
        try:
            await self.llm.supports_tools()  # /api/show: server up, model pulled
        except NotFoundError as exc:
            raise await explain_missing(self.settings, self.llm, exc) from None
        await self.agent.native_tools()
        if (other := await stand_in(self.settings, self.llm)) is not None:
            self._warnings.append(stand_in_warning(self.settings, self.model, other))
        await self.plan_window()
        kinds = self._startup_kinds()
        if kinds:
            await self._sync(self.context, kinds=kinds)
        if "plugins" not in kinds and await asyncio.to_thread(
            plugins_changed_since_sync, self.settings
        ):
            self._warnings.append(
                "plugins changed since the last sync and plugins.refresh_on_startup is off; "
                "run `homeclaw sync` to search them"
            )

    def _check_approval_rules(self) -> list[str]:
        from homeclaw_cli.app.approval_rules import check_rules, rule_names

        skills = self.skills.registry.skills if self.skills is not None else {}
        tools = [*self._builtins.names(), "run_skill"]
        names, open_ended = rule_names(self.registry.plugins.values(), skills, tools)
        return check_rules(self.settings, names, open_ended)

    async def plan_window(self) -> None:
        """Without llm.num_ctx, plan the prompt with the window the server says it runs the
        model with (llama.cpp, vLLM), else with Ollama's default."""
        if self.settings.llm.num_ctx is not None or not isinstance(self.llm, ModelServer):
            return
        window = None
        with contextlib.suppress(HomeclawError):
            window = await self.llm.serving_window()
        self.agent.config.context_tokens = window or DEFAULT_CONTEXT_TOKENS

    def _startup_kinds(self) -> list[str]:
        return [
            kind
            for kind, section in (
                ("plugins", self.settings.plugins),
                ("skills", self.settings.skills),
            )
            if section.refresh_on_startup
        ]

    def take_warnings(self) -> list[str]:
        """Warnings since the last call (degraded retrieval, failed sync)."""
        out = [*self._warnings, *self.retriever.warnings]
        self._warnings.clear()
        self.retriever.warnings.clear()
        return out

    async def _sync(self, context: AppContext, kinds: Sequence[str] = KINDS) -> None:
        """Incremental sync; when it cannot run (index locked by another process, read-only,
        damaged) the chat goes on with the index as it is and says so in one line."""
        from homeclaw_cli.app.sync import sync

        try:
            await asyncio.to_thread(
                sync, self.settings, kinds=kinds, context=context, lock_timeout=SYNC_LOCK_WAIT
            )
        except Exception as exc:  # the chat works on the last index rather than not at all
            known = index_failure(self.settings.index_uri, exc)
            reason = f"{type(exc).__name__}: {exc}" if known is None else known.message
            self._warnings.append(f"index not updated: {reason}; run `homeclaw sync`")

    def _audit_decision(self, action: ToolAction, record: ApprovalRecord) -> None:
        """Every call that needed a decision goes to the audit log (`homeclaw audit`)."""
        audit.record_tool_decision(self.settings.data_dir, action, record)

    async def _plugin_tool(self, plugin_id: str, name: str, arguments: dict[str, Any]) -> str:
        """An inline plugin's BasePlugin.use_tool call: allowlisted built-ins only."""
        from homeclaw_cli.sdk import PluginError

        outcome = await self._builtins.execute(name, arguments, caller=f"plugin:{plugin_id}")
        if not outcome.ok:
            raise PluginError(outcome.text)
        return outcome.text

    async def aclose(self) -> None:
        for resource in self._retired:
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()
        await self.context.aclose()
        if self.log is not None:
            self.log.close()
