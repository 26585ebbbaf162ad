"""What plugin and capability ids may be: names that make valid, unambiguous tool names."""

from __future__ import annotations

import re
import unicodedata

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
RESERVED_PLUGIN_ID = "skill"  # the prefix of the skills' MCP tools (app/skill_tools.py)


def check_id(value: str, what: str) -> str:
    """`value` when it matches ID_RE, else ValueError naming `what` and a suggestion."""
    if not ID_RE.match(value):
        raise ValueError(
            f"{what} {value!r} must match [a-z0-9][a-z0-9_-]* "
            f"(lowercase letters, digits, '-' and '_'; e.g. {_suggest_id(value)!r})"
        )
    return value


def check_plugin_id(value: str) -> str:
    """A capability id's rules, and no '__' (the model's tools are <plugin>__<capability>, so
    `a__b` + `c` and `a` + `b__c` would be one tool) nor the id the skills' MCP tools use."""
    check_id(value, "plugin id")
    if "__" in value:
        raise ValueError(
            f"plugin id {value!r} must not contain '__', which separates a plugin from "
            f"its capability in tool names (e.g. {id_slug(value)!r})"
        )
    if value == RESERVED_PLUGIN_ID:
        raise ValueError(
            f"plugin id {value!r} is taken: `homeclaw mcp serve` names the skills' tools "
            f"{value}__<skill id> (e.g. 'skill-runner')"
        )
    return value


def ascii_folded(name: str) -> str:
    """`name` lowercased, its accented letters as their plain ones ("Café" -> "cafe")."""
    decomposed = unicodedata.normalize("NFKD", name.strip().lower())
    return decomposed.encode("ascii", "ignore").decode()


def id_slug(name: str) -> str:
    """`name` as an id: plain lowercase letters, digits, '-' and single '_' ("" if none)."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", ascii_folded(name))
    return re.sub("_{2,}", "_", slug).strip("-_")


def _suggest_id(value: str) -> str:
    return id_slug(value) or "my-plugin"
