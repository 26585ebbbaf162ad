"""`homeclaw logs`: the conversations and tool calls `homeclaw chat` logged.

`logs` lists turns (filters: --session, --failed, -q TEXT), `logs sessions` the recent
conversations, `logs show ID` one whole conversation with its tool calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.surfaces.cli.confirm import DeleteYesFlag, confirm_deletion
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output
from homeclaw_cli.surfaces.views import preview, when

if TYPE_CHECKING:
    from homeclaw_cli.state.conversations import LoggedTurn, TurnFilter

app = typer.Typer(invoke_without_command=True)
DEFAULT_SHOWN = 20
_STATUS = {"ok": "ok", "failed": "FAILED", "cancelled": "cancelled"}


def _log_path(ctx: typer.Context) -> Path:
    from homeclaw_cli.state.conversations import log_path

    return log_path(get_state(ctx).settings().state_dir)


@app.callback()
def logs(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            help=f"How many turns, newest first (default {DEFAULT_SHOWN}; --clear: every match).",
            min=1,
        ),
    ] = None,
    session: Annotated[str | None, typer.Option("--session", help="Session id prefix.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed turns.")] = False,
    query: Annotated[
        str | None,
        typer.Option(
            "--query", "-q", metavar="TEXT", help="Only turns whose message or answer has TEXT."
        ),
    ] = None,
    clear: Annotated[
        bool,
        typer.Option("--clear", help="Delete the turns the other options select (all by default)."),
    ] = False,
    yes: DeleteYesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Show logged conversations and tool calls (newest last), or delete them with --clear.

    `logs sessions` lists the recent conversations, `logs show ID` prints one whole.
    """
    if ctx.invoked_subcommand is not None:
        return
    from homeclaw_cli.state.conversations import TurnFilter, read_turns, require_session

    path = _log_path(ctx)
    out = Output(json_mode=as_json)
    if session is not None:
        require_session(path, session)
    if clear:
        _clear(out, path, TurnFilter(session, failed, limit, query), yes=yes)
        return
    shown = limit or DEFAULT_SHOWN
    turns = read_turns(path, limit=shown, session=session, failed_only=failed, text=query)
    filtered = session is not None or failed or query is not None
    out.result(turns, lambda: _show_turns(out, turns, filtered=filtered))


@app.command("sessions")
def sessions(
    ctx: typer.Context,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many conversations.", min=1)
    ] = 10,
    as_json: JsonFlag = False,
) -> None:
    """List the recent conversations, newest first (`homeclaw chat --session ID` continues one)."""
    from homeclaw_cli.state.conversations import list_sessions
    from homeclaw_cli.surfaces.views import show_sessions

    found = list_sessions(_log_path(ctx), limit=limit)
    out = Output(json_mode=as_json)
    out.result(found, lambda: show_sessions(out, found))


@app.command("show")
def show(
    ctx: typer.Context,
    session_id: Annotated[str, typer.Argument(metavar="ID", help="Session id (or a prefix).")],
    as_json: JsonFlag = False,
) -> None:
    """Print one whole conversation: each message, its tool calls and results, the answer."""
    from homeclaw_cli.state.conversations import read_turns, resolve_session
    from homeclaw_cli.surfaces.views import show_conversation

    path = _log_path(ctx)
    session = resolve_session(path, session_id)
    turns = read_turns(path, limit=None, session=session)
    out = Output(json_mode=as_json)
    out.result({"session": session, "turns": turns}, lambda: show_conversation(out, session, turns))


def _clear(out: Output, path: Path, selection: TurnFilter, *, yes: bool) -> None:
    """Delete exactly the selected turns (and their tool calls), after asking."""
    from homeclaw_cli.state.conversations import delete_turns, select_turns

    ids, total = select_turns(path, selection)
    if ids:
        confirm_deletion(out, f"delete {len(ids)} of {total} logged turns?", yes=yes)
    deleted = delete_turns(path, ids)
    payload = {"deleted": deleted, "remaining": total - deleted, "turn_ids": sorted(ids)}
    if deleted:
        message = f"deleted {deleted} of {total} logged turns"
    else:
        message = "no logged turn matches: nothing deleted"
    out.result(payload, lambda: out.info(message))


def _show_turns(out: Output, turns: list[LoggedTurn], *, filtered: bool) -> None:
    if not turns and filtered:
        out.info("no matching turns (drop --session / --failed / -q to see them all)")
        return
    if not turns:
        out.info("no conversations logged yet (they are logged by `homeclaw chat`)")
        return
    out.table(
        ["ID", "SESSION", "DATE", "MODEL", "STATUS", "TIME", "MESSAGE", "TOOLS", "ANSWER"],
        [_turn_row(out, turn) for turn in turns],
        styles={"ID": "dim", "SESSION": "dim", "TOOLS": "cyan"},
    )


def _turn_row(out: Output, turn: LoggedTurn) -> list[Any]:
    tools = ", ".join(f"{c['name']}{'' if c['ok'] else '!'}" for c in turn["tool_calls"])
    return [
        turn["id"],
        turn["session"],
        when(turn["ts"]),
        turn["model"],
        _STATUS[turn["status"]],
        f"{turn['seconds']:.2f}s",
        preview(out, turn["message"], 60),
        tools,
        preview(out, turn["answer"] or turn["error"] or "", 80),
    ]
