"""The chat's tool registry: named tools with a JSON schema and an async handler.

Every tool call the model makes goes through `ToolRegistry.execute`, which validates the
arguments against the schema first. Anything wrong (unknown tool, missing or mistyped
argument, a handler refusing) comes back as a `ToolOutcome` with `ok=False` and a sentence the
model can act on: a bad tool call never raises out of the loop.

Plugins may call the tools named in `tools.plugin_allowed` (seed 002 §5) through
`ToolRegistry.execute(..., caller="plugin:<id>")`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.core.manifest import value_matches_type
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.suggest import did_you_mean


@dataclass
class ToolOutcome:
    """What a tool returns to the loop. `final` texts go to the user as the answer."""

    ok: bool
    text: str
    final: bool = False
    post_process_prompt: str | None = None
    post_process: bool = False
    failed_for_good: bool = False  # a plugin ran and failed (not a fixable bad call)
    data: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    kind: str = "builtin"  # builtin | plugin | skill | search
    plugin_allowed: bool = False

    def schema(self) -> dict[str, Any]:
        """The Ollama / OpenAI function-calling tool definition."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def object_schema(
    properties: dict[str, dict[str, Any]], required: list[str] | None = None
) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or []}


def check_arguments(schema: dict[str, Any], arguments: Any) -> str | None:
    """None when `arguments` fit `schema`, else a sentence naming the bad parameter."""
    if not isinstance(arguments, dict):
        return f"arguments must be a JSON object, got {type(arguments).__name__}"
    properties: dict[str, Any] = schema.get("properties") or {}
    for name, value in arguments.items():
        spec = properties.get(name)
        if spec is None:
            if properties:
                return (
                    f"unknown parameter `{name}`{did_you_mean(name, list(properties))}; "
                    f"valid: {', '.join(properties)}"
                )
            return f"unknown parameter `{name}`; this tool takes no parameters"
        wanted = spec.get("type")
        if value is not None and wanted and not value_matches_type(value, wanted):
            return f"parameter `{name}` must be a {wanted}, got {json_type(value)}"
    for name in schema.get("required") or []:
        if arguments.get(name) is None:
            return f"missing required parameter `{name}`"
    return None


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


class ToolRegistry:
    """Name -> Tool. Turn-scoped tools (retrieved plugins) are added and removed per turn."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema() for t in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    async def execute(self, name: str, arguments: Any, *, caller: str = "model") -> ToolOutcome:
        """Validate and run one call; every failure becomes an error outcome."""
        tool = self._tools.get(name)
        if tool is None:
            return ToolOutcome(
                False,
                f"unknown tool `{name}`{did_you_mean(name, self.names())}; "
                f"available tools: {', '.join(self.names())}",
            )
        if caller.startswith("plugin:") and not tool.plugin_allowed:
            return ToolOutcome(False, f"tool `{name}` is not allowlisted for plugins")
        problem = check_arguments(tool.parameters, arguments)
        if problem:
            return ToolOutcome(False, f"bad call to `{name}`: {problem}")
        try:
            return await tool.handler(dict(arguments))
        except HomeclawError as exc:
            text = exc.message + (f" ({exc.hint})" if exc.hint else "")
            return ToolOutcome(False, text)
        except Exception as exc:  # a crashing tool is reported to the model, never fatal
            return ToolOutcome(False, f"tool `{name}` crashed: {exc!r}", failed_for_good=True)
