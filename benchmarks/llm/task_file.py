"""Writing a task file for `homeclaw eval chat` from a converted public set."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml


def clone_commit(path: Path) -> str:
    """The short commit of the git clone holding `path`, or '?' when it is not in one."""
    found = subprocess.run(
        ["git", "-C", str(path.parent), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return found or "?"


def write_tasks(out: Path, header: str, tasks: list[dict[str, Any]], what: str = "tasks") -> None:
    """`header` (comment lines) and `tasks` as YAML into `out`; says how many on stdout."""
    body = yaml.safe_dump({"tasks": tasks}, sort_keys=False, allow_unicode=True, width=100)
    out.write_text(header + body, encoding="utf-8")
    print(f"{len(tasks)} {what} -> {out}")
