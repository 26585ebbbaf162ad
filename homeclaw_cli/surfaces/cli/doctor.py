"""`homeclaw doctor`: is everything chat needs in place, and how to fix what is not."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.cli.options import HostOpt, JsonFlag, ModelOpt
from homeclaw_cli.surfaces.cli.state import llm_context
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.doctor import Check

app = typer.Typer()

_MARKS = {"ok": ("ok", "green"), "warn": ("warn", "yellow"), "fail": ("FAIL", "red")}


@app.command("doctor")
def doctor(
    ctx: typer.Context,
    model: ModelOpt = None,
    host: HostOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Check the LLM server, the model, the index, the embedding model and plugin health.

    Also lists the capabilities that have no example requests (they are found less often).
    Exit 0 when nothing failed, 1 when a check failed."""
    import asyncio

    from homeclaw_cli.app.doctor import run_checks

    checks = asyncio.run(run_checks(llm_context(ctx, model, host)))
    out = Output(json_mode=as_json)
    out.result(checks, lambda: _show_checks(out, checks))
    if failed := [c.name for c in checks if c.status == "fail"]:
        problem = HomeclawError(f"failed: {', '.join(failed)}", hint="each check says its fix")
        exit_failed(out, problem)


def _show_checks(out: Output, checks: list[Check]) -> None:
    if not out.rich:
        out.table(
            ["CHECK", "STATUS", "DETAIL", "FIX"],
            [[c.name, c.status, c.detail, c.fix] for c in checks],
        )
        return
    for check in checks:
        out.line(_MARKS[check.status], "  ", (check.name, "bold"), f": {check.detail}")
        if check.fix:
            out.line("      ", ("fix:", "dim"), f" {check.fix}")
