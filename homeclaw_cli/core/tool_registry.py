"""The one tool model: named tools with a JSON schema and an async handler.

Chat (core/agent.py) and the MCP server (app/mcp_toolbox.py) both offer tools out of a
`ToolRegistry`: plugin capabilities (core/capability_tools.py builds them), skills
(app/skill_tools.py), searches and the built-ins (runtime/builtin_tools.py). The model is
pure; the handlers are supplied by the layer that can do the I/O.

Every call goes through `ToolRegistry.execute`, which validates the arguments against the
schema first. Anything wrong (unknown tool, missing or mistyped argument, a handler refusing)
comes back as a `ToolOutcome` with `ok=False` and a sentence the caller can act on: a bad tool
call never raises.

Plugins may call the tools named in `tools.plugin_allowed` (seed 002 §5) through
`ToolRegistry.execute(..., caller="plugin:<id>")`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.core.approval import READ_ONLY, Effect, ToolAction
from homeclaw_cli.core.manifest import value_matches_type, with_article
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.suggest import did_you_mean


@dataclass
class ToolOutcome:
    """What a tool returns. In chat, `final` texts go to the user as the answer."""

    ok: bool
    text: str
    final: bool = False
    post_process_prompt: str | None = None
    post_process: bool = False
    failed_for_good: bool = False  # a plugin ran and failed (not a fixable bad call)
    data: dict[str, Any] = field(default_factory=dict)  # structured result (MCP)
    # In chat, the answer when the model then ends the turn saying nothing (a script's output)
    unread: str | None = None


Handler = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]


def function_schema(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The Ollama / OpenAI function-calling tool definition."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    kind: str = "builtin"  # builtin | plugin | skill | search
    plugin_allowed: bool = False
    # What a call does to the world; decides whether the model may run it without asking.
    effects: frozenset[Effect] = READ_ONLY
    plugin_id: str | None = None  # for plugin capabilities: whose, and which capability
    capability_id: str | None = None
    # A tool whose effect depends on its arguments (run_skill: the skill's declaration).
    effects_of: Callable[[dict[str, Any]], tuple[str | None, frozenset[Effect]]] | None = None
    # The tool's own repair of a call's arguments, after coerce_arguments' (run_skill: an
    # option and its value written as one argument).
    mend: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # Chat offers the tool only for a request matching this regex (None: always); keeps
    # built-ins out of prompts that have no use for them.
    offer_if: str | None = None
    # Arguments that pick among the tool's own options (run_skill's skill and script), not
    # values from the user's request: core/grounding.py does not look for them there.
    choice_args: frozenset[str] = frozenset()

    def schema(self) -> dict[str, Any]:
        """The Ollama / OpenAI function-calling tool definition."""
        return function_schema(self.name, self.description, self.parameters)

    def action(self, arguments: dict[str, Any]) -> ToolAction:
        """This call as the approval policy sees it."""
        capability, effects = self.capability_id, self.effects
        if self.effects_of is not None:
            capability, effects = self.effects_of(arguments)
        owner = self.plugin_id or (self.name if self.effects_of is not None else None)
        return ToolAction(self.name, owner, capability, effects, arguments)


def object_schema(
    properties: dict[str, dict[str, Any]], required: list[str] | None = None
) -> dict[str, Any]:
    """A JSON Schema object with `properties` (and the `required` names)."""
    return {"type": "object", "properties": properties, "required": required or []}


# What a small model fills a parameter it made up with: it says nothing, so dropping it loses
# nothing (a made-up parameter with a value is still refused, naming the valid ones).
EMPTY_VALUES: tuple[Any, ...] = ("", None, [], {})


def coerce_arguments(schema: dict[str, Any], arguments: Any) -> Any:
    """The arguments with the safe repairs small models need: "5" for a number, 5 for a
    string, "true" for a boolean, one value for an array, an enum value in another case,
    null for an optional parameter dropped, an empty value ("", null, [], {}) for a parameter
    the tool does not take dropped, and one unknown parameter renamed to the one required
    parameter missing. Anything else is left for check_arguments."""
    if not isinstance(arguments, dict):
        return arguments
    properties: dict[str, Any] = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for name, value in _renamed(schema, arguments).items():
        spec = properties.get(name)
        if value is None and spec is not None and name not in (schema.get("required") or []):
            continue
        if spec is None and value in EMPTY_VALUES:  # `{"path": ""}` for a tool with none
            continue
        out[name] = _coerce(value, spec) if isinstance(spec, dict) else value
    return out


def _renamed(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """`{"place": "America/Sao_Paulo"}` for a tool that requires `timezone` and takes no
    `place` is meant as `timezone`: with one unknown name and one required name missing,
    and a value already of the right type, there is nothing else it can mean."""
    properties: dict[str, Any] = schema.get("properties") or {}
    unknown = [name for name in arguments if name not in properties]
    missing = [
        name
        for name in schema.get("required") or []
        if name in properties and arguments.get(name) is None
    ]
    if len(unknown) != 1 or len(missing) != 1:
        return arguments
    value, spec = arguments[unknown[0]], properties[missing[0]]
    wanted = spec.get("type") if isinstance(spec, dict) else None
    if value is None or (wanted and not _matches(value, wanted)):
        return arguments
    return {**{k: v for k, v in arguments.items() if k != unknown[0]}, missing[0]: value}


def _coerce(value: Any, spec: dict[str, Any]) -> Any:
    wanted = spec.get("type")
    if wanted in ("number", "integer") and isinstance(value, str):
        try:
            number = float(value.strip().replace(",", ""))
        except ValueError:
            return value
        if not math.isfinite(number):
            return value
        whole = number.is_integer() and (wanted == "integer" or "." not in value)
        return int(number) if whole else number
    if wanted == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if wanted == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if wanted == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if wanted == "array" and value is not None and not isinstance(value, list):
        value = [value]
    items = spec.get("items")
    if wanted == "array" and isinstance(items, dict) and isinstance(value, list):
        return [_coerce(item, items) for item in value]
    enum = spec.get("enum")
    if enum and value not in enum and isinstance(value, str):
        folded = [e for e in enum if isinstance(e, str) and e.casefold() == value.casefold()]
        return folded[0] if len(folded) == 1 else value
    return value


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
        if value is not None and wanted and not _matches(value, wanted):
            return _wrong_type(f"parameter `{name}`", wanted, value)
        enum = spec.get("enum")
        if enum and value is not None and value not in enum:
            shown = ", ".join(json.dumps(e) for e in enum)
            return f"parameter `{name}` must be one of {shown}, got {json.dumps(value)}"
        if (out_of_range := _range_problem(name, value, spec)) is not None:
            return out_of_range
        if (bad_item := _item_problem(name, value, spec)) is not None:
            return bad_item
    for name in schema.get("required") or []:
        if arguments.get(name) is None:
            return f"missing required parameter `{name}`"
    return None


def _range_problem(name: str, value: Any, spec: dict[str, Any]) -> str | None:
    """The schema's `minimum`/`maximum` for a number, which the tool must not have to check."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    low, high = spec.get("minimum"), spec.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = [f"at least {low}"] * (low is not None) + [f"at most {high}"] * (high is not None)
        return f"parameter `{name}` must be {' and '.join(bounds)}, got {json.dumps(value)}"
    return None


