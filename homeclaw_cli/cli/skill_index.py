"""`homeclaw skill search` and `homeclaw skill sync`.

`register(app)` adds both to the `skill` Typer app of cli/skill.py.
"""

from __future__ import annotations

import typer

from homeclaw_cli.cli.plugin_index import (
    ExplainFlag,
    LimitOpt,
    MethodOpt,
    QueryArg,
    check_method,
    render_search,
)
from homeclaw_cli.cli.render import Output
from homeclaw_cli.cli.state import get_state
from homeclaw_cli.cli.sync import CheckFlag, FullFlag, JsonFlag, LockTimeout, QuietFlag, run_sync


def register(target: typer.Typer) -> None:
    target.command("search")(search)
    target.command("sync")(sync_skills)


def search(
    ctx: typer.Context,
    query: QueryArg,
    *,
    limit: LimitOpt = None,
    method: MethodOpt = None,
    explain: ExplainFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Find the skills a request needs, the way the chat loop retrieves them."""
    from homeclaw_cli.services.retrieval import RetrievalService

    service = RetrievalService(get_state(ctx).settings(), method=check_method(method))
    result = service.search_skills(" ".join(query), limit=limit)
    render_search(Output(json_mode=as_json), result, explain=explain, kind="skill")


def sync_skills(
    ctx: typer.Context,
    *,
    full: FullFlag = False,
    check: CheckFlag = False,
    quiet: QuietFlag = False,
    as_json: JsonFlag = False,
    lock_timeout: LockTimeout = 30.0,
) -> None:
    """Index skills only, including the test dir (see `homeclaw sync`)."""
    run_sync(
        ctx,
        ("skills",),
        full=full,
        check=check,
        quiet=quiet,
        as_json=as_json,
        lock_timeout=lock_timeout,
    )
