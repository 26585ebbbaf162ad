"""`homeclaw logs --clear`: deletes exactly what the filters select, and asks first."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.core.trace import ToolStep
from homeclaw_cli.core.turn_result import TurnResult
from homeclaw_cli.settings import load_settings
from homeclaw_cli.state.conversations import ConversationLog, log_path, read_turns
from tests.json_output import envelope, payload


def log_turns(session: str, *outcomes: str) -> Path:
    """One turn per outcome ("ok", "failed", "cancelled"), each with one tool call."""
    path = log_path(load_settings().state_dir)
    log = ConversationLog(path, session=session)
    for i, outcome in enumerate(outcomes):
        turn = TurnResult(
            f"{session} message {i}",
            answer="fine" if outcome == "ok" else "",
            ok=outcome == "ok",
            error=None if outcome == "ok" else outcome,
            steps=[ToolStep(0.1, "notes__add", {"i": i}, ok=outcome == "ok", output="x")],
        )
        log.record("qwen", turn, cancelled=outcome == "cancelled")
    log.close()
    return path


def messages(path: Path) -> list[str]:
    return [t["message"] for t in read_turns(path, limit=100)]


def test_clear_failed_deletes_only_failed_turns_and_their_tool_calls(
    cli: Any, hc_home: Path
) -> None:
    path = log_turns("aaa111", "ok", "failed", "cancelled", "ok")
    result = cli("logs", "--clear", "--failed", "--yes", "--json")
    assert result.exit_code == 0, result.output
    assert payload(result) == {"deleted": 1, "remaining": 3, "turn_ids": [2]}
    assert messages(path) == ["aaa111 message 0", "aaa111 message 2", "aaa111 message 3"]
    import sqlite3

    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT turn_id FROM tool_calls")] == [1, 3, 4]


def test_clear_session_and_limit_select_the_newest_of_that_session(cli: Any, hc_home: Path) -> None:
    log_turns("aaa111", "ok", "ok")
    path = log_turns("bbb222", "ok", "failed", "ok")
    result = cli("logs", "--clear", "--session", "bbb", "-n", "2", "--yes")
    assert result.exit_code == 0 and "deleted 2 of 5 logged turns" in result.stderr
    assert messages(path) == ["aaa111 message 0", "aaa111 message 1", "bbb222 message 0"]


def test_clear_off_a_terminal_needs_yes_and_deletes_nothing(cli: Any, hc_home: Path) -> None:
    path = log_turns("aaa111", "ok", "failed")
    result = cli("logs", "--clear", "--failed")
    assert result.exit_code == 2
    assert "delete 1 of 2 logged turns" in result.stderr and "--yes" in result.stderr
    assert len(messages(path)) == 2


@pytest.mark.parametrize(("answer", "left"), [("y\n", 1), ("n\n", 2), ("\n", 2)])
def test_clear_on_a_terminal_asks_default_no(
    cli: Any, hc_home: Path, monkeypatch: pytest.MonkeyPatch, answer: str, left: int
) -> None:
    from homeclaw_cli.surfaces.cli import confirm

    monkeypatch.setattr(confirm, "on_terminal", lambda: True)
    path = log_turns("aaa111", "ok", "failed")
    result = cli("logs", "--clear", "--failed", input=answer)
    assert "Delete 1 of 2 logged turns? [y/N]" in result.stderr
    assert result.exit_code == (0 if left == 1 else 1)
    assert len(messages(path)) == left


def test_nothing_selected_asks_nothing(cli: Any, hc_home: Path) -> None:
    log_turns("aaa111", "ok")
    result = cli("logs", "--clear", "--failed")
    assert result.exit_code == 0 and "nothing deleted" in result.stderr


def test_cancelled_turns_show_their_status_and_are_not_failures(cli: Any, hc_home: Path) -> None:
    log_turns("aaa111", "ok", "cancelled", "failed")
    plain = cli("logs").stdout
    assert "cancelled" in plain and "FAILED" in plain
    turns = payload(cli("logs", "--json"))
    assert [t["status"] for t in turns] == ["ok", "cancelled", "failed"]
    failed = payload(cli("logs", "--failed", "--json"))
    assert [t["status"] for t in failed] == ["failed"]


def test_each_turn_is_one_dated_row_even_when_its_message_spans_lines(
    cli: Any, hc_home: Path
) -> None:
    path = log_path(load_settings().state_dir)
    log = ConversationLog(path, session="abc")
    log.record("qwen", TurnResult("first line\nsecond line", answer="a\nb", ok=True))
    log.close()
    rows = cli("logs").stdout.splitlines()
    assert len(rows) == 1
    cells = rows[0].split("\t")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", cells[2])  # the DATE column
    assert "first line second line" in cells and "a b" in cells


def test_piped_rows_keep_the_whole_message_and_answer(cli: Any, hc_home: Path) -> None:
    """Piped, the message was cut at 60 characters and the answer at 80, as on a terminal."""
    message, answer = "which " + "long words " * 10 + "end?", "It " + "says this " * 12 + "end."
    path = log_path(load_settings().state_dir)
    log = ConversationLog(path, session="abc")
    log.record("qwen", TurnResult(message, answer=answer, ok=True))
    log.close()
    cells = cli("logs").stdout.splitlines()[0].split("\t")
    assert cells[6] == message and cells[8] == answer
    assert cli("logs", "sessions").stdout.rstrip("\n").split("\t")[-1] == message


def test_a_filter_that_matches_nothing_says_so(cli: Any, hc_home: Path) -> None:
    log_turns("aaa111", "ok")
    assert "no matching turns" in cli("logs", "--failed").stderr
    assert "no matching turns" in cli("logs", "--session", "aaa", "--failed").stderr
    assert "no matching events" in cli("audit", "--id", "nothing-here").stderr


def test_an_unknown_session_is_not_found_as_for_logs_show(cli: Any, hc_home: Path) -> None:
    log_turns("aaa111", "ok")
    shown = cli("logs", "show", "zzz", "--json")
    for args in (("--session", "zzz"), ("--session", "zzz", "--clear", "--yes")):
        listed = cli("logs", *args)
        assert listed.exit_code == 4 == shown.exit_code
        assert "error: no logged conversation has the id zzz" in listed.stderr
        assert envelope(cli("logs", *args, "--json"))["error"] == envelope(shown)["error"]
    assert [t["session"] for t in payload(cli("logs", "--session", "aaa", "--json"))] == ["aaa111"]
    assert len(messages(log_path(load_settings().state_dir))) == 1


def test_clear_while_another_process_writes_the_log_is_locked_not_damaged(
    cli: Any, hc_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from homeclaw_cli.state import conversation_db

    path = log_turns("aaa111", "ok", "failed")
    monkeypatch.setattr(conversation_db, "BUSY_TIMEOUT_SEC", 0.1)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # a writer that does not finish in time
    try:
        result = cli("logs", "--clear", "--failed", "--yes")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert result.exit_code == 6, result.output
    assert f"another homeclaw process is writing the conversation log {path}" in result.stderr
    assert "delete it" not in result.stderr
    assert messages(path) == ["aaa111 message 0", "aaa111 message 1"]
