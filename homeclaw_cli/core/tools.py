"""Capability -> the tool JSON schema the LLM sees. Everything that shows a capability to a
model (the chat loop, the MCP server, token budgeting) goes through these functions.
"""

from __future__ import annotations

import json
from typing import Any

from homeclaw_cli.core.manifest import Capability, Parameter, PluginManifest
from homeclaw_cli.core.tokens import estimate_tokens

TOOL_NAME_SEPARATOR = "__"


def parameter_schema(param: Parameter) -> dict[str, Any]:
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
    return f"{plugin_id}{TOOL_NAME_SEPARATOR}{capability_id}"


def split_tool_name(name: str) -> tuple[str, str] | None:
    plugin_id, sep, capability_id = name.partition(TOOL_NAME_SEPARATOR)
    return (plugin_id, capability_id) if sep and plugin_id and capability_id else None


def capability_tool(manifest: PluginManifest, capability: Capability) -> dict[str, Any]:
    """The function-calling tool (Ollama / OpenAI format) for one capability."""
    description = capability.description
    if capability.output_description:
        description += f" Returns: {capability.output_description}"
    return {
        "type": "function",
        "function": {
            "name": tool_name(manifest.id, capability.id),
            "description": f"[{manifest.name}] {description}",
            "parameters": parameters_schema(capability),
        },
    }


def plugin_tools(manifest: PluginManifest) -> list[dict[str, Any]]:
    return [capability_tool(manifest, cap) for cap in manifest.callable_capabilities()]


def descriptor_token_cost(manifest: PluginManifest) -> int:
    """Estimated prompt tokens this plugin costs when offered to the model."""
    routing_line = f"- {manifest.id}: {manifest.description}"
    schemas = json.dumps(plugin_tools(manifest), separators=(",", ":"))
    return estimate_tokens(routing_line) + estimate_tokens(schemas)
