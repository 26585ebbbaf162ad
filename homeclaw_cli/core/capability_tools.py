"""Capability -> tool. Everything that shows a capability to a model (the chat loop, the MCP
server, token budgeting, `plugin show`) goes through these functions; the model they build
into is core/tool_registry.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from homeclaw_cli.core.manifest import Capability, Parameter, PluginManifest
from homeclaw_cli.core.tokens import estimate_tokens
from homeclaw_cli.core.tool_registry import Handler, Tool, ToolRegistry, function_schema

TOOL_NAME_SEPARATOR = "__"

CapabilityHandlers = Callable[[str, str], Handler]
"""(plugin id, capability id) -> the handler that runs it; each surface supplies its own."""


def plugin_ids(tool_names: Iterable[str]) -> list[str]:
    """The plugins of `<plugin>__<capability>` tool names, in order, each once (built-in and
    skill tools belong to none)."""
    ids = (n.partition(TOOL_NAME_SEPARATOR)[0] for n in tool_names if TOOL_NAME_SEPARATOR in n)
    return list(dict.fromkeys(ids))


def parameter_schema(param: Parameter) -> dict[str, Any]:
    """JSON Schema of one parameter (an object or array parameter's nested schema included)."""
    schema: dict[str, Any] = {**(param.json_schema or {}), "type": param.type}
    if param.description:
        schema["description"] = param.description
    if param.enum:
        schema["enum"] = list(param.enum)
    if param.has_default and param.default is not None:
        schema["default"] = param.default
    if param.type == "array":
        schema.setdefault("items", {})
    return schema


def parameters_schema(capability: Capability) -> dict[str, Any]:
    """JSON Schema of a capability's parameters (an object with properties)."""
    return {
        "type": "object",
        "properties": {p.name: parameter_schema(p) for p in capability.parameters},
        "required": [p.name for p in capability.parameters if p.required and not p.has_default],
    }


def tool_name(plugin_id: str, capability_id: str) -> str:
    """The tool name of a capability: `<plugin>__<capability>` (MCP clients rely on it)."""
    return f"{plugin_id}{TOOL_NAME_SEPARATOR}{capability_id}"


def capability_description(manifest: PluginManifest, capability: Capability) -> str:
    """`[Plugin name] description Returns: output description`."""
    description = capability.description
    if capability.output_description:
        description += f" Returns: {capability.output_description}"
    return f"[{manifest.name}] {description}"


def capability_tool(
    manifest: PluginManifest, capability: Capability, handler: Handler, *, compact: bool = False
) -> Tool:
    """The tool for one capability, run by `handler`; `compact` (chat, where the prompt lists
    the plugin) describes it by the capability's own sentence only."""
    return Tool(
        tool_name(manifest.id, capability.id),
        capability.description if compact else capability_description(manifest, capability),
        parameters_schema(capability),
        handler,
        kind="plugin",
        effects=manifest.effects_of(capability),
        plugin_id=manifest.id,
        capability_id=capability.id,
    )


def add_plugin_tools(
    registry: ToolRegistry,
    manifest: PluginManifest,
    handlers: CapabilityHandlers,
    *,
    compact: bool = False,
) -> None:
    """Register one tool per callable capability of `manifest`."""
    for capability in manifest.callable_capabilities():
        handler = handlers(manifest.id, capability.id)
        registry.add(capability_tool(manifest, capability, handler, compact=compact))


def ranked_capabilities(manifest: PluginManifest, order: list[str]) -> PluginManifest:
    """`manifest` with its capabilities in retrieval's order (best match first), so the
    model meets the one the user needs first."""
    if len(order) < 2 or len(manifest.capabilities) < 2:
        return manifest
    rank = {cap: n for n, cap in enumerate(order)}
    caps = sorted(manifest.capabilities, key=lambda c: rank.get(c.id, len(rank)))
    return manifest.model_copy(update={"capabilities": caps})


def plugin_tools(manifest: PluginManifest) -> list[dict[str, Any]]:
    """The function-calling definitions of a plugin's capabilities (what a model is shown)."""
    return [
        function_schema(
            tool_name(manifest.id, cap.id),
            capability_description(manifest, cap),
            parameters_schema(cap),
        )
        for cap in manifest.callable_capabilities()
    ]


def descriptor_token_cost(manifest: PluginManifest) -> int:
    """Estimated prompt tokens this plugin costs when offered to the model."""
    routing_line = f"- {manifest.id}: {manifest.description}"
    schemas = json.dumps(plugin_tools(manifest), separators=(",", ":"))
    return estimate_tokens(routing_line) + estimate_tokens(schemas)
