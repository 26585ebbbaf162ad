"""Conversations and tool calls in a local SQLite file (`<state_dir>/conversations.sqlite3`).

One row per turn (message, answer, model, status ok/failed/cancelled, error, timings, and the
messages the turn added to the conversation as the model saw them) and one per tool call, so
`homeclaw logs` can show what was asked, what was called with which arguments, and what
failed, and `homeclaw chat --continue` can pick a conversation up again. SQLite gives atomic,
concurrent-safe appends for free (two REPLs may log at once). `logs --clear` deletes exactly
the turns a TurnFilter selects.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

from homeclaw_cli.core.turn_result import TurnResult
from homeclaw_cli.errors import NotFoundError, UsageError
from homeclaw_cli.fsutil import writing
from homeclaw_cli.state.conversation_db import damaged, open_log, require_writable

TurnStatus = Literal["ok", "failed", "cancelled"]
_DELETE_CHUNK = 500  # ids per DELETE ... IN (...), under SQLite's bound-variable limit


def log_path(state_dir: Path) -> Path:
    """Where the conversation log lives."""
    return state_dir / "conversations.sqlite3"


def like_escaped(text: str) -> str:
    """`text` matched literally by LIKE ... ESCAPE '\\' (its % and _ are not wildcards)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass(frozen=True)
class TurnFilter:
    """Which logged turns `homeclaw logs` shows or clears; limit None: all that match."""

    session: str | None = None
    failed_only: bool = False
    limit: int | None = None
    text: str | None = None  # in the message, the answer or the error (any case)

    def where(self) -> tuple[str, list[Any]]:
        """The WHERE clause (fixed text, values bound) and its parameters."""
        where, params = [], []
        if self.session:
            where.append("session LIKE ? ESCAPE '\\'")
            params.append(like_escaped(self.session) + "%")
        if self.failed_only:
            # Rows logged before `status` existed have NULL there: their `ok` decides.
            where.append("ok = 0 AND COALESCE(status, 'failed') = 'failed'")
        if self.text:
            where.append(
                "(message LIKE ? ESCAPE '\\' OR answer LIKE ? ESCAPE '\\'"
                " OR COALESCE(error, '') LIKE ? ESCAPE '\\')"
            )
            params += [f"%{like_escaped(self.text)}%"] * 3
        return (f"WHERE {' AND '.join(where)}" if where else ""), params

    def newest(self, columns: str) -> tuple[str, list[Any]]:
        """SELECT `columns` of the selected turns, newest first."""
        clause, params = self.where()
        limit = "LIMIT ?" if self.limit is not None else ""
        if self.limit is not None:
            params.append(self.limit)
        return f"SELECT {columns} FROM turns {clause} ORDER BY id DESC {limit}", params


class ConversationLog:
    """Appends the turns of one session (the REPL or a one-shot chat)."""

    def __init__(self, path: Path, *, session: str | None = None) -> None:
        self.path = path
        self.session = session or uuid.uuid4().hex[:12]
        with writing(path):
            path.parent.mkdir(parents=True, exist_ok=True)
        require_writable(path)
        self._db = open_log(path, write=True)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise damaged(path, exc) from None

    def record(self, model: str, turn: TurnResult, *, cancelled: bool = False) -> int:
        """Append one turn and its tool calls in a single transaction; a turn the user
        cancelled is kept with the status `cancelled` and what it did until then."""
        status: TurnStatus = "cancelled" if cancelled else ("ok" if turn.ok else "failed")
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO turns (session, ts, model, message, answer, ok, error, seconds,"
                " prompt_tokens, trace, status, messages) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
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
                    status,
                    json.dumps(turn.exchange, default=str) if turn.exchange else None,
                ),
            )
            turn_id = int(cursor.lastrowid or 0)
            self._db.executemany(
                "INSERT INTO tool_calls (turn_id, name, arguments, ok, output, seconds, approval)"
                " VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        turn_id,
                        s.name,
                        json.dumps(s.arguments, default=str),
                        int(s.ok),
                        s.output,
                        s.seconds,
                        s.approval,
                    )
                    for s in turn.tool_steps()
                ],
            )
        return turn_id

    def new_session(self) -> str:
        """Log the next turns under a fresh session id (after /clear), so that continuing
        the conversation later does not bring back what was cleared."""
        self.session = uuid.uuid4().hex[:12]
        return self.session

    def close(self) -> None:
        self._db.close()


