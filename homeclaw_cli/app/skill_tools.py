"""The two skill tools an agent offers the model: read_skill and run_skill.

`call_skill_tool` turns a tool call into the text the model gets back; refusals and bad
arguments come back as `error: ...` text (the model can correct itself), never as exceptions.
run_skill blocks for up to skills.script_timeout_sec: async callers use asyncio.to_thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.skill_prompt import READ_SKILL_TOOL, RUN_SKILL_TOOL, read_skill_file
from homeclaw_cli.catalog.skills import SKILL_FILE, SkillRegistry
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.runtime.skill_run import run_skill
from homeclaw_cli.settings import Settings

SKILL_TOOL_NAMES = ("read_skill", "run_skill")


def skill_tools(registry: SkillRegistry) -> list[dict[str, Any]]:
    """Tool schemas to offer: read_skill always, run_skill when some eligible skill has scripts."""
    tools = [READ_SKILL_TOOL]
    if any(s.scripts for s in registry.eligible()):
        tools.append(RUN_SKILL_TOOL)
    return tools


def call_skill_tool(
    settings: Settings,
    registry: SkillRegistry,
    name: str,
    arguments: Mapping[str, Any],
    *,
    caller_cwd: Path | None = None,
) -> str:
    """Run one read_skill/run_skill call; the returned text goes back to the model."""
    try:
        if name == "read_skill":
            skill = _string(arguments, "skill")
            path = arguments.get("path") or SKILL_FILE
            if not isinstance(path, str):
                return "error: `path` must be a string"
            if not registry.get(skill).eligible:
                return f"error: skill {skill!r} is not available here"
            return read_skill_file(registry, skill, path)
        if name == "run_skill":
            args = arguments.get("args") or []
            if not isinstance(args, list):
                return "error: `args` must be a list of strings"
            result = run_skill(
                settings,
                _string(arguments, "skill_name"),
                _string(arguments, "script"),
                args,
                registry=registry,
                caller_cwd=caller_cwd,
            )
            return result.for_model()
    except HomeclawError as exc:
        return f"error: {exc.message}" + (f" ({exc.hint})" if exc.hint else "")
    return f"error: unknown skill tool {name!r}; use one of {', '.join(SKILL_TOOL_NAMES)}"


class _ArgumentError(HomeclawError):
    pass


def _string(arguments: Mapping[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value:
        raise _ArgumentError(f"`{key}` is required and must be a string")
    return value
