"""The composition root: one AppContext per command, server or chat, built from Settings.

It builds each shared service the first time something asks for it (a `plugin list` never
loads an LLM client; a sync whose fingerprint is unchanged never scans the plugin folders)
and hands the same instance to everything after that: one registry scan, one skill scan, one
health store, one approval store, one retrieval service, one plugin caller (and so one set of
MCP sessions) per context. Long-lived processes (serve, the MCP server, the chat's hot reload)
call `rescan` / `rescan_skills` when the folders may have changed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from homeclaw_cli.catalog.registry import Registry, scan
from homeclaw_cli.catalog.skills import SkillRegistry, scan_skills
from homeclaw_cli.core.ports import LLM
from homeclaw_cli.errors import ConfigError
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.health import HealthStore

if TYPE_CHECKING:
    from homeclaw_cli.app.retrieval import RetrievalService
    from homeclaw_cli.runtime.caller import PluginCaller


StepReporter = Callable[[str, str], None]
"""Told (step, detail) as a long use case (install, update, register) starts each step;
told ("", "") when a step ended well and what follows is no step (a refusal, say)."""


def no_notice(message: str) -> None:
    """The default AppContext.notice: nobody is shown anything."""


def no_steps(step: str, detail: str) -> None:
    """The default StepReporter: nobody is watching."""


def build_llm(settings: Settings) -> LLM:
    """The configured LLM adapter (`llm.provider`: ollama, the default, or openai)."""
    llm = settings.llm
    api_key = llm_api_key(settings)
    # ${VAR} in a header value reads the environment: proxy tokens stay out of the config.
    headers = {k: os.path.expandvars(v) for k, v in llm.headers.items()}
    if llm.provider == "openai":
        from homeclaw_cli.adapters.llm_openai import OpenAICompatLLM

        return OpenAICompatLLM(
            llm.host,
            llm.model,
            api_key=api_key,
            timeout=llm.timeout_sec,
            temperature=llm.temperature,
            max_tokens=llm.max_reply_tokens,
            headers=headers,
            retries=llm.retries,
            connect_timeout=llm.connect_timeout_sec,
        )
    from homeclaw_cli.adapters.llm_ollama import OllamaLLM

    if api_key and not any(k.lower() == "authorization" for k in headers):
        headers["Authorization"] = f"Bearer {api_key}"
    return OllamaLLM(
        llm.host,
        llm.model,
        timeout=llm.timeout_sec,
        num_ctx=llm.num_ctx,
        temperature=llm.temperature,
        max_tokens=llm.max_reply_tokens,
        headers=headers,
        retries=llm.retries,
        connect_timeout=llm.connect_timeout_sec,
    )


def llm_api_key(settings: Settings) -> str | None:
    """llm.api_key, or the environment variable llm.api_key_env names (which must be set)."""
    var = settings.llm.api_key_env
    if not var:
        return settings.llm.api_key
    value = os.environ.get(var)
    if not value:
        raise ConfigError(
            f"llm.api_key_env names {var}, but that environment variable is not set",
            hint=f"export {var}=<the server's API key>, or remove llm.api_key_env",
        )
    return value


class AppContext:
    """Settings and the services built from them, each made on first use."""

    def __init__(self, settings: Settings, *, llm: LLM | None = None) -> None:
        self.settings = settings
        self._llm = llm
        self._registry: Registry | None = None
        self._skill_registry: SkillRegistry | None = None
        self._health: HealthStore | None = None
        self._approvals: ApprovalStore | None = None
        self._retrieval: RetrievalService | None = None
        self._caller: PluginCaller | None = None
        self.steps: StepReporter = no_steps  # a surface that shows progress replaces it
        # A line for people while a use case waits (another process holds the index lock);
        # a surface that shows messages replaces it.
        self.notice: Callable[[str], None] = no_notice

    @property
    def registry(self) -> Registry:
        """The installed plugins, scanned on first use."""
        if self._registry is None:
            self._registry = scan(self.settings)
        return self._registry

    def rescan(self) -> Registry:
        """Scan the plugin folders and registrations again; the caller gets the result."""
        self.set_registry(scan(self.settings))
        return self.registry

    def set_registry(self, registry: Registry) -> None:
        """Use `registry` from now on (hot reload); live plugin sessions are kept."""
        self._registry = registry
        if self._caller is not None:
            self._caller.set_registry(registry)

    @property
    def skill_registry(self) -> SkillRegistry:
        """The installed skills, scanned on first use."""
        if self._skill_registry is None:
            self._skill_registry = scan_skills(self.settings)
        return self._skill_registry

    def set_skill_registry(self, registry: SkillRegistry) -> None:
        """Use `registry` from now on (hot reload keeps the last good version of a skill)."""
        self._skill_registry = registry

    def rescan_skills(self) -> SkillRegistry:
        """Scan the skill folders again (after an install, or when they changed on disk)."""
        self._skill_registry = scan_skills(self.settings)
        return self._skill_registry

    @property
    def health(self) -> HealthStore:
        """The plugin health results in <state_dir>."""
        if self._health is None:
            self._health = HealthStore(self.settings.state_dir)
        return self._health

    @property
    def approvals(self) -> ApprovalStore:
        """The approved permissions in <state_dir>/approvals.json."""
        if self._approvals is None:
            self._approvals = ApprovalStore.for_state_dir(self.settings.state_dir)
        return self._approvals

    @property
    def retrieval(self) -> RetrievalService:
        """The index retrieval service (its query embedder is loaded on first search)."""
        if self._retrieval is None:
            from homeclaw_cli.app.retrieval import RetrievalService

            self._retrieval = RetrievalService(self.settings, health=self.health)
        return self._retrieval

    @property
    def caller(self) -> PluginCaller:
        """The one PluginCaller of this context (closed by aclose)."""
        if self._caller is None:
            from homeclaw_cli.runtime.caller import PluginCaller

            self._caller = PluginCaller(
                self.settings, self.registry, health=self.health, approvals=self.approvals
            )
        return self._caller

    @property
    def llm(self) -> LLM:
        """The LLM adapter the settings name (closed by aclose)."""
        if self._llm is None:
            self._llm = build_llm(self.settings)
        return self._llm

    @llm.setter
    def llm(self, llm: LLM) -> None:
        self._llm = llm

    async def aclose(self) -> None:
        """Close what was built: the caller's runners and the LLM client."""
        for resource in (self._caller, self._llm):
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()
        self._caller = None
