"""Which program runs a skill's script: its shebang, else its extension.

run_skill uses this to build the command, `skill validate` to warn, and eligibility to flag a
skill none of whose scripts could run here.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from homeclaw_cli.errors import HomeclawError

MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin"  # when the user has no PATH at all
MAX_REASONS = 3  # unrunnable scripts one ineligibility reason names
EXTENSION_INTERPRETERS: dict[str, list[str]] = {
    ".py": [sys.executable],
    ".sh": ["sh"],
    ".bash": ["bash"],
    ".js": ["node"],
    ".mjs": ["node"],
    ".cjs": ["node"],
    ".rb": ["ruby"],
    ".pl": ["perl"],
}


class ScriptRefusedError(HomeclawError):
    """run_skill will not run this script (not allowed, not eligible, no interpreter...).

    A failure of the skill, not of the command line that asked for it: exit 1, like a plugin
    call that fails."""


def script_path(env: Mapping[str, str] | None = None) -> str:
    """The user's PATH, where the tools a skill requires were found (Homebrew, ~/.local/bin,
    nvm), without its relative entries: a script runs in its skill's folder, so `.` would let
    the skill's own files stand in for system commands."""
    source = os.environ if env is None else env
    absolute = [p for p in source.get("PATH", "").split(os.pathsep) if Path(p).is_absolute()]
    return os.pathsep.join(dict.fromkeys(absolute)) or MINIMAL_PATH


def interpreter_for(path: Path, search_path: str) -> list[str]:
    """The argv prefix that runs `path`: from its shebang, else from its extension.

    ScriptRefusedError says why there is none; its message does not repeat the file name."""
    shebang = _read_shebang(path)
    if shebang:
        program, *rest = shebang
        if Path(program).name == "env":
            rest = [a for a in rest if a != "-S"]
            if not rest:
                raise ScriptRefusedError(f"shebang `#!{program}` names no program")
            program, *rest = rest
        resolved = _find_program(program, search_path)
        if resolved is None:
            raise ScriptRefusedError(
                f"interpreter {program!r} from its shebang was not found",
                hint=f"install it, or make sure it is on {search_path}",
            )
        return [resolved, *rest]
    interpreter = EXTENSION_INTERPRETERS.get(path.suffix.lower())
    if interpreter is None:
        raise ScriptRefusedError(
            "no interpreter known for it",
            hint="add a `#!` shebang line (e.g. `#!/bin/sh`), or use one of the extensions "
            + ", ".join(EXTENSION_INTERPRETERS),
        )
    program = interpreter[0]
    resolved = _find_program(program, search_path)
    if resolved is None:
        raise ScriptRefusedError(
            f"interpreter {program!r} is not installed",
            hint=f"install {program}, or make sure it is on {search_path}",
        )
    return [resolved, *interpreter[1:]]


def unrunnable_reason(folder: Path, scripts: Sequence[str], env: Mapping[str, str]) -> str | None:
    """Why none of a skill's `scripts` (relative to its scripts/) can run here, or None when
    one can or it has none (a skill of instructions only)."""
    search_path = script_path(env)
    problems: list[str] = []
    for script in scripts:
        try:
            interpreter_for(folder / "scripts" / script, search_path)
        except ScriptRefusedError as exc:
            fix = f"; {exc.hint}" if exc.hint else ""
            problems.append(f"scripts/{script}: {exc.message}{fix}")
        except OSError as exc:
            problems.append(f"scripts/{script}: cannot be read ({exc.strerror})")
        else:
            return None
    if not problems:
        return None
    listed = problems[:MAX_REASONS]
    if len(problems) > MAX_REASONS:
        listed.append(f"... and {len(problems) - MAX_REASONS} more")
    what = "its script cannot run" if len(problems) == 1 else "none of its scripts can run"
    return f"{what}: " + "; ".join(listed)


def _find_program(program: str, search_path: str) -> str | None:
    if program in ("python", "python3") or Path(program).name in ("python", "python3"):
        # Scripts get the Python running homeclaw: the same version on every machine.
        return sys.executable
    if Path(program).is_absolute():
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program, path=search_path)


def _read_shebang(path: Path) -> list[str] | None:
    with path.open("rb") as handle:
        first = handle.readline(512)
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").strip().split()
    return words or None
