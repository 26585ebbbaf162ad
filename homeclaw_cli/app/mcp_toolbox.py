"""homeclaw's plugins, skills and retrieval as one tool registry (for `homeclaw mcp serve`).

Transport-free: surfaces/mcp/server.py lists `Toolbox.list_tools()` and runs
`Toolbox.call()`, both over the same `ToolRegistry` the chat uses. Each plugin capability is
one tool `<plugin>__<capability>` (core/capability_tools.py), each eligible skill one tool
`skill__<id>` (app/skill_tools.py decides that), and `homeclaw_search` runs homeclaw's
retrieval over both.

The plugins and skills are scanned once per server, through its AppContext, and again only
when app/scan_fingerprint.py says their folders, registrations or disabled list changed, so
registrations and new plugins show up at once without a rescan per request. The plugin caller
and the retrieval are built on first use, so a client that only lists tools never loads the
embedding model.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.scan_fingerprint import plugin_fingerprint, skill_fingerprint
from homeclaw_cli.app.skill_tools import ScannedSkills, SkillSource, skill_tool_name, skill_tools
from homeclaw_cli.catalog.registry import Registry
from homeclaw_cli.core.approval import ApprovalRecord, ToolAction
from homeclaw_cli.core.capability_tools import add_plugin_tools, tool_name
from homeclaw_cli.core.ports import PluginCallerLike, Retriever
from homeclaw_cli.core.retrieval import RetrievalHit
from homeclaw_cli.core.tool_registry import Handler, Tool, ToolOutcome, ToolRegistry
from homeclaw_cli.state import audit

SEARCH_TOOL = "homeclaw_search"
SEARCH_KINDS = ("all", "plugins", "skills")


class CallerLike(PluginCallerLike, Protocol):
    """The chat's plugin caller, closed when the server stops."""

    async def aclose(self) -> None: ...


@dataclass
class Services:
    """The heavy services, taken from the server's context; tests pass fakes."""

    caller: Callable[[AppContext], CallerLike]
    retrieval: Callable[[AppContext], Retriever]
    skills: Callable[[AppContext], SkillSource]


def _context_caller(context: AppContext) -> CallerLike:
    return context.caller


def _context_retrieval(context: AppContext) -> Retriever:
    return context.retrieval


def _context_skills(context: AppContext) -> SkillSource:
    return ScannedSkills(context.settings, context.skill_registry)


def default_services() -> Services:
    """The context's own services (each built on first use)."""
    return Services(_context_caller, _context_retrieval, _context_skills)