class LoggedToolCall(TypedDict):
    name: str
    arguments: Any  # as the model sent them (JSON)
    ok: bool
    output: str
    seconds: float
    approval: str | None  # how a call that was not a plain read was allowed or refused


class LoggedTurn(TypedDict):
    id: int
    session: str
    ts: float
    model: str
    message: str
    answer: str
    ok: bool
    status: TurnStatus
    error: str | None
    seconds: float
    prompt_tokens: int
    tool_calls: list[LoggedToolCall]
    messages: list[dict[str, Any]] | None  # the turn as the model saw it (None: not kept)


def read_turns(
    path: Path,
    *,
    limit: int | None = 20,
    session: str | None = None,
    failed_only: bool = False,
    text: str | None = None,
) -> list[LoggedTurn]:
    """The latest turns (oldest first) with their tool calls; limit None: all that match."""
    if not path.is_file():
        return []
    db = open_log(path)
    db.row_factory = sqlite3.Row
    try:
        query, params = TurnFilter(session, failed_only, limit, text).newest("*")
        rows = db.execute(query, params).fetchall()
        return [_logged_turn(db, row) for row in reversed(rows)]
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    finally:
        db.close()


def _logged_turn(db: sqlite3.Connection, row: sqlite3.Row) -> LoggedTurn:
    calls = db.execute(
        "SELECT name, arguments, ok, output, seconds, approval FROM tool_calls"
        " WHERE turn_id = ? ORDER BY id",
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
        "status": row["status"] or ("ok" if row["ok"] else "failed"),
        "error": row["error"],
        "seconds": row["seconds"],
        "prompt_tokens": row["prompt_tokens"],
        "messages": json.loads(row["messages"]) if row["messages"] else None,
        "tool_calls": [
            {
                "name": c["name"],
                "arguments": json.loads(c["arguments"]),
                "ok": bool(c["ok"]),
                "output": c["output"],
                "seconds": c["seconds"],
                "approval": c["approval"],
            }
            for c in calls
        ],
    }


