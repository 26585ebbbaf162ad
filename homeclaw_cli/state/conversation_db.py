"""The SQLite file of the conversation log: its schema, how it is opened (read-only homes
included) and what its errors tell the user."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from homeclaw_cli.errors import (
    ConfigError,
    HomeclawError,
    LockedError,
    not_readable,
    not_writable,
)
from homeclaw_cli.fsutil import folder_in_the_way

BUSY_TIMEOUT_SEC = 10.0  # how long a writer waits for another one
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
    trace TEXT NOT NULL,
    status TEXT,
    messages TEXT
);
CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL,
    ok INTEGER NOT NULL,
    output TEXT NOT NULL,
    seconds REAL NOT NULL,
    approval TEXT
);
CREATE INDEX IF NOT EXISTS turns_session ON turns(session);
CREATE INDEX IF NOT EXISTS tool_calls_turn ON tool_calls(turn_id);
"""


def damaged(path: Path, exc: sqlite3.DatabaseError) -> HomeclawError:
    """What a failed read or write of the log tells the user: another writer that held it
    past BUSY_TIMEOUT_SEC is no damage, and the log is not to be deleted for it."""
    if "database is locked" in str(exc):
        return LockedError(
            f"another homeclaw process is writing the conversation log {path}",
            hint="wait for it to finish, then run the command again",
        )
    return ConfigError(
        f"{path}: the conversation log cannot be read ({exc})",
        hint="move it aside or delete it (it only holds past conversations); "
        "`homeclaw chat --no-log` chats without it",
    )


def require_writable(path: Path) -> None:
    """SQLite opens a file it may not write read-only and fails later with a misleading
    "unable to open database file" or "readonly database"; say what is wrong at once."""
    if not os.access(path.parent, os.W_OK):
        raise not_writable(path.parent)
    if path.exists() and not os.access(path, os.W_OK):
        raise not_writable(path)


def open_log(path: Path, *, write: bool = False) -> sqlite3.Connection:
    """A connection with the current schema (older logs gain the columns added since).

    A reader that may not write the log or its folder opens it immutable: SQLite cannot
    create the -shm file a WAL log needs, and no one who may write it is this user."""
    if path.is_dir():
        raise folder_in_the_way(path)
    if path.exists() and not os.access(path, os.R_OK):
        raise not_readable(path)
    if write or (os.access(path.parent, os.W_OK) and os.access(path, os.W_OK)):
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SEC)
    else:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    try:
        db.executescript(SCHEMA)
        for table, column in (
            ("turns", "status"),
            ("turns", "messages"),
            ("tool_calls", "approval"),
        ):
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise damaged(path, exc) from None
    return db
