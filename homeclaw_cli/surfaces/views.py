"""Views shared by the CLI and the REPL: a logged conversation (`logs show ID`, `/sessions
ID`), the recent sessions (`logs sessions`, `/sessions`) and the server's models (`models`,
`/model`). Styled on a terminal, the same lines unstyled when piped (Output decides).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.chat_status import ContextReport, StatusReport
    from homeclaw_cli.app.models import ModelListing
    from homeclaw_cli.state.conversations import LoggedToolCall, LoggedTurn, SessionSummary

TOOL_OUTPUT_SHOWN = 300  # characters of each tool result
_STATUS_STYLE = {"ok": "green", "failed": "red", "cancelled": "yellow"}
_TOOLS = {True: "yes", False: "no", None: "unknown"}


def when(ts: float) -> str:
    """A log timestamp as local time, to the minute."""
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def one_line(text: str) -> str:
    """Text on one line (table cells, previews)."""
    return " ".join(text.split())


def preview(out: Output, text: str, width: int) -> str:
    """`text` on one line, cut to `width` for a person; a script gets it whole."""
    flat = one_line(text)
    return flat[:width] if out.rich else flat


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
                preview(out, s["first_message"], 60),
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


def show_models(out: Output, listing: ModelListing) -> None:
    """The table of models (the configured one marked *), then what is configured."""
    from homeclaw_cli.app.models import CONFIG_KEY, describe, same_model

    rows: list[list[Any]] = [
        [
            "*" if same_model(m.name, listing.configured) else "",
            m.name,
            _TOOLS[m.tools],
            m.context_length or "",
            _size(m.size),
            m.details,
        ]
        for m in listing.models
    ]
    if rows:
        out.table(["", "NAME", "TOOLS", "CONTEXT", "SIZE", "DETAILS"], rows, styles={"": "green"})
    else:
        out.info(f"the server at {listing.host} has no models")
    if listing.configured_installed:
        out.info(f"configured: {CONFIG_KEY} = {listing.configured}")
        return
    best = listing.suggestion()
    suggestion = f"; e.g. {describe(best)}" if best is not None else ""
    out.warning(
        f"{CONFIG_KEY} = {listing.configured} is not installed here: set llm.model in the "
        f"config or HOMECLAW_MODEL{suggestion}"
    )


def _size(size: int | None) -> str:
    if not size:
        return ""
    return f"{size / 1e9:.1f} GB" if size >= 1e8 else f"{size / 1e6:.0f} MB"


def show_context(out: Output, report: ContextReport) -> None:
    """Tokens used by part against the window, and what the window is."""
    if report.window is None:
        window = "model window: unknown (the server does not say)"
    else:
        window = f"model window: {report.window:,} tokens"
    if report.num_ctx:
        window += f" · llm.num_ctx = {report.num_ctx:,}"
    elif report.budget == report.window:
        window += " · llm.num_ctx not set: homeclaw plans with the window the server runs"
    else:
        window += f" · llm.num_ctx not set: homeclaw plans with {report.budget:,}"
    share = f" ({report.used / report.budget:.0%})" if report.budget else ""
    out.text(f"context: {report.used:,} of {report.budget:,} tokens used{share}")
    out.text(window)
    if not report.system:
        out.text("no prompt built yet: ask something first")
    rows: list[list[Any]] = []
    if report.system:
        rows.append(["system", sum(t for _, t in report.system)])
        rows += [[f"  {name}", tokens] for name, tokens in report.system]
        rows.append([f"tools ({report.tool_count})", report.tools])
    rows.append([f"history ({report.history_turns} turns)", report.history])
    rows.append(["total", report.used])
    out.table(["PART", "TOKENS"], rows)
    if report.history > report.limit:
        out.text(f"the oldest turns are left out past {report.limit:,} tokens")
    if report.server_count is not None:
        out.text(f"the server counted {report.server_count:,} prompt tokens last time")


def show_status(out: Output, report: StatusReport) -> None:
    """The model and server, the session, the index and each MCP plugin's session."""
    server = (report.server, "green" if report.server_ok else "red")
    out.line("model ", (report.model, "cyan"), f" · {report.provider} at {report.host} · ", server)
    out.text(f"session: {report.session_id or '(not logged)'}")
    style = {"synced": "green", "stale": "yellow", "not synced": "yellow"}[report.index]
    rows = (
        f" · {report.indexed_plugins} plugin descriptors"
        if report.indexed_plugins is not None
        else ""
    )
    out.line("index: ", (report.index, style), f"{rows} · {report.index_detail}")
    if not report.mcp:
        out.text("MCP plugins: none")
        return
    out.table(
        ["MCP PLUGIN", "CONNECTED", "TOOLS", "LAST ERROR"],
        [
            [
                m.plugin_id,
                "yes" if m.connected else "no",
                "-" if m.tools is None else m.tools,
                m.last_error or "",
            ]
            for m in report.mcp
        ],
    )
    out.text("/status reconnect PLUGIN_ID restarts a session")
