"""homeclaw's plugins, skills and retrieval as a flat list of tools (for `homeclaw mcp serve`).

Transport-free: surfaces/mcp/server.py turns this into an MCP server. Each plugin capability
is one tool named `<plugin>__<capability>` with the same JSON schema the chat model sees
(core/tools.py); each skill is a tool `skill__<id>` that returns its instructions or runs
one of its scripts; `homeclaw_search` runs homeclaw's retrieval over both.

Plugin calls, retrieval and skills come from PluginCaller, RetrievalService and
scan_skills/run_skill; they are built lazily, so a client that only lists
tools never loads the embedding model.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from homeclaw_cli.catalog.registry import scan
from homeclaw_cli.core.manifest import value_matches_type
from homeclaw_cli.core.ports import Retriever
from homeclaw_cli.core.retrieval import RetrievalHit
from homeclaw_cli.core.tools import parameters_schema, split_tool_name, tool_name
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.health import HealthStore

SEARCH_TOOL = "homeclaw_search"
SKILL_PREFIX = "skill__"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass
class ToolReply:
    text: str
    is_error: bool = False
    structured: dict[str, Any] | None = None


class CallerLike(Protocol):
    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Any: ...

    async def aclose(self) -> None: ...


class SkillsLike(Protocol):
    def skills(self) -> dict[str, Any]: ...
    def run(self, skill_id: str, script: str, args: list[str]) -> Any: ...


@dataclass
class Services:
    """Factories for the heavy services; tests pass fakes with the same shape."""

    caller: Callable[[Settings], CallerLike]
    retrieval: Callable[[Settings], Retriever]
    skills: Callable[[Settings], SkillsLike]


class _ScannedSkills:
    def __init__(self, settings: Settings) -> None:
        from homeclaw_cli.catalog import skills as skills_module

        self.settings = settings
        self._scan = skills_module.scan_skills

    def skills(self) -> dict[str, Any]:
        return dict(self._scan(self.settings).skills)

    def run(self, skill_id: str, script: str, args: list[str]) -> Any:
        from homeclaw_cli.runtime import skill_run

        return skill_run.run_skill(self.settings, skill_id, script, args)


def _plugin_caller(settings: Settings) -> CallerLike:
    from homeclaw_cli.runtime.caller import PluginCaller

    return PluginCaller(settings)


def _retrieval_service(settings: Settings) -> Retriever:
    from homeclaw_cli.app.retrieval import RetrievalService

    return RetrievalService(settings)


def default_services() -> Services:
    """The real services (imported on first use)."""
    return Services(_plugin_caller, _retrieval_service, _ScannedSkills)


@dataclass
class Toolbox:
    settings: Settings
    services: Services = field(default_factory=default_services)
    _caller: CallerLike | None = None
    _retrieval: Retriever | None = None

    # --- listing -------------------------------------------------------------------------

    def list_tools(self) -> list[ToolSpec]:
        """Every tool, rebuilt from the registry each time (registrations show up at once)."""
        specs = [self._search_spec()]
        taken = {SEARCH_TOOL}
        health = HealthStore(self.settings.state_dir).all()
        for pid, entry in sorted(scan(self.settings).plugins.items()):
            status = health.get(pid)
            if status is not None and not status.ok:
                continue  # unhealthy plugins are left out, as in retrieval
            manifest = entry.manifest
            for cap in manifest.callable_capabilities():
                description = f"[{manifest.name}] {cap.description}"
                if cap.output_description:
                    description += f" Returns: {cap.output_description}"
                name = tool_name(pid, cap.id)
                taken.add(name)
                specs.append(ToolSpec(name, description, parameters_schema(cap)))
        for skill_id, skill in sorted(self._skills().items()):
            name = SKILL_PREFIX + skill_id
            if name in taken or not getattr(skill, "eligible", True):
                continue
            specs.append(ToolSpec(name, _skill_description(skill), _skill_schema(skill)))
        return specs

    def _skills(self) -> dict[str, Any]:
        return self.services.skills(self.settings).skills()

    @staticmethod
    def _search_spec() -> ToolSpec:
        return ToolSpec(
            SEARCH_TOOL,
            "Find the homeclaw plugins and skills relevant to a request (semantic + keyword "
            "retrieval). Returns ids, scores, descriptions and the tool names to call.",
            {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the user wants to do."},
                    "kind": {
                        "type": "string",
                        "enum": ["all", "plugins", "skills"],
                        "default": "all",
                    },
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                },
                "required": ["query"],
            },
        )

    # --- calling -------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolReply:
        """Run one tool; failures come back as an error reply, never as an exception."""
        try:
            if name == SEARCH_TOOL:
                return await self._search(arguments)
            if name.startswith(SKILL_PREFIX):
                return await self._skill(name.removeprefix(SKILL_PREFIX), arguments)
            parts = split_tool_name(name)
            if parts is None:
                return ToolReply(f"unknown tool {name!r}", is_error=True)
            return await self._plugin(*parts, arguments)
        except HomeclawError as exc:
            return ToolReply(str(exc), is_error=True)

    async def _plugin(self, plugin_id: str, capability_id: str, args: dict[str, Any]) -> ToolReply:
        if self._caller is None:
            self._caller = self.services.caller(self.settings)
        outcome = await self._caller.call(plugin_id, capability_id, args, metadata={"via": "mcp"})
        result = outcome.result
        if not result.success:
            return ToolReply(result.error or "the plugin failed", is_error=True)
        text = result.text
        prompt = getattr(outcome, "post_process_prompt", None)
        if getattr(outcome, "post_process", False):
            # homeclaw's chat loop would rewrite this output with its model; an MCP client's
            # model gets the same instruction instead.
            text += "\n\n[Rewrite this result for the user before showing it"
            text += f": {prompt}]" if prompt else ".]"
        return ToolReply(text, structured={"metadata": result.metadata or {}})

    async def _search(self, args: dict[str, Any]) -> ToolReply:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolReply("`query` is required: a sentence describing the task", True)
        kind = args.get("kind", "all")
        if kind not in ("all", "plugins", "skills"):
            return ToolReply(f"`kind` must be all, plugins or skills (got {kind!r})", True)
        limit = args.get("limit")
        if limit is not None and not value_matches_type(limit, "number"):
            return ToolReply("`limit` must be a number", True)
        if self._retrieval is None:
            self._retrieval = self.services.retrieval(self.settings)
        service = self._retrieval
        hits: list[dict[str, Any]] = []
        if kind in ("all", "plugins"):
            result = await asyncio.to_thread(
                service.search_plugins, query, limit=int(limit) if limit else None
            )
            hits += [_hit_json(h) for h in result.hits]
        if kind in ("all", "skills"):
            result = await asyncio.to_thread(
                service.search_skills, query, limit=int(limit) if limit else None
            )
            hits += [_hit_json(h) for h in result.hits]
        hits.sort(key=lambda h: -h["score"])
        body = {"query": query, "hits": hits}
        return ToolReply(json.dumps(body, indent=2), structured=body)

    async def _skill(self, skill_id: str, args: dict[str, Any]) -> ToolReply:
        skills = self.services.skills(self.settings)
        skill = skills.skills().get(skill_id)
        if skill is None:
            return ToolReply(f"no skill with id {skill_id!r}", is_error=True)
        script = args.get("script")
        if not script:
            scripts = ", ".join(skill.scripts) or "none"
            return ToolReply(f"{skill.body}\n\n(scripts: {scripts})")
        script_args = args.get("args", [])
        if not isinstance(script_args, list) or not all(isinstance(a, str) for a in script_args):
            return ToolReply("`args` must be a list of strings", is_error=True)
        result = await asyncio.to_thread(skills.run, skill_id, str(script), script_args)
        text = result.stdout
        if result.stderr:
            text += f"\n[stderr]\n{result.stderr}"
        failed = bool(result.timed_out or result.exit_code != 0)
        if result.timed_out:
            text += "\n[timed out]"
        elif failed:
            text += f"\n[exit code {result.exit_code}]"
        return ToolReply(text, is_error=failed)

    async def aclose(self) -> None:
        if self._caller is not None:
            await self._caller.aclose()
            self._caller = None


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
        data["tools"] = [SKILL_PREFIX + hit.id]
    return data


def _skill_description(skill: Any) -> str:
    scripts = list(getattr(skill, "scripts", []) or [])
    text = f"[skill {skill.name}] {skill.description}"
    if scripts:
        text += f" Call without `script` for its instructions; scripts: {', '.join(scripts)}."
    else:
        text += " Returns the skill's instructions."
    return text


def _skill_schema(skill: Any) -> dict[str, Any]:
    scripts = list(getattr(skill, "scripts", []) or [])
    if not scripts:
        return {"type": "object", "properties": {}}
    return {
        "type": "object",
        "properties": {
            "script": {
                "type": "string",
                "enum": scripts,
                "description": "Script to run (from the skill's scripts/ folder).",
            },
            "args": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Command-line arguments for the script.",
            },
        },
    }