@dataclass
class Toolbox:
    """Search, plugin capabilities and skills as one ToolRegistry, over one AppContext."""

    context: AppContext
    services: Services = field(default_factory=default_services)
    _caller: CallerLike | None = None
    _retrieval: Retriever | None = None
    _skills: SkillSource | None = None
    _plugins_seen: str | None = None  # the fingerprint the current registry was scanned at
    _skills_seen: str | None = None
    # list and call build the registry in worker threads: one rescan at a time.
    _scan_lock: threading.Lock = field(default_factory=threading.Lock)

    def registry(self, *, healthy_only: bool = False) -> ToolRegistry:
        """Search, every plugin capability and every eligible skill, as they are now."""
        plugins, skills = self._current()
        tools = ToolRegistry([self._search_tool()])
        health = self.context.health.all() if healthy_only else {}
        for pid, entry in sorted(plugins.plugins.items()):
            status = health.get(pid)
            if status is not None and not status.ok:
                continue  # unhealthy plugins are left out of the list, as in retrieval
            add_plugin_tools(tools, entry.manifest, self._plugin_handler)
        for tool in skill_tools(skills, "mcp"):
            if tool.name not in tools:  # a plugin tool of the same name wins
                tools.add(tool)
        return tools

    def list_tools(self) -> list[Tool]:
        """The tools to list: those of healthy plugins, skills and search."""
        return self.registry(healthy_only=True).tools()

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Run one tool (an unhealthy plugin's too); failures come back as ok=False.

        Asking the user before a change is the MCP client's job, but a call the configured
        policy forbids (`tools.approve: never`, an approve rule `never`) is refused here, and
        every call that is no plain read is written to the audit log, as in chat. An invalid
        call (unknown tool, bad arguments) fails in execute without a decision, as in chat."""
        registry = await asyncio.to_thread(self.registry)
        tool = registry.get(name)
        coerced = registry.coerce(name, arguments)
        if tool is not None and tool.kind != "search" and not registry.problem(name, coerced):
            refused = await asyncio.to_thread(self._refused, tool.action(coerced))
            if refused is not None:
                return refused
        return await registry.execute(name, arguments)

    def _refused(self, action: ToolAction) -> ToolOutcome | None:
        """The refusal of a call the policy forbids, None when it may run (audited unless a
        plain read)."""
        if action.read_only:
            return None
        from homeclaw_cli.app.chat import approval_policy  # the chat's standing answers

        decision = approval_policy(self.context.settings).decide(action)
        allowed = decision.verdict != "refuse"
        how = {"run": "auto", "ask": "the MCP client's", "refuse": "refused"}[decision.verdict]
        record = ApprovalRecord(allowed, how, decision.reason)
        audit.record_tool_decision(self.context.settings.data_dir, action, record)
        if allowed:
            return None
        return ToolOutcome(
            False,
            f"not run: {action.describe()} is not allowed ({decision.reason})",
            failed_for_good=True,
        )

    async def aclose(self) -> None:
        """Close the plugin caller and whatever else the context built."""
        if self._caller is not None:
            await self._caller.aclose()
            self._caller = None
        await self.context.aclose()

    def _current(self) -> tuple[Registry, SkillSource]:
        """The plugins and skills, rescanned only when their folders changed since the last
        scan (the fingerprint is taken first, so a change during a scan is seen next time)."""
        settings = self.context.settings
        with self._scan_lock:
            plugins = plugin_fingerprint(settings)
            if plugins != self._plugins_seen:
                self.context.rescan()
                self._plugins_seen = plugins
            skills = skill_fingerprint(settings)
            if self._skills is None or skills != self._skills_seen:
                self.context.rescan_skills()
                self._skills = self.services.skills(self.context)
                self._skills_seen = skills
            return self.context.registry, self._skills

    def _plugin_handler(self, plugin_id: str, capability_id: str) -> Handler:
        async def run(args: dict[str, Any]) -> ToolOutcome:
            if self._caller is None:
                self._caller = self.services.caller(self.context)
            outcome = await self._caller.call(
                plugin_id, capability_id, args, metadata={"via": "mcp"}
            )
            result = outcome.result
            if not result.success:
                return ToolOutcome(False, result.error or "the plugin failed", failed_for_good=True)
            text = result.text
            if outcome.post_process:
                # homeclaw's chat loop would rewrite this output with its model; an MCP
                # client's model gets the same instruction instead.
                prompt = outcome.post_process_prompt
                text += "\n\n[Rewrite this result for the user before showing it"
                text += f": {prompt}]" if prompt else ".]"
            metadata = getattr(result, "metadata", None) or {}  # PluginResult has it
            return ToolOutcome(True, text, data={"metadata": metadata})

        return run

    def _search_tool(self) -> Tool:
        return Tool(
            SEARCH_TOOL,
            "Find the homeclaw plugins and skills relevant to a request (semantic + keyword "
            "retrieval). Returns ids, scores, descriptions and the tool names to call.",
            {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the user wants to do."},
                    "kind": {"type": "string", "enum": list(SEARCH_KINDS), "default": "all"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                },
                "required": ["query"],
            },
            self._search,
            kind="search",
        )

    async def _search(self, args: dict[str, Any]) -> ToolOutcome:
        query = str(args["query"])
        if not query.strip():
            return ToolOutcome(False, "`query` is required: a sentence describing the task")
        kind = args.get("kind") or "all"
        if kind not in SEARCH_KINDS:
            return ToolOutcome(False, f"`kind` must be all, plugins or skills (got {kind!r})")
        limit = args.get("limit")
        if self._retrieval is None:
            self._retrieval = self.services.retrieval(self.context)
        searches = [self._retrieval.search_plugins] if kind != "skills" else []
        if kind != "plugins":
            searches.append(self._retrieval.search_skills)
        hits: list[dict[str, Any]] = []
        for search in searches:
            result = await asyncio.to_thread(search, query, limit=limit)
            hits += [_hit_json(h) for h in result.hits]
        hits.sort(key=lambda h: -h["score"])
        body = {"query": query, "hits": hits}
        return ToolOutcome(True, json.dumps(body, indent=2), data=body)


def _hit_json(hit: RetrievalHit) -> dict[str, Any]:
    descriptor = hit.descriptor
    # Plugin rows store describe_entry() (the manifest under "manifest"); skills are flat.
    manifest = descriptor.get("manifest", descriptor)
    data: dict[str, Any] = {
        "kind": hit.kind,
        "id": hit.id,
        "score": round(float(hit.score), 4),
        "description": manifest.get("description", ""),
    }
    if hit.kind == "plugin":
        caps = [c.get("id") for c in manifest.get("capabilities", []) if isinstance(c, dict)]
        data["tools"] = [tool_name(hit.id, c) for c in (caps or ["run"]) if c]
    else:
        data["tools"] = [skill_tool_name(hit.id)]
    return data
