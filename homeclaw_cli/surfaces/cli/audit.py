"""`homeclaw audit`: the log of installs, upgrades, removals, approvals and toggles."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


@app.command("audit")
def audit(
    ctx: typer.Context,
    item_id: Annotated[
        str | None, typer.Option("--id", help="Only events about this plugin or skill.")
    ] = None,
    action: Annotated[
        str | None,
        typer.Option("--action", help="Only this action (install, upgrade, remove, approve, ...)."),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=0, help="Last N events (0 = all).")
    ] = 50,
    as_json: JsonFlag = False,
) -> None:
    """Show the audit log (JSON lines in the data dir), oldest first."""
    from homeclaw_cli.state.audit import audit_path, read_events

    settings = get_state(ctx).settings()
    events = read_events(settings.data_dir, item_id=item_id, action=action, limit=limit)
    out = Output(json_mode=as_json)
    if item_id is not None or action is not None:
        empty = "no matching events (drop --id / --action to see them all)"
    else:
        empty = f"no audit events yet ({audit_path(settings.data_dir)})"
    out.result(events, lambda: _show_events(out, events, empty))


def _show_events(out: Output, events: list[dict[str, Any]], empty: str) -> None:
    if not events:
        out.info(empty)
        return
    skip = {"time", "action", "id", "user"}
    rows = [
        [
            e.get("time", ""),
            e.get("action", ""),
            e.get("id", ""),
            " ".join(f"{k}={v}" for k, v in e.items() if k not in skip and v is not None),
        ]
        for e in events
    ]
    out.table(["TIME", "ACTION", "ID", "DETAILS"], rows, styles={"ID": "cyan"})
