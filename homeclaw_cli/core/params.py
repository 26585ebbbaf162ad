"""Check and coerce call parameters against a capability before the plugin runs.

Values come from two places: the model's tool call (JSON-typed, sometimes sloppily: "3"
for a number) and `homeclaw plugin call -p key=value` (always text). Both go through the
same rules: required parameters present, values coerced to the declared type or refused
with a message naming the parameter, defaults filled, unknown names refused with a
did-you-mean. Every problem is reported at once so the model (or person) can fix them all.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from homeclaw_cli.core.manifest import Capability, Parameter, value_matches_type, with_article
from homeclaw_cli.errors import UsageError
from homeclaw_cli.suggest import did_you_mean

_TRUE = {"true", "yes", "y", "on", "1"}
_FALSE = {"false", "no", "n", "off", "0"}


class ParameterError(UsageError):
    """A bad, missing or mistyped parameter; raised before the plugin runs.

    `problems` holds one sentence per parameter; the chat loop sends the message back to
    the model so it can retry with corrected arguments.
    """

    def __init__(self, message: str, *, problems: list[str] | None = None, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.problems = problems or [message]


def validate_parameters(
    plugin_id: str, capability: Capability, values: dict[str, Any]
) -> dict[str, Any]:
    """Return the parameters coerced to their declared types, with defaults filled."""
    declared = {p.name: p for p in capability.parameters}
    problems: list[str] = []
    out: dict[str, Any] = {}
    for name, value in values.items():
        param = declared.get(name)
        if param is None:
            valid = ", ".join(declared) or "none"
            problems.append(
                f"unknown parameter `{name}`{did_you_mean(name, declared)} (valid: {valid})"
            )
            continue
        if value is None:
            continue  # an explicit null means "not given"
        try:
            out[name] = coerce(value, param)
        except ValueError as exc:
            problems.append(f"parameter `{name}` {exc}")
    for param in capability.parameters:
        if param.name in out or values.get(param.name) is not None:
            continue  # given: coerced, or its problem already said
        if param.has_default:
            out[param.name] = param.default
        elif param.required:
            about = f" ({param.description})" if param.description else ""
            problems.append(f"missing required parameter `{param.name}` ({param.type}){about}")
    if problems:
        where = f"{plugin_id}/{capability.id}"
        raise ParameterError(
            f"{where}: " + "; ".join(problems),
            problems=problems,
            hint=f"e.g. {example_call(plugin_id, capability)} "
            f"(`homeclaw plugin show {plugin_id}` lists the parameters)",
        )
    return out


_GIVEN_EXAMPLE = re.compile(r"(?:\be\.g\.?,?|\bone of:?)\s*[\"'`]?([^\s,;\"'`]+)", re.IGNORECASE)
_EXAMPLES: dict[str, str] = {
    "integer": "1",
    "number": "1.5",
    "boolean": "true",
    "array": ":='[]'",
    "object": ":='{}'",
}


def example_value(param: Parameter) -> str:
    """A `-p` value this parameter accepts, quoted for a POSIX shell: its `example`, its first
    enum value, its default, or a plain value of its type."""
    import shlex

    if param.example is not None:
        shown = param.example
        return shlex.quote(json.dumps(shown) if isinstance(shown, bool) else str(shown))
    if param.enum:
        first = param.enum[0]
        return shlex.quote(json.dumps(first) if isinstance(first, bool) else str(first))
    if param.has_default and param.default is not None and param.type not in ("array", "object"):
        default = param.default
        return shlex.quote(json.dumps(default) if isinstance(default, bool) else str(default))
    if param.type == "string":
        # A description that gives an example ("Unit of the value, e.g. mi, lb") names a value
        # the plugin knows, so the hint runs as written.
        given = _GIVEN_EXAMPLE.search(param.description or "")
        return shlex.quote(given.group(1).rstrip(".")) if given else "text"
    return _EXAMPLES.get(param.type, "text")


def example_call(plugin_id: str, capability: Capability) -> str:
    """A `homeclaw plugin call` line that passes validation: every required parameter set."""
    parts = ["homeclaw plugin call", plugin_id, capability.id]
    for param in capability.parameters:
        if param.required and not param.has_default:
            value = example_value(param)
            sep = "" if value.startswith(":=") else "="
            parts.append(f"-p {param.name}{sep}{value}")
    return " ".join(parts)


def coerce(value: Any, param: Parameter) -> Any:
    """`value` as `param.type` (and one of `param.enum`); ValueError with a sentence fragment
    when it cannot be."""
    coerced = _as_type(value, param)
    if param.enum and coerced not in param.enum:
        shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in param.enum)
        hint = did_you_mean(str(coerced), [str(v) for v in param.enum])
        raise ValueError(f"must be one of {shown}, got {_short(value)}{hint}")
    return coerced


def _as_type(value: Any, param: Parameter) -> Any:
    kind = param.type
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if value_matches_type(value, kind):
        if kind == "number" and isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {value!r}")
        return value
    if kind == "string":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        raise ValueError(f"must be a string, got {_kind(value)} {_short(value)}")
    if not isinstance(value, str):
        raise ValueError(f"must be {with_article(kind)}, got {_kind(value)} {_short(value)}")
    text = value.strip()
    if kind == "number":
        return _number(text, value)
    if kind == "integer":
        number = _number(text, value)
        if isinstance(number, float) and not number.is_integer():
            raise ValueError(f"must be a whole number, got {value!r}")
        return int(number)
    if kind == "boolean":
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError(f"must be a boolean (true or false), got {value!r}")
    expected = dict if kind == "object" else list
    example = '{"key": "value"}' if kind == "object" else '["a", "b"]'
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f"must be a JSON {kind} such as {example}, got {_short(value)}") from None
    if not isinstance(decoded, expected):
        raise ValueError(f"must be a JSON {kind} such as {example}, got {_kind(decoded)}")
    return decoded


def _number(text: str, original: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"must be a number, got {original!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {original!r}")
    return number


def _kind(value: Any) -> str:
    return {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        dict: "object",
        list: "array",
    }.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:60] + "…"
