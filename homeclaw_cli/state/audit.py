"""The audit log: one JSON object per line in `<data_dir>/audit.jsonl`.

Installs, upgrades, removals, approvals, enable/disable and every tool call that needed a
decision (anything but a plain read, in chat or through `mcp serve`) are appended with a
timestamp.
Each line is written with one O_APPEND write under the audit lock, so concurrent homeclaw
processes never interleave half-lines.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from homeclaw_cli.core.approval import ApprovalRecord, ToolAction
from homeclaw_cli.errors import HomeclawError, not_readable
from homeclaw_cli.fsutil import file_lock, writing

AUDIT_NAME = "audit.jsonl"


def audit_path(data_dir: Path) -> Path:
    return data_dir / AUDIT_NAME


def record(data_dir: Path, action: str, item_id: str, **details: Any) -> dict[str, Any]:
    """Append one event; returns it."""
    event = {
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
        "action": action,
        "id": item_id,
        "user": os.environ.get("USER", ""),
        **details,
    }
    path = audit_path(data_dir)
    line = json.dumps(event, sort_keys=False, default=str) + "\n"
    try:
        with file_lock(path.with_name(".audit.lock"), what="the audit log"), writing(path):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
    except HomeclawError as exc:  # what it records has happened: the error must not hide that
        done = f"`{action} {item_id}` took effect, but the audit log has no line for it: "
        raise type(exc)(done + exc.message, hint=exc.hint) from None
    return event


def read_events(
    data_dir: Path, *, item_id: str | None = None, action: str | None = None, limit: int = 0
) -> list[dict[str, Any]]:
    """Events oldest first, filtered; the last `limit` when limit > 0. Bad lines are skipped."""
    path = audit_path(data_dir)
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise not_readable(path, exc.strerror or str(exc)) from None
    events: list[dict[str, Any]] = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if item_id and event.get("id") != item_id:
            continue
        if action and event.get("action") != action:
            continue
        events.append(event)
    return events[-limit:] if limit > 0 else events


def record_tool_decision(data_dir: Path, action: ToolAction, decision: ApprovalRecord) -> None:
    """One call that needed a decision: what it was, and whether and how it was allowed."""
    record(
        data_dir,
        "tool-approval",
        action.rule_keys[0],
        tool=action.tool,
        arguments=action.arguments,
        effects=sorted(action.effects),
        allowed=decision.allowed,
        decided=decision.how,
        answer=decision.answer,
        reason=decision.reason,
    )
