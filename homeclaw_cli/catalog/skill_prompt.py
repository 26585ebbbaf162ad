"""The `<available_skills>` system-prompt block and the read helper behind `read_skill`.

Only retrieved, eligible skills go in, each as name, description and location (plus the id
run_skill takes when it differs from the name, and its scripts). The body stays on disk: the
model reads a chosen skill's SKILL.md on demand through `read_skill`, which can only read
files inside skill folders, so the prompt stays small however many skills are installed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from xml.sax.saxutils import escape

from homeclaw_cli.catalog.skill_paths import resolve_inside
from homeclaw_cli.catalog.skills import SKILL_FILE, Skill, SkillRegistry
from homeclaw_cli.core.retrieval import RetrievalHit
from homeclaw_cli.errors import UsageError

MAX_READ_BYTES = 256 * 1024
MAX_SCRIPTS_LISTED = 12

SKILLS_INSTRUCTION = (
    "Skills are optional, step-by-step workflows for specific tasks. Before replying, scan "
    "<available_skills>: if exactly one skill clearly applies, call read_skill with its id "
    "to read its SKILL.md, then follow it. Read at most one skill up front; never guess a "
    "skill's steps without reading it. A skill's scripts run only through run_skill "
    "(skill_name = the skill's id, script = a name from <scripts>, args = a list of strings)."
)


def skills_for_prompt(hits: Iterable[RetrievalHit], registry: SkillRegistry) -> list[Skill]:
    """Kept skill hits that still exist on disk and are eligible, in retrieval order."""
    chosen: list[Skill] = []
    for hit in hits:
        if hit.kind != "skill" or not hit.kept:
            continue
        skill = registry.skills.get(hit.id)
        if skill is not None and skill.eligible and skill.skill_md.is_file():
            chosen.append(skill)
    return chosen


def build_skills_block(skills: Sequence[Skill], *, with_instruction: bool = True) -> str:
    """The `<available_skills>` block for eligible `skills`; "" when there are none."""
    eligible = [s for s in skills if s.eligible]
    if not eligible:
        return ""
    lines = [SKILLS_INSTRUCTION, ""] if with_instruction else []
    lines.append("<available_skills>")
    for skill in eligible:
        lines.append("  <skill>")
        lines.append(f"    <name>{escape(skill.name)}</name>")
        if skill.id != skill.name:
            lines.append(f"    <id>{escape(skill.id)}</id>")
        lines.append(f"    <description>{escape(skill.description)}</description>")
        lines.append(f"    <location>{escape(str(skill.skill_md))}</location>")
        if skill.scripts:
            shown = skill.scripts[:MAX_SCRIPTS_LISTED]
            more = len(skill.scripts) - len(shown)
            listed = ", ".join(shown) + (f", ... ({more} more)" if more > 0 else "")
            lines.append(f"    <scripts>{escape(listed)}</scripts>")
        lines.append("  </skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)


def read_skill_file(
    registry: SkillRegistry,
    skill_id: str,
    path: str = SKILL_FILE,
    *,
    max_bytes: int = MAX_READ_BYTES,
) -> str:
    """Text of `path` (default SKILL.md) inside skill `skill_id`'s folder, for read_skill.

    Relative paths only; no `..`; symlinks may not lead out of the folder; text files only.
    """
    skill = registry.get(skill_id)
    real = resolve_inside(skill.folder, path or SKILL_FILE, what="file", skill_id=skill.id)
    size = real.stat().st_size
    with real.open("rb") as handle:
        raw = handle.read(max_bytes + 1)
    if b"\x00" in raw[:8192]:
        raise UsageError(f"{path!r} in skill {skill.id!r} is a binary file; read_skill reads text")
    text = raw[:max_bytes].decode("utf-8", "replace")
    if size > max_bytes:
        text += f"\n[... cut at {max_bytes} of {size} bytes]"
    return text


READ_SKILL_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_skill",
        "description": (
            "Read a skill's SKILL.md (or another file inside that skill's folder) before "
            "following the skill."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill id from <available_skills>."},
                "path": {
                    "type": "string",
                    "description": "File inside the skill folder; default SKILL.md.",
                },
            },
            "required": ["skill"],
        },
    },
}

RUN_SKILL_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "run_skill",
        "description": "Run a script from a skill's scripts/ folder and get its output.",
        "parameters": {
            "type": "object",
            "properties": {
                "skill_name": {"type": "string", "description": "The skill id."},
                "script": {"type": "string", "description": "A script listed in <scripts>."},
                "args": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Arguments, one string each (no shell).",
                },
            },
            "required": ["skill_name", "script"],
        },
    },
}
