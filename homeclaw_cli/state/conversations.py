"""Conversations and tool calls in a local SQLite file (`<state_dir>/conversations.sqlite3`).

One row per turn (message, answer, model, ok/error, timings) and one per tool call, so
`homeclaw logs` can show what was asked, what was called with which arguments, and what failed.
SQLite gives atomic, concurrent-safe appends for free (two REPLs may log at once).
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any, TypedDict

from homeclaw_cli.core.agent import TurnResult
from homeclaw_cli.errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session TEXT NOT NULL,
    ts REAL NOT NULL,
    model TEXT NOT NULL,
    message TEXT NOT NULL,
    answer TEXT NOT NULL,
    ok INTEGER NOT NULL,
    error TEXT,
    seconds REAL NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    trace TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL,
    ok INTEGER NOT NULL,
    output TEXT NOT NULL,
    seconds REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_session ON turns(session);
"""


def log_path(state_dir: Path) -> Path:
    """Where the conversation log lives."""
    return state_dir / "conversations.sqlite3"


def _damaged(path: Path, exc: sqlite3.DatabaseError) -> ConfigError:
    return ConfigError(
        f"{path}: the conversation log cannot be read ({exc})",
        hint="move it aside or delete it (it only holds past conversations); "
        "`homeclaw chat --no-log` chats without it",
    )


class ConversationLog:
    """Appends the turns of one session (the REPL or a one-shot chat)."""

    def __init__(self, path: Path, *, session: str | None = None) -> None:
        self.path = path
        self.session = session or uuid.uuid4().hex[:12]
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=10)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise _damaged(path, exc) from None

    def record(self, model: str, turn: TurnResult) -> int:
        """Append one turn and its tool calls in a single transaction."""
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO turns (session, ts, model, message, answer, ok, error, seconds,"
                " prompt_tokens, trace) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    self.session,
                    time.time(),
                    model,
                    turn.message,
                    turn.answer,
                    int(turn.ok),
                    turn.error,
                    turn.timings.get("total", 0.0),
                    turn.prompt_tokens,
                    json.dumps([s.to_json() for s in turn.steps], default=str),
                ),
            )
            turn_id = int(cursor.lastrowid or 0)
            self._db.executemany(
                "INSERT INTO tool_calls (turn_id, name, arguments, ok, output, seconds)"
                " VALUES (?,?,?,?,?,?)",
                [
                    (
                        turn_id,
                        s.name,
                        json.dumps(s.arguments, default=str),
                        int(s.ok),
                        s.output,
                        s.seconds,
                    )
                    for s in turn.tool_steps()
                ],
            )
        return turn_id

    def close(self) -> None:
        self._db.close()


class LoggedToolCall(TypedDict):
    name: str
    arguments: Any  # as the model sent them (JSON)
    ok: bool
    output: str
    seconds: float


class LoggedTurn(TypedDict):
    id: int
    session: str
    ts: float
    model: str
    message: str
    answer: str
    ok: bool
    error: str | None
    seconds: float
    prompt_tokens: int
    tool_calls: list[LoggedToolCall]


def read_turns(
    path: Path, *, limit: int = 20, session: str | None = None, failed_only: bool = False
) -> list[LoggedTurn]:
    """The latest turns (oldest first) with their tool calls."""
    if not path.is_file():
        return []
    db = sqlite3.connect(path, timeout=10)
    db.row_factory = sqlite3.Row
    try:
        where, params = [], []
        if session:
            where.append("session LIKE ?")
            params.append(session + "%")
        if failed_only:
            where.append("ok = 0")
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = db.execute(
            f"SELECT * FROM turns {clause} ORDER BY id DESC LIMIT ?",  # fixed clauses, values bound
            (*params, limit),
        ).fetchall()
        return [_logged_turn(db, row) for row in reversed(rows)]
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, exc) from None
    finally:
        db.close()


def _logged_turn(db: sqlite3.Connection, row: sqlite3.Row) -> LoggedTurn:
    calls = db.execute(
        "SELECT name, arguments, ok, output, seconds FROM tool_calls WHERE turn_id = ? ORDER BY id",
        (row["id"],),
    ).fetchall()
    return {
        "id": row["id"],
        "session": row["session"],
        "ts": row["ts"],
        "model": row["model"],
        "message": row["message"],
        "answer": row["answer"],
        "ok": bool(row["ok"]),
        "error": row["error"],
        "seconds": row["seconds"],
        "prompt_tokens": row["prompt_tokens"],
        "tool_calls": [
            {
                "name": c["name"],
                "arguments": json.loads(c["arguments"]),
                "ok": bool(c["ok"]),
                "output": c["output"],
                "seconds": c["seconds"],
            }
            for c in calls
        ],
    }


def clear_log(path: Path) -> int:
    """Delete every logged turn; returns how many there were."""
    if not path.is_file():
        return 0
    db = sqlite3.connect(path, timeout=10)
    try:
        with db:
            count = int(db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
            db.execute("DELETE FROM tool_calls")
            db.execute("DELETE FROM turns")
        db.execute("VACUUM")
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, exc) from None
    finally:
        db.close()
    return count