def select_turns(path: Path, selection: TurnFilter) -> tuple[list[int], int]:
    """The ids of the turns `selection` picks, and how many turns are logged in all."""
    if not path.is_file():
        return [], 0
    db = open_log(path)
    try:
        query, params = selection.newest("id")
        ids = [int(row[0]) for row in db.execute(query, params)]
        total = int(db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    finally:
        db.close()
    return ids, total


def delete_turns(path: Path, ids: Sequence[int]) -> int:
    """Delete these turns and their tool calls in one transaction; returns how many went."""
    if not ids or not path.is_file():
        return 0
    require_writable(path)
    db = open_log(path, write=True)
    deleted = 0
    try:
        with db:
            for start in range(0, len(ids), _DELETE_CHUNK):
                chunk = list(ids[start : start + _DELETE_CHUNK])
                marks = ",".join("?" * len(chunk))
                db.execute(f"DELETE FROM tool_calls WHERE turn_id IN ({marks})", chunk)
                deleted += db.execute(f"DELETE FROM turns WHERE id IN ({marks})", chunk).rowcount
        if db.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == 0:
            db.execute("VACUUM")  # nothing left: give the space back
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    finally:
        db.close()
    return deleted


# --- whole sessions: `chat --continue/--session`, `logs show`, `/sessions` -------------------


class SessionSummary(TypedDict):
    session: str
    started: float
    last: float
    turns: int
    model: str  # of the newest turn
    first_message: str


def _query(path: Path, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
    if not path.is_file():
        return []
    db = open_log(path)
    db.row_factory = sqlite3.Row
    try:
        return db.execute(sql, params).fetchall()
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    finally:
        db.close()


def list_sessions(path: Path, *, limit: int = 10) -> list[SessionSummary]:
    """The most recently active conversations, newest first."""
    rows = _query(
        path,
        "SELECT session, MIN(ts - seconds) AS started, MAX(ts) AS last, COUNT(*) AS turns,"
        " (SELECT model FROM turns t2 WHERE t2.session = t.session ORDER BY id DESC LIMIT 1)"
        " AS model, (SELECT message FROM turns t3 WHERE t3.session = t.session ORDER BY id"
        " LIMIT 1) AS first_message FROM turns t GROUP BY session ORDER BY MAX(id) DESC LIMIT ?",
        (limit,),
    )
    return [
        {
            "session": r["session"],
            "started": r["started"],
            "last": r["last"],
            "turns": r["turns"],
            "model": r["model"],
            "first_message": r["first_message"],
        }
        for r in rows
    ]


def require_session(path: Path, prefix: str) -> None:
    """NotFoundError, as `resolve_session` words it, when no logged conversation's id starts
    with `prefix` (`logs --session` filters by prefix: several may match)."""
    if not _sessions_like(path, prefix, limit=1):
        raise _no_session(prefix)


def _sessions_like(path: Path, prefix: str, *, limit: int) -> list[str]:
    """Up to `limit` session ids that start with `prefix`, sorted."""
    escaped = like_escaped(prefix)
    rows = _query(
        path,
        "SELECT DISTINCT session FROM turns WHERE session LIKE ? ESCAPE '\\' LIMIT ?",
        (escaped + "%", limit),
    )
    return sorted(str(r["session"]) for r in rows)


def _no_session(wanted: str) -> NotFoundError:
    return NotFoundError(
        f"no logged conversation has the id {wanted}",
        hint="`homeclaw logs` lists recent turns with their SESSION ids",
    )


def resolve_session(path: Path, wanted: str | None) -> str:
    """The full id of session `wanted` (an id or a unique prefix), or of the newest one
    when `wanted` is None; NotFoundError / UsageError say what to type instead."""
    if wanted is None:
        rows = _query(path, "SELECT session FROM turns ORDER BY id DESC LIMIT 1")
        if not rows:
            raise NotFoundError(
                "no earlier conversation to continue", hint="start one with `homeclaw chat`"
            )
        return str(rows[0]["session"])
    ids = _sessions_like(path, wanted, limit=5)
    if wanted in ids:
        return wanted
    if not ids:
        raise _no_session(wanted)
    if len(ids) > 1:
        raise UsageError(
            f"session id {wanted} is ambiguous: {', '.join(ids)}", hint="give more characters"
        )
    return ids[0]


def read_exchanges(path: Path, session: str, *, limit: int) -> list[list[dict[str, Any]]]:
    """The last `limit` answered turns of `session`, oldest first, as the model saw them:
    the user's message, tool calls and results, the answer. Turns logged before the
    messages were kept come back as the message and its answer."""
    rows = _query(
        path,
        "SELECT message, answer, messages FROM turns WHERE session = ?"
        " AND COALESCE(status, CASE ok WHEN 1 THEN 'ok' ELSE 'failed' END) = 'ok'"
        " ORDER BY id DESC LIMIT ?",
        (session, limit),
    )
    exchanges: list[list[dict[str, Any]]] = []
    for row in reversed(rows):
        if row["messages"]:
            exchanges.append(json.loads(row["messages"]))
        else:
            exchanges.append(
                [
                    {"role": "user", "content": row["message"]},
                    {"role": "assistant", "content": row["answer"]},
                ]
            )
    return exchanges
