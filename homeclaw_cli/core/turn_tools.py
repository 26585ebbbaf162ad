"""The tools one turn offers the model.

The built-ins, one tool per capability of the retrieved plugins, search_plugins (whose hits
add their plugins' tools for the next round), and with skills search_skills plus read_skill /
run_skill once some skill is in play.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from homeclaw_cli.core import capability_tools
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.tool_registry import Handler, Tool, ToolOutcome, ToolRegistry, object_schema

if TYPE_CHECKING:  # the agent's collaborator protocols; core/agent.py imports this module
    from homeclaw_cli.core.agent import ManifestLookup
    from homeclaw_cli.core.ports import PluginCallerLike, Retriever, SkillRunner

CHAT_CONTEXT_MESSAGES = 6  # the tail of the history a plugin receives as chat_context


@dataclass(frozen=True)
class TurnToolContext:
    """What the tools of one turn reach: the user's message and the agent's services."""

    message: str
    retriever: Retriever
    caller: PluginCallerLike
    manifests: ManifestLookup
    skills: SkillRunner | None
    history: Sequence[ChatMessage]  # the agent's live history
    max_search_results: int


def build_turn_tools(
    ctx: TurnToolContext,
    builtins: ToolRegistry,
    plugins: list[PluginManifest],
    *,
    skills_shown: bool,
    query: str | None = None,
    search: bool = True,
) -> ToolRegistry:
    """A fresh registry for one turn; `skills_shown` offers read_skill/run_skill at once.

    A built-in with `offer_if` is offered only when `query` (default: the message) matches
    it and no retrieved plugin's description does (the plugin is the better tool: with both,
    a small model called current_time three times for "time in new york"); `search` offers
    search_plugins / search_skills."""
    text = ctx.message if query is None else query
    covered = " ".join(m.description for m in plugins)
    tools = ToolRegistry(
        [
            t
            for t in builtins.tools()
            if t.offer_if is None
            or (re.search(t.offer_if, text, re.I) and not re.search(t.offer_if, covered, re.I))
        ]
    )
    for manifest in plugins:
        add_plugin_tools(tools, manifest, ctx)
    if search:
        tools.add(_search_plugins_tool(tools, ctx))
    if ctx.skills is not None:
        if search:
            tools.add(_search_skills_tool(tools, ctx, ctx.skills))
        if skills_shown:
            _add_skill_call_tools(tools, ctx.skills)
    return tools


def add_plugin_tools(tools: ToolRegistry, manifest: PluginManifest, ctx: TurnToolContext) -> None:
    """One `<plugin>__<capability>` tool per callable capability of `manifest`."""
    capability_tools.add_plugin_tools(
        tools, manifest, lambda p, c: _plugin_handler(ctx, p, c), compact=True
    )


def _plugin_handler(ctx: TurnToolContext, plugin_id: str, capability_id: str) -> Handler:
    async def handler(args: dict[str, Any]) -> ToolOutcome:
        recent = ctx.history[-CHAT_CONTEXT_MESSAGES:]
        context = "\n".join(f"{m['role']}: {m['content']}" for m in recent)
        # A HomeclawError (bad parameters, unknown id) becomes an outcome the model can fix
        # in ToolRegistry.execute.
        outcome = await ctx.caller.call(
            plugin_id, capability_id, args, user_input=ctx.message, chat_context=context
        )
        res = outcome.result
        if not res.success:
            error = res.error or "no error message"
            if not error.startswith(f"plugin {plugin_id}"):
                error = f"plugin {plugin_id} failed: {error}"
            return ToolOutcome(False, error, failed_for_good=True)
        return ToolOutcome(
            True,
            res.text,
            final=True,
            post_process=outcome.post_process,
            post_process_prompt=outcome.post_process_prompt,
        )

    return handler


def _search_plugins_tool(tools: ToolRegistry, ctx: TurnToolContext) -> Tool:
    async def search(args: dict[str, Any]) -> ToolOutcome:
        found = await asyncio.to_thread(
            ctx.retriever.search_plugins, str(args["query"]), limit=ctx.max_search_results
        )
        lines = []
        for hit in found.hits:
            manifest = ctx.manifests(hit.id)
            if manifest is None:
                continue
            add_plugin_tools(tools, manifest, ctx)
            names = [
                capability_tools.tool_name(manifest.id, c.id)
                for c in manifest.callable_capabilities()
            ]
            lines.append(f"- {manifest.id} (score {hit.score:.2f}): {manifest.description}")
            lines.append(f"  tools: {', '.join(names)}")
        if not lines:
            return ToolOutcome(True, "no installed plugin matches that query")
        return ToolOutcome(
            True, "Matching plugins (their tools are now available):\n" + "\n".join(lines)
        )

    return Tool(
        "search_plugins",
        "Search the installed plugins when none listed fits the request.",
        object_schema({"query": {"type": "string", "description": "what is needed"}}, ["query"]),
        search,
        kind="search",
    )


def _search_skills_tool(tools: ToolRegistry, ctx: TurnToolContext, runner: SkillRunner) -> Tool:
    async def search_skills(args: dict[str, Any]) -> ToolOutcome:
        found = await asyncio.to_thread(
            ctx.retriever.search_skills, str(args["query"]), limit=ctx.max_search_results
        )
        lines = [f"- {h.id}: {h.descriptor.get('description', '')}" for h in found.hits]
        if not lines:
            return ToolOutcome(True, "no skill matches that query")
        _add_skill_call_tools(tools, runner)
        return ToolOutcome(True, "Matching skills (read one with read_skill):\n" + "\n".join(lines))

    return Tool(
        "search_skills",
        "Search the installed skills when none listed fits the request.",
        object_schema({"query": {"type": "string"}}, ["query"]),
        search_skills,
        kind="search",
    )


def _add_skill_call_tools(tools: ToolRegistry, runner: SkillRunner) -> None:
    """read_skill / run_skill, offered only once some skill is in play (saves tokens)."""
    for tool in runner.tools():
        if tool.name not in tools:
            tools.add(tool)
