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


def intents_header(items: list[dict[str, Any]], source: str, written_by: str) -> str:
    """The header of a task file sampled from an intent set: where its requests come from
    (`source`: the set, its commit, licence and authors), how many a bundled plugin serves,
    and the command that wrote it."""
    served = sum(1 for t in items if "no_plugin" not in t)
    return (
        f"# {len(items)} chat tasks from {source}: {served} whose intent a bundled plugin\n"
        f"# serves, {len(items) - served} of other intents, which no plugin serves.\n"
        f"# Written by {written_by}.\n"
    )
