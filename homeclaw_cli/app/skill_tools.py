"""Skills as tools: how each surface offers them, decided here and nowhere else.

Chat offers two tools, read_skill and run_skill: the <available_skills> prompt block names the
retrieved skills and tells the model to use them, and two tools cost far fewer prompt tokens
than one per installed skill. An MCP client gets no such block, so there each eligible skill is
its own tool `skill__<id>`: called without `script` it returns the instructions, with one it
runs that script. `skill_tools(source, surface)` builds both from the same skills and the same
run operation.

Failures are `ToolOutcome(ok=False)`: bad arguments are refused by the registry's schema check
or here, and the skill runner's refusals (HomeclawError) become outcomes in
`ToolRegistry.execute`. Scripts block for up to skills.script_timeout_sec, so they run in a
thread; when the awaiting task is cancelled (Ctrl-C in chat), the thread is told to kill the
script's process group and the cancellation waits for that before going on.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

from homeclaw_cli.catalog.skill_prompt import READ_SKILL_TOOL, RUN_SKILL_TOOL, read_skill_file
from homeclaw_cli.catalog.skills import SKILL_FILE, Skill, SkillRegistry
from homeclaw_cli.core.approval import EFFECTS, READ_ONLY, Effect
from homeclaw_cli.core.ids import RESERVED_PLUGIN_ID
from homeclaw_cli.core.tool_registry import Handler, Tool, ToolOutcome
from homeclaw_cli.errors import UsageError
from homeclaw_cli.runtime.skill_run import ScriptResult, run_skill
from homeclaw_cli.settings import Settings

Surface = Literal["chat", "mcp"]
SKILL_TOOL_PREFIX = f"{RESERVED_PLUGIN_ID}__"  # no plugin may take that id
_OPTION_AND_VALUE = re.compile(r"(--?[A-Za-z][\w-]*)\s+(\S.*)")  # "--top 10"


class SkillSource(Protocol):
    """The skills a surface offers and the two operations behind their tools."""

    def skills(self) -> Mapping[str, Skill]: ...

    def read(self, skill_id: str, path: str) -> str:
        """A text file inside an eligible skill's folder; HomeclawError when refused."""
        ...

    def run(
        self,
        skill_id: str,
        script: str,
        args: list[str],
        cancel: threading.Event | None = None,
    ) -> ScriptResult:
        """Run one of the skill's scripts, contained; HomeclawError when refused, and
        when `cancel` is set the script is killed (ScriptCancelledError)."""
        ...


