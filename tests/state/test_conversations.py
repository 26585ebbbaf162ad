"""The conversation log keeps each turn and its tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.core.trace import LlmStep, ToolStep
from homeclaw_cli.core.turn_result import TurnResult
from homeclaw_cli.errors import ConfigError
from homeclaw_cli.state.conversation_db import SCHEMA
from homeclaw_cli.state.conversations import (
    ConversationLog,
    TurnFilter,
    delete_turns,
    list_sessions,
    log_path,
    read_turns,
    select_turns,
)


def test_a_turn_and_its_tool_calls_read_back(tmp_path: Path) -> None:
    path = log_path(tmp_path)
    turn = TurnResult(
        "weather in Oslo",
        answer="cold",
        steps=[
            LlmStep(0.1, 1, 10, 2, ["weather__now"], "native"),
            ToolStep(0.2, "weather__now", {"city": "Oslo"}, ok=True, output="cold"),
            ToolStep(0.3, "notes__add", "{oops", ok=False, output="no", approval="asked (no)"),
        ],
        timings={"total": 1.5},
    )
    log = ConversationLog(path, session="abc123")
    log.record("qwen", turn)
    log.close()
    [row] = read_turns(path)
    assert (row["session"], row["model"], row["message"], row["answer"]) == (
        "abc123",
        "qwen",
        "weather in Oslo",
        "cold",
    )
    assert row["ok"] is True and row["seconds"] == 1.5
    assert row["tool_calls"] == [
        {
            "name": "weather__now",
            "arguments": {"city": "Oslo"},
            "ok": True,
            "output": "cold",
            "seconds": 0.2,
            "approval": None,
        },
        {
            "name": "notes__add",
            "arguments": "{oops",
            "ok": False,
            "output": "no",
            "seconds": 0.3,
            "approval": "asked (no)",
        },
    ]
    assert read_turns(path, failed_only=True) == [] and read_turns(path, session="zz") == []
    ids, total = select_turns(path, TurnFilter())
    assert delete_turns(path, ids) == 1 == total and read_turns(path) == []


def test_a_log_written_before_status_existed_still_reads_and_filters(tmp_path: Path) -> None:
    import sqlite3

    path = log_path(tmp_path)
    with sqlite3.connect(path) as db:
        old_schema = SCHEMA.replace(",\n    status TEXT,\n    messages TEXT\n", "\n")
        assert "status" not in old_schema.split("tool_calls")[0]
        db.executescript(old_schema)
        for ok in (1, 0):
            db.execute(
                "INSERT INTO turns (session, ts, model, message, answer, ok, error, seconds,"
                " prompt_tokens, trace) VALUES ('s', 0, 'm', 'hi', '', ?, NULL, 0, 0, '[]')",
                (ok,),
            )
    assert [t["status"] for t in read_turns(path)] == ["ok", "failed"]
    ids, total = select_turns(path, TurnFilter(failed_only=True))
    assert (ids, total) == ([2], 2)
    assert delete_turns(path, ids) == 1 and [t["id"] for t in read_turns(path)] == [1]


def test_a_cancelled_turn_is_kept_with_its_status(tmp_path: Path) -> None:
    path = log_path(tmp_path)
    log = ConversationLog(path)
    log.record("qwen", TurnResult("slow one", ok=False, error="cancelled"), cancelled=True)
    log.close()
    [row] = read_turns(path)
    assert row["status"] == "cancelled" and read_turns(path, failed_only=True) == []


def test_a_session_starts_when_its_first_turn_began(tmp_path: Path) -> None:
    path = log_path(tmp_path)
    log = ConversationLog(path, session="s1")
    log.record("qwen", TurnResult("slow one", answer="done", timings={"total": 99.0}))
    log.record("qwen", TurnResult("and again", answer="done", timings={"total": 1.0}))
    log.close()
    [session] = list_sessions(path)
    turns = read_turns(path)
    first_logged = min(t["ts"] for t in turns)
    assert abs(session["started"] - (first_logged - 99.0)) < 0.01  # not when it was logged


def test_a_session_prefix_is_matched_literally(tmp_path: Path) -> None:
    path = log_path(tmp_path)
    for session in ("a_b1", "axb2", "100%x"):
        log = ConversationLog(path, session=session)
        log.record("qwen", TurnResult("hi", answer="hello"))
        log.close()
    assert [r["session"] for r in read_turns(path, session="a_b")] == ["a_b1"]
    assert [r["session"] for r in read_turns(path, session="100%")] == ["100%x"]
    assert read_turns(path, session="%") == []


def test_a_folder_in_place_of_the_log_is_named_not_a_sqlite_error(tmp_path: Path) -> None:
    path = log_path(tmp_path)
    path.mkdir(parents=True)
    with pytest.raises(ConfigError, match=f"{path} is a folder where homeclaw keeps a file"):
        ConversationLog(path, session="s1")
