"""The conversation log keeps each turn and its tool calls."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.core.agent import TurnResult
from homeclaw_cli.core.trace import LlmStep, ToolStep
from homeclaw_cli.state.conversations import ConversationLog, clear_log, log_path, read_turns


def test_a_turn_and_its_tool_calls_read_back(tmp_path: Path) -> None:
    path = log_path(tmp_path)
    turn = TurnResult(
        "weather in Oslo",
        answer="cold",
        steps=[
            LlmStep(0.1, 1, 10, 2, ["weather__now"], "native"),
            ToolStep(0.2, "weather__now", {"city": "Oslo"}, ok=True, output="cold"),
            ToolStep(0.3, "notes__add", "{oops", ok=False, output="bad call"),
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
        },
        {
            "name": "notes__add",
            "arguments": "{oops",
            "ok": False,
            "output": "bad call",
            "seconds": 0.3,
        },
    ]
    assert read_turns(path, failed_only=True) == [] and read_turns(path, session="zz") == []
    assert clear_log(path) == 1 and read_turns(path) == []
