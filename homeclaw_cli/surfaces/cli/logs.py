"""`homeclaw logs`: the conversations and tool calls `homeclaw chat` logged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.state.conversations import LoggedTurn

app = typer.Typer()


@app.command("logs")
def logs(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many turns.", min=1)] = 20,
    session: Annotated[str | None, typer.Option("--session", help="Session id prefix.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed turns.")] = False,
    clear: Annotated[bool, typer.Option("--clear", help="Delete every logged turn.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Show logged conversations and tool calls (newest last)."""
    from homeclaw_cli.state.conversations import clear_log, log_path, read_turns

    settings = get_state(ctx).settings()
    out = Output(json_mode=as_json)
    if clear:
        count = clear_log(log_path(settings.state_dir))
        out.info(f"deleted {count} logged turns")
        return
    turns = read_turns(
        log_path(settings.state_dir), limit=limit, session=session, failed_only=failed
    )
    out.result(turns, lambda: _show_turns(out, turns))


def _show_turns(out: Output, turns: list[LoggedTurn]) -> None:
    if not turns:
        out.info("no conversations logged yet (they are logged by `homeclaw chat`)")
        return
    out.table(
        ["ID", "SESSION", "MODEL", "STATUS", "TIME", "MESSAGE", "TOOLS", "ANSWER"],
        [_turn_row(turn) for turn in turns],
        styles={"ID": "dim", "SESSION": "dim", "TOOLS": "cyan"},
    )


def _turn_row(turn: LoggedTurn) -> list[Any]:
    tools = ", ".join(f"{c['name']}{'' if c['ok'] else '!'}" for c in turn["tool_calls"])
    return [
        turn["id"],
        turn["session"],
        turn["model"],
        "ok" if turn["ok"] else "FAILED",
        f"{turn['seconds']:.2f}s",
        turn["message"][:60],
        tools,
        (turn["answer"] or turn["error"] or "")[:80].replace("\n", " "),
    ]
