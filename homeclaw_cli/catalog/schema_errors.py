"""One pydantic error -> the sentence a descriptor's author reads (plugin.yaml, SKILL.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from homeclaw_cli.document import FieldPath
from homeclaw_cli.suggest import did_you_mean

# JSON Schema keywords an author may put on a parameter itself instead of under json_schema.
_JSON_SCHEMA_WORDS = frozenset(
    {"items", "properties", "additionalProperties", "minItems", "maxItems", "minimum", "maximum",
     "pattern", "format", "minLength", "maxLength", "$ref", "oneOf", "anyOf"}
)  # fmt: skip

# The list a mapping was written instead of (`parameters:` as a JSON Schema object, say).
_LIST_FORMS: dict[FieldPath, str] = {
    ("parameters",): "`- {name: city, type: string, required: true, description: City name.}` "
    "(not a JSON Schema object; nested schemas go under a parameter's `json_schema`)",
    ("capabilities",): "`- {id: forecast, name: Forecast, description: ..., parameters: [...]}`",
}


def schema_message(err: Any, loc: FieldPath, known: Iterable[str]) -> str:
    """The message for `err` at `loc`; `known` are the field names valid beside loc[-1]."""
    kind = err["type"]
    if kind == "extra_forbidden":
        name = str(loc[-1])
        known = list(known)
        if name in _JSON_SCHEMA_WORDS and "json_schema" in known:
            return (
                f"unknown field `{name}`: a parameter's JSON Schema goes under `json_schema`, "
                f"e.g. `type: array, json_schema: {{{name}: ...}}`"
            )
        return f"unknown field `{name}`{did_you_mean(name, known)}"
    if kind == "missing":
        return f"missing required field `{loc[-1]}`"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        got = err.get("input")
        hint = did_you_mean(got, re.findall(r"'([^']*)'", expected)) if isinstance(got, str) else ""
        return f"must be one of {expected}, got {got!r}{hint}"
    if kind == "list_type" and isinstance(err.get("input"), dict) and loc[-1:] in _LIST_FORMS:
        return f"must be a list, one item each: {_LIST_FORMS[loc[-1:]]}"
    if kind == "list_type" and isinstance(err.get("input"), str | int | float):
        return f"must be a list: write [{err['input']}] (got the single value {err['input']!r})"
    if kind == "string_type" and isinstance(err.get("input"), bool | int | float):
        value = err["input"]
        what = (
            f"the boolean {str(value).lower()}"
            if isinstance(value, bool)
            else f"the number {value}"
        )
        return (
            f"must be text, but the unquoted value reads as {what}: "
            f'put it in quotes as written, e.g. {loc[-1]}: "..."'
        )
    message = str(err["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    if kind not in ("value_error",) and "input" in err and not isinstance(err["input"], dict):
        message += f" (got {err['input']!r})"
    return message