def _item_problem(name: str, value: Any, spec: dict[str, Any]) -> str | None:
    """An item of an array parameter that is not of the schema's `items` type."""
    items = spec.get("items")
    wanted = items.get("type") if isinstance(items, dict) else None
    if not isinstance(value, list) or not isinstance(wanted, str):
        return None
    for index, item in enumerate(value):
        if not _matches(item, wanted):
            return _wrong_type(f"parameter `{name}` item {index}", wanted, item)
    return None


def _wrong_type(what: str, wanted: str, value: Any) -> str:
    return f"{what} must be {with_article(wanted)}, got {json_type(value)}"


def _matches(value: Any, wanted: str) -> bool:
    if wanted == "integer":  # JSON Schema's, used by hand-written schemas (homeclaw_search)
        return isinstance(value, int) and not isinstance(value, bool)
    return value_matches_type(value, wanted)


def json_type(value: Any) -> str:
    """The JSON type name of a decoded JSON value."""
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
    """Name -> Tool. Chat adds turn-scoped tools (retrieved plugins) per turn."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register `tool`, replacing any tool of the same name."""
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def schemas(self) -> list[dict[str, Any]]:
        """Every tool's function-calling definition, in registration order."""
        return [t.schema() for t in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def problem(self, name: str, arguments: Any, *, caller: str = "model") -> str | None:
        """Why this call cannot run as written (unknown tool, not allowed, bad arguments)."""
        tool = self._tools.get(name)
        if tool is None:
            return (
                f"unknown tool `{name}`{did_you_mean(name, self.names())}; "
                f"available tools: {', '.join(self.names())}"
            )
        if caller.startswith("plugin:") and not tool.plugin_allowed:
            return f"tool `{name}` is not allowlisted for plugins"
        problem = check_arguments(tool.parameters, arguments)
        return f"bad call to `{name}`: {problem}" if problem else None

    def meant_by_arguments(self, name: str, arguments: Any) -> str | None:
        """The one other offered plugin tool, read-only, that declares every parameter of a
        call `name` cannot take even after its repairs: `dates__find_date(place="Sydney")`
        is the world clock's `current_time`, as small models pick a tool by its neighbour's
        parameters. None when `name` takes the call, or no tool or several fit."""
        tool = self._tools.get(name)
        if tool is None or not isinstance(arguments, dict) or not arguments:
            return None
        own = self.coerce(name, arguments)
        if not isinstance(own, dict) or set(own) <= _declared(tool):
            return None
        fitting = [
            other.name
            for other in self._tools.values()
            if other is not tool
            and other.kind == "plugin"
            and other.effects == READ_ONLY
            and set(arguments) <= _declared(other)
            and self.problem(other.name, self.coerce(other.name, arguments)) is None
        ]
        return fitting[0] if len(fitting) == 1 else None

    def coerce(self, name: str, arguments: Any) -> Any:
        """The call's arguments with the safe repairs of coerce_arguments and the tool's own
        (unknown tool: as is)."""
        tool = self._tools.get(name)
        if tool is None:
            return arguments
        coerced = coerce_arguments(tool.parameters, arguments)
        return tool.mend(coerced) if tool.mend and isinstance(coerced, dict) else coerced

    async def execute(self, name: str, arguments: Any, *, caller: str = "model") -> ToolOutcome:
        """Coerce, validate and run one call; every failure becomes an error outcome."""
        arguments = self.coerce(name, arguments)
        problem = self.problem(name, arguments, caller=caller)
        if problem:
            return ToolOutcome(False, problem)
        tool = self._tools[name]
        try:
            return await tool.handler(dict(arguments))
        except HomeclawError as exc:
            return ToolOutcome(False, error_text(exc))
        except Exception as exc:  # a crashing tool is reported to the caller, never fatal
            return ToolOutcome(False, f"tool `{name}` crashed: {exc!r}", failed_for_good=True)


def _declared(tool: Tool) -> set[str]:
    return set(tool.parameters.get("properties") or {})


def error_text(exc: HomeclawError) -> str:
    """A HomeclawError as one line for a tool result: the message and, in brackets, the fix."""
    return exc.message + (f" ({exc.hint})" if exc.hint else "")
