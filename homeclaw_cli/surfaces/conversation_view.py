"""A logged conversation for people: `homeclaw logs show ID`, `/sessions` and `/sessions ID`.

Styled on a terminal, the same lines unstyled when piped (Output.line decides).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.state.conversations import LoggedToolCall, LoggedTurn, SessionSummary

TOOL_OUTPUT_SHOWN = 300  # characters of each tool result
_STATUS_STYLE = {"ok": "green", "failed": "red", "cancelled": "yellow"}


def when(ts: float) -> str:
    """A log timestamp as local time, to the minute."""
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def one_line(text: str) -> str:
    """Text on one line (table cells, previews)."""
    return " ".join(text.split())


def show_sessions(out: Output, sessions: list[SessionSummary]) -> None:
    """The recent conversations, newest first."""
    if not sessions:
        out.info("no conversations logged yet (they are logged by `homeclaw chat`)")
        return
    out.table(
        ["SESSION", "STARTED", "LAST", "TURNS", "MODEL", "FIRST MESSAGE"],
        [
            [
                s["session"],
                when(s["started"]),
                when(s["last"]),
                s["turns"],
                s["model"],
                one_line(s["first_message"])[:60],
            ]
            for s in sessions
        ],
        styles={"SESSION": "cyan"},
    )


def show_conversation(out: Output, session: str, turns: list[LoggedTurn]) -> None:
    """Every turn of `session`: the message, each tool call with its result, the answer."""
    out.line(("session ", "bold"), (session, "cyan"), f" · {len(turns)} turns")
    for turn in turns:
        out.text("")
        out.line(
            (f"{when(turn['ts'])} · {turn['model']} · ", "dim"),
            (turn["status"], _STATUS_STYLE[turn["status"]]),
            (f" · {turn['seconds']:.2f}s", "dim"),
        )
        out.line(("you> ", "bold"), turn["message"])
        for call in turn["tool_calls"]:
            _show_call(out, call)
        if turn["answer"]:
            out.line(("homeclaw> ", "bold green"), turn["answer"])
        if turn["error"]:
            out.line(("error: ", "red"), turn["error"])


def _show_call(out: Output, call: LoggedToolCall) -> None:
    arguments = json.dumps(call["arguments"], ensure_ascii=False)
    verdict: tuple[str, str] = ("ok", "green") if call["ok"] else ("FAILED", "red")
    extra: list[Any] = [(f" ({call['approval']})", "dim")] if call["approval"] else []
    out.line(
        ("  tool ", "dim"),
        (f"{call['name']}({arguments})", "cyan"),
        " -> ",
        verdict,
        (f" {call['seconds']:.2f}s", "dim"),
        *extra,
    )
    output = call["output"]
    if output:
        cut = output[:TOOL_OUTPUT_SHOWN] + ("…" if len(output) > TOOL_OUTPUT_SHOWN else "")
        for line in cut.splitlines():
            out.line(("    ", "dim"), (line, "dim"))