class ScannedSkills:
    """SkillSource over a scanned SkillRegistry (an AppContext's skill_registry)."""

    def __init__(
        self, settings: Settings, registry: SkillRegistry, *, caller_cwd: Path | None = None
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.caller_cwd = caller_cwd

    def skills(self) -> Mapping[str, Skill]:
        return self.registry.skills

    def read(self, skill_id: str, path: str) -> str:
        if not self.registry.get(skill_id).eligible:
            raise UsageError(f"skill {skill_id!r} is not available here")
        return read_skill_file(self.registry, skill_id, path)

    def run(
        self,
        skill_id: str,
        script: str,
        args: list[str],
        cancel: threading.Event | None = None,
    ) -> ScriptResult:
        return run_skill(
            self.settings,
            skill_id,
            script,
            args,
            registry=self.registry,
            caller_cwd=self.caller_cwd,
            cancel=cancel,
        )


def skill_tool_name(skill_id: str) -> str:
    """The MCP tool of one skill: `skill__<id>` (MCP clients rely on it)."""
    return SKILL_TOOL_PREFIX + skill_id


def skill_tools(source: SkillSource, surface: Surface) -> list[Tool]:
    """The skill tools `surface` offers (see the module docstring for why they differ)."""
    eligible = {sid: s for sid, s in sorted(source.skills().items()) if s.eligible}
    if surface == "mcp":
        return [_own_tool(source, sid, skill) for sid, skill in eligible.items()]
    read = _from_definition(READ_SKILL_TOOL, _read_skill(source))
    read.choice_args = frozenset({"skill", "path"})
    tools = [read]
    if any(s.scripts for s in eligible.values()):
        run = _from_definition(RUN_SKILL_TOOL, _run_skill(source))
        run.choice_args = frozenset({"skill_name", "script"})
        run.effects_of = _script_effects(source, "skill_name")
        run.mend = _mend_run
        tools.append(run)
    return tools


# --- chat: read_skill / run_skill ------------------------------------------------------------


def _from_definition(definition: dict[str, Any], handler: Handler) -> Tool:
    function = definition["function"]
    return Tool(function["name"], function["description"], function["parameters"], handler, "skill")


def skill_effects(skill: Skill | None) -> frozenset[Effect]:
    """What a skill's scripts may do: `effects:` in its SKILL.md frontmatter (read, write,
    network, destructive), else write: a script is code that could change anything."""
    declared = skill.frontmatter.get("effects") if skill is not None else None
    names = [declared] if isinstance(declared, str) else declared
    if isinstance(names, list) and names and all(n in EFFECTS for n in names):
        return frozenset(names)
    return frozenset({"write"})


def _script_effects(
    source: SkillSource, key: str
) -> Callable[[dict[str, Any]], tuple[str | None, frozenset[Effect]]]:
    """The run's effects come from the skill named in the call (`key` in its arguments)."""

    def effects_of(args: dict[str, Any]) -> tuple[str | None, frozenset[Effect]]:
        skill_id = str(args.get(key) or "")
        return skill_id or None, skill_effects(source.skills().get(skill_id))

    return effects_of


def _mend_run(args: dict[str, Any]) -> dict[str, Any]:
    """run_skill's repair of what small models get wrong: an option and its value written as
    one argument (`"--sample 3"`, which argparse takes for an unknown positional) are two.

    A script name the skill does not have is never swapped for one it has, even when it has
    only one: running code the model did not name is acting for it. The refusal lists the
    skill's scripts, so the model can call again with a real one."""
    argv = args.get("args")
    return {**args, "args": split_options(argv)} if isinstance(argv, list) else args


def split_options(argv: list[Any]) -> list[Any]:
    """`["--top 10"]` as `["--top", "10"]`; `--name=Ada Lovelace` and values stay whole."""
    out: list[Any] = []
    for arg in argv:
        joined = _OPTION_AND_VALUE.fullmatch(arg) if isinstance(arg, str) else None
        out += [joined.group(1), joined.group(2)] if joined else [arg]
    return out


def _read_skill(source: SkillSource) -> Handler:
    async def read_skill(args: dict[str, Any]) -> ToolOutcome:
        path = args.get("path") or SKILL_FILE
        text = await asyncio.to_thread(source.read, _string(args, "skill"), path)
        return ToolOutcome(True, text)

    return read_skill


def _run_skill(source: SkillSource) -> Handler:
    async def run_skill(args: dict[str, Any]) -> ToolOutcome:
        skill_id, script = _string(args, "skill_name"), _string(args, "script")
        return await _run(source, skill_id, script, args.get("args") or [], ScriptResult.for_model)

    return run_skill


# --- MCP: one tool per skill -----------------------------------------------------------------


def _own_tool(source: SkillSource, skill_id: str, skill: Skill) -> Tool:
    async def call(args: dict[str, Any]) -> ToolOutcome:
        script = args.get("script")
        if not script:
            if not skill.scripts:
                return ToolOutcome(True, f"{skill.body}\n\n(scripts: none)")
            how = (  # SKILL.md speaks of chat's run_skill tool, which MCP clients do not have
                f"(scripts: {', '.join(skill.scripts)}; to run one, call this tool, "
                f'{skill_tool_name(skill_id)}, with {{"script": ..., "args": [...]}}: that is '
                "what run_skill means in the instructions above)"
            )
            return ToolOutcome(True, f"{skill.body}\n\n{how}")
        return await _run(source, skill_id, str(script), args.get("args") or [], _script_text)

    text = f"[skill {skill.name}] {skill.description}"
    if skill.scripts:
        text += f" Call without `script` for its instructions; scripts: {', '.join(skill.scripts)}."
    else:
        text += " Returns the skill's instructions."
    effects = skill_effects(skill) if skill.scripts else READ_ONLY
    tool = Tool(skill_tool_name(skill_id), text, _own_schema(skill.scripts), call, "skill")
    tool.effects = effects  # what MCP clients are told; a call without `script` only reads
    return tool


def _own_schema(scripts: list[str]) -> dict[str, Any]:
    if not scripts:
        return {"type": "object", "properties": {}}
    return {
        "type": "object",
        "properties": {
            "script": {
                "type": "string",
                "enum": scripts,
                "description": "Script to run (from the skill's scripts/ folder).",
            },
            "args": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Command-line arguments for the script.",
            },
        },
    }


def _script_text(result: ScriptResult) -> str:
    """The script's output as an MCP client shows it: stdout first, then what went wrong."""
    text = result.stdout
    if result.stderr:
        text += f"\n[stderr]\n{result.stderr}"
    if result.timed_out:
        text += "\n[timed out]"
    elif result.exit_code != 0:
        text += f"\n[exit code {result.exit_code}]"
    return text


# --- shared ----------------------------------------------------------------------------------


async def _run(
    source: SkillSource,
    skill_id: str,
    script: str,
    args: Any,
    render: Callable[[ScriptResult], str],
) -> ToolOutcome:
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return ToolOutcome(False, "`args` must be a list of strings")
    cancel = threading.Event()
    work = asyncio.ensure_future(asyncio.to_thread(source.run, skill_id, script, args, cancel))
    try:
        result = await asyncio.shield(work)
    except asyncio.CancelledError:
        cancel.set()  # seen within one poll of the script's output; its group is killed
        with contextlib.suppress(Exception):
            await work
        raise
    unread = result.stdout.strip() if result.ok else ""
    return ToolOutcome(result.ok, render(result), unread=unread or None)


def _string(arguments: Mapping[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value:
        raise UsageError(f"`{key}` is required and must be a string")
    return value
