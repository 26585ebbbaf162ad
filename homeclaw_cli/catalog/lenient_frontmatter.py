"""SKILL.md frontmatter that is not strict YAML, read line by line the way OpenClaw does.

OpenClaw's parser takes `key: rest of line` and lets indented lines continue a value, so an
unquoted `description: a: b` loads there; homeclaw reads such files the same way (with a
warning) instead of refusing them.
"""

from __future__ import annotations

import json
import re
from typing import Any

TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")


def lenient_frontmatter(block: str) -> dict[str, Any]:
    """OpenClaw-style reading: `key: rest of line`, indented lines continue the value."""
    import yaml

    data: dict[str, Any] = {}
    key: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if key is None:
            return
        first, rest = (lines[0] if lines else ""), lines[1:]
        if not rest:
            data[key] = _unquote(first.strip())
            return
        joined = "\n".join([first, *rest]).strip()
        try:
            data[key] = yaml.safe_load(f"{key}:\n" + "\n".join(f"  {ln}" for ln in [first, *rest]))[
                key
            ]
        except yaml.YAMLError:
            data[key] = joined

    for raw_line in block.splitlines():
        match = TOP_KEY.match(raw_line)
        if match and not raw_line[:1].isspace():
            flush()
            key, lines = match.group(1), [match.group(2) or ""]
        elif key is not None:
            lines.append(raw_line)
    flush()
    return data


def _unquote(value: str) -> Any:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        if value[0] == '"':
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                pass
        return value[1:-1]
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value
