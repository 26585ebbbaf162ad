"""`homeclaw skill new`: a skill folder that validates and runs at once, with its own test.

The skill has one script, `hello.py NAME`, and a tests.yaml that runs it, so `skill validate`
and `skill test --dir` pass from the first minute; replace both with the real thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from homeclaw_cli.core.ids import ascii_folded
from homeclaw_cli.errors import UsageError

_SKILL_MD = """\
---
name: "{id}"
description: Greets a person by name (replace with what {id} does and when to use it).
version: "0.1.0"
# Requests people would type to reach this skill: they are embedded and searched, so write
# them the way users do (terse ones too). 3-200 characters, at most 10.
examples: ["say hi to Ada", "greet the new intern Sam"]
# Requests it is mistaken for but does not serve; such a request is not offered it.
# not_for: ["send Ada a birthday card"]
# Its script only reads and prints, so homeclaw runs it without asking; drop this line when
# a script changes files or state.
effects: read
---

# {title}

Run the script with the name of the person to greet:

    run_skill(skill_name="{id}", script="hello.py", args=["Ada"])

It prints one line. Tell the user what it printed.
"""

_SCRIPT = '''\
"""Print a greeting for the name given as the first argument."""

import sys

name = sys.argv[1] if len(sys.argv) > 1 else "world"
print(f"Hello, {name}!")
'''

_TESTS = """\
# `homeclaw skill test {id}` runs these (queries need `homeclaw sync`; scripts run as run_skill).
queries:
  - query: greet Ada
scripts:
  - script: hello.py
    args: ["Ada"]
    expect_exit: 0
    expect_stdout: "Hello, Ada!"
"""


@dataclass
class SkillScaffold:
    skill_id: str
    folder: Path
    files: list[str]


def skill_id_from(name: str) -> str:
    """The AgentSkills form of `name`: lowercase letters, digits and hyphens."""
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_folded(name)).strip("-")[:64].strip("-")
    if not slug:
        raise UsageError(
            f"cannot make a skill name from {name!r}",
            hint="use letters and digits, e.g. `homeclaw skill new release-notes`",
        )
    return slug


def scaffold_skill(name: str, directory: Path) -> SkillScaffold:
    """Write SKILL.md, scripts/hello.py and tests.yaml into `directory`/<id>."""
    skill_id = skill_id_from(name)
    folder = directory.expanduser() / skill_id
    if folder.exists():
        raise UsageError(
            f"{folder} already exists", hint="choose another name, or --dir for another place"
        )
    title = skill_id.replace("-", " ").capitalize()
    files = {
        "SKILL.md": _SKILL_MD.format(id=skill_id, title=title),
        "scripts/hello.py": _SCRIPT,
        "tests.yaml": _TESTS.format(id=skill_id),
    }
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return SkillScaffold(skill_id, folder, list(files))
