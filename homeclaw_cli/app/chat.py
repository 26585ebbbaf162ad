"""Wire the agent loop to the real services: LLM adapter, retrieval, plugin caller, skills.

ChatSession is what `homeclaw chat` (REPL and one-shot) drives: it owns the registry, the
LLM adapter, RetrievalService (degrading to keyword matching when the index fails),
PluginCaller, the skills bridge, the conversation log, and hot reload (`reload`). The heavy
collaborators are imported inside the functions that build them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.app.resilient_retrieval import build_retriever
from homeclaw_cli.catalog.registry import Registry, scan
from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.core.agent import (
    LLM,
    Agent,
    AgentConfig,
    PluginCallerLike,
    TextSink,
    TurnResult,
)
from homeclaw_cli.core.agent_tools import ToolRegistry
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.retrieval import RetrievalHit
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.runtime.builtin_tools import BuiltinConfig, add_builtins
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.conversations import ConversationLog, log_path

DEFAULT_CONTEXT_TOKENS = 4096  # Ollama's default window when num_ctx is not set


def build_llm(settings: Settings) -> Any:
    """The configured LLM adapter (`llm.provider`: ollama, the default, or openai)."""
    llm = settings.llm
    if llm.provider == "openai":
        from homeclaw_cli.adapters.llm_openai import OpenAICompatLLM

        return OpenAICompatLLM(llm.host, llm.model, api_key=llm.api_key, timeout=llm.timeout_sec)
    from homeclaw_cli.adapters.llm_ollama import OllamaLLM

    return OllamaLLM(llm.host, llm.model, timeout=llm.timeout_sec, num_ctx=llm.num_ctx)


def build_caller(settings: Settings, registry: Registry) -> PluginCallerLike:
    from homeclaw_cli.runtime.caller import PluginCaller

    caller: PluginCallerLike = PluginCaller(settings, registry)
    return caller


class SkillsBridge:
    """SkillRunner over the skills module: prompt block, read_skill/run_skill, scanned once
    per session and again on every reload."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = scan_skills(settings)

    def refresh(self, changed: set[Path] | None = None, report: ReloadReport | None = None) -> None:
        """Rescan; a skill whose edit broke it keeps its last good version."""
        old = self.registry.skills
        fresh = scan_skills(self.settings)
        broken = {b.folder: b for b in fresh.broken}
        for skill_id, skill in old.items():
            if skill_id not in fresh.skills and skill.folder in broken:
                fresh.skills[skill_id] = skill
        if report is not None:
            for folder, bad in broken.items():
                if changed is None or _touches(folder, changed):
                    report.broken.append(f"{folder}: {bad.error}")
            for skill_id, skill in fresh.skills.items():
                if skill_id not in old:
                    report.added.append(f"skill {skill_id}")
                elif skill.content_hash != old[skill_id].content_hash:
                    report.updated.append(f"skill {skill_id}")
            report.removed += [f"skill {s}" for s in old if s not in fresh.skills]
        self.registry = fresh

    def prompt_block(self, hits: Sequence[RetrievalHit]) -> str:
        from homeclaw_cli.catalog.skill_prompt import build_skills_block, skills_for_prompt

        return build_skills_block(skills_for_prompt(hits, self.registry))

    def tool_schemas(self) -> list[dict[str, Any]]:
        from homeclaw_cli.app.skill_tools import skill_tools

        return skill_tools(self.registry)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        from homeclaw_cli.app.skill_tools import call_skill_tool

        return call_skill_tool(
            self.settings, self.registry, name, arguments, caller_cwd=self.settings.cwd
        )

    def keyword_documents(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Eligible skills for the keyword fallback retriever: id -> (text, descriptor)."""
        return {s.id: (s.embedding_text(), s.to_descriptor()) for s in self.registry.eligible()}


def build_skills(settings: Settings) -> SkillsBridge | None:
    if not settings.bundled and not _has_skill_folders(settings):
        return None
    return SkillsBridge(settings)


def _has_skill_folders(settings: Settings) -> bool:
    from homeclaw_cli.catalog.skills import skill_roots

    return any(path.is_dir() for _, path in skill_roots(settings))


def workspace_dirs(settings: Settings) -> list[Path]:
    """IDENTITY.md / TOOLS.md come from <data_dir>/workspace, then the current folder."""
    return [settings.data_dir / "workspace", settings.cwd]


@dataclass
class ReloadReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # "id-or-folder: problem" (kept old version)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.broken)


class ChatSession:
    """One conversation: the agent, its services and the log; swap-able registry."""

    def __init__(self, settings: Settings, *, llm: LLM | None = None, log: bool = True) -> None:
        self.settings = settings
        self.registry = scan(settings)
        self.llm: Any = llm or build_llm(settings)
        self.skills = build_skills(settings)
        self.retriever = build_retriever(
            settings, self.registry, self.skills.keyword_documents if self.skills else None
        )
        self.caller = build_caller(settings, self.registry)
        self._retired: list[Any] = []
        self._warnings: list[str] = []
        builtins = ToolRegistry()
        tools = settings.tools
        add_builtins(
            builtins,
            BuiltinConfig(
                allowed_dirs=tools.allowed_dirs or [settings.cwd],
                fetch_max_bytes=tools.fetch_max_bytes,
                fetch_timeout_sec=tools.fetch_timeout_sec,
                fetch_allow_private=tools.fetch_allow_private,
                plugin_allowed=tuple(tools.plugin_allowed),
            ),
        )
        self.agent = Agent(
            llm=self.llm,
            retriever=self.retriever,
            caller=self.caller,
            manifests=self.manifest,
            skills=self.skills,
            builtins=builtins,
            config=AgentConfig(
                max_rounds=settings.llm.max_rounds,
                tool_mode=settings.llm.tool_mode,
                workspace_dirs=workspace_dirs(settings),
                context_tokens=settings.llm.num_ctx or DEFAULT_CONTEXT_TOKENS,
            ),
        )
        self.log = ConversationLog(log_path(settings.state_dir)) if log else None
        self._builtins = builtins
        from homeclaw_cli import sdk

        sdk.set_tool_executor(self._plugin_tool)
        self._reload_lock = asyncio.Lock()

    @property
    def model(self) -> str:
        return str(self.llm.model)

    def manifest(self, plugin_id: str) -> PluginManifest | None:
        entry = self.registry.plugins.get(plugin_id)
        return entry.manifest if entry else None

    async def ask(self, message: str, *, on_text: TextSink | None = None) -> TurnResult:
        result = await self.agent.turn(message, on_text=on_text)
        if self.log is not None:
            self.log.record(self.model, result)
        return result

    def set_model(self, model: str) -> None:
        settings = self.settings.model_copy(deep=True)
        settings.llm.model = model
        self.settings = settings
        self._retired.append(self.llm)
        self.llm = build_llm(settings)
        self.agent.set_llm(self.llm)

    async def reload(self, changed: set[Path] | None = None) -> ReloadReport:
        """Rescan plugins and skills; a broken edit keeps the last good version.

        The new registry and caller replace the old ones in one assignment each, so a call
        already in flight finishes on the old caller (closed at the end of the session).
        """
        async with self._reload_lock:
            fresh = await asyncio.to_thread(scan, self.settings)
            report = ReloadReport()
            old = self.registry.plugins
            broken_folders = {b.folder for b in fresh.broken}
            for entry in old.values():
                if entry.id not in fresh.plugins and entry.folder in broken_folders:
                    fresh.plugins[entry.id] = entry  # a broken edit keeps the last good version
            for broken in fresh.broken:
                if changed is not None and not _touches(broken.folder, changed):
                    continue
                report.broken.append(f"{broken.folder}: {broken.summary}")
            for plugin_id, entry in fresh.plugins.items():
                if plugin_id not in old:
                    report.added.append(plugin_id)
                elif entry.content_hash != old[plugin_id].content_hash or _touches(
                    entry.folder, changed
                ):
                    report.updated.append(plugin_id)
            report.removed = [p for p in old if p not in fresh.plugins]
            await self._sync()
            self.registry = fresh
            swap = getattr(self.caller, "set_registry", None)
            if swap is not None:  # the real PluginCaller keeps its live MCP sessions
                swap(fresh)
            else:
                self._retired.append(self.caller)
                self.caller = build_caller(self.settings, fresh)
            if self.skills is not None:
                await asyncio.to_thread(self.skills.refresh, changed, report)
            self.retriever = build_retriever(
                self.settings, fresh, self.skills.keyword_documents if self.skills else None
            )
            self.agent.caller = self.caller
            self.agent.retriever = self.retriever
            return report

    async def start(self) -> None:
        """Check the model first (fail fast when the server is down or the model missing),
        then bring the index up to date when `refresh_on_startup` is set (seed 002 §8.5)."""
        await self.llm.supports_tools()  # /api/show: server up, model pulled
        await self.agent.native_tools()
        if self.settings.plugins.refresh_on_startup or self.settings.skills.refresh_on_startup:
            await self._sync()

    def take_warnings(self) -> list[str]:
        """Warnings since the last call (degraded retrieval, failed sync)."""
        out = [*self._warnings, *self.retriever.warnings]
        self._warnings.clear()
        self.retriever.warnings.clear()
        return out

    async def _sync(self) -> None:
        from homeclaw_cli.app.sync import sync

        try:
            await asyncio.to_thread(sync, self.settings)
        except HomeclawError as exc:
            self._warnings.append(f"index sync failed: {exc.message}")

    async def _plugin_tool(self, plugin_id: str, name: str, arguments: dict[str, Any]) -> str:
        """An inline plugin's BasePlugin.use_tool call: allowlisted built-ins only."""
        from homeclaw_cli.sdk import PluginError

        outcome = await self._builtins.execute(name, arguments, caller=f"plugin:{plugin_id}")
        if not outcome.ok:
            raise PluginError(outcome.text)
        return outcome.text

    async def aclose(self) -> None:
        from homeclaw_cli import sdk

        sdk.set_tool_executor(None)
        for resource in [*self._retired, self.caller, self.llm]:
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()
        if self.log is not None:
            self.log.close()


def _touches(folder: Path | None, changed: set[Path] | None) -> bool:
    if folder is None or not changed:
        return False
    return any(path == folder or path.is_relative_to(folder) for path in changed)
