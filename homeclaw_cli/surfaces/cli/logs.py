"""`homeclaw logs`: the conversations and tool calls `homeclaw chat` logged."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.surfaces.cli.confirm import DeleteYesFlag, confirm_deletion
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.state.conversations import LoggedTurn, TurnFilter

app = typer.Typer()
DEFAULT_SHOWN = 20
_STATUS = {"ok": "ok", "failed": "FAILED", "cancelled": "cancelled"}


@app.command("logs")
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
    clear: Annotated[
        bool,
        typer.Option("--clear", help="Delete the turns the other options select (all by default)."),
    ] = False,
    yes: DeleteYesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Show logged conversations and tool calls (newest last), or delete them with --clear."""
    from homeclaw_cli.state.conversations import TurnFilter, log_path, read_turns

    path = log_path(get_state(ctx).settings().state_dir)
    out = Output(json_mode=as_json)
    if clear:
        _clear(out, path, TurnFilter(session, failed, limit), yes=yes)
        return
    shown = limit or DEFAULT_SHOWN
    turns = read_turns(path, limit=shown, session=session, failed_only=failed)
    filtered = session is not None or failed
    out.result(turns, lambda: _show_turns(out, turns, filtered=filtered))


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
        out.info("no matching turns (drop --session / --failed to see them all)")
        return
    if not turns:
        out.info("no conversations logged yet (they are logged by `homeclaw chat`)")
        return
    out.table(
        ["ID", "SESSION", "DATE", "MODEL", "STATUS", "TIME", "MESSAGE", "TOOLS", "ANSWER"],
        [_turn_row(turn) for turn in turns],
        styles={"ID": "dim", "SESSION": "dim", "TOOLS": "cyan"},
    )


def _turn_row(turn: LoggedTurn) -> list[Any]:
    tools = ", ".join(f"{c['name']}{'' if c['ok'] else '!'}" for c in turn["tool_calls"])
    return [
        turn["id"],
        turn["session"],
        datetime.fromtimestamp(turn["ts"]).strftime("%Y-%m-%d %H:%M"),
        turn["model"],
        _STATUS[turn["status"]],
        f"{turn['seconds']:.2f}s",
        _one_line(turn["message"])[:60],  # a message that spans lines stays one row
        tools,
        _one_line(turn["answer"] or turn["error"] or "")[:80],
    ]


def _one_line(text: str) -> str:
    return " ".join(text.split())
