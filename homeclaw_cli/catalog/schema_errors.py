"""One pydantic error -> the sentence a descriptor's author reads (plugin.yaml, SKILL.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from homeclaw_cli.document import FieldPath
from homeclaw_cli.suggest import did_you_mean


def schema_message(err: Any, loc: FieldPath, known: Iterable[str]) -> str:
    """The message for `err` at `loc`; `known` are the field names valid beside loc[-1]."""
    kind = err["type"]
    if kind == "extra_forbidden":
        name = str(loc[-1])
        return f"unknown field `{name}`{did_you_mean(name, known)}"
    if kind == "missing":
        return f"missing required field `{loc[-1]}`"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        got = err.get("input")
        hint = did_you_mean(got, re.findall(r"'([^']*)'", expected)) if isinstance(got, str) else ""
        return f"must be one of {expected}, got {got!r}{hint}"
    if kind == "list_type" and isinstance(err.get("input"), str | int | float):
        return f"must be a list: write [{err['input']}] (got the single value {err['input']!r})"
    message = str(err["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    if kind not in ("value_error",) and "input" in err and not isinstance(err["input"], dict):
        message += f" (got {err['input']!r})"
    return message
