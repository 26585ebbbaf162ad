"""`homeclaw sync` (and the `plugin sync` / `skill sync` shortcuts): update the index.

Made for cron: `--quiet` prints nothing on success, `--json` prints one summary document,
`--check` exits 1 when the index is stale without writing anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from homeclaw_cli.errors import HomeclawError, UnavailableError
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.app.expand import ExpandReport
    from homeclaw_cli.app.sync import SyncReport

FullFlag = Annotated[
    bool, typer.Option("--full", help="Re-embed everything, not only new and changed items.")
]
CheckFlag = Annotated[
    bool, typer.Option("--check", help="Only report whether the index is stale (exit 1 if so).")
]
QuietFlag = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print only warnings and errors (what was not indexed, a stale --check).",
    ),
]
ExpandFlag = Annotated[
    bool,
    typer.Option(
        "--expand",
        help="First have the chat model write example requests for items without any "
        "(cached; only new and changed items are asked about).",
    ),
]
LockTimeout = Annotated[
    float,
    typer.Option("--lock-timeout", help="Seconds to wait for another sync to finish.", min=0),
]


def sync_command_for(kinds: Sequence[str], doc: str) -> Callable[..., None]:
    """A `sync` command that indexes `kinds` ("plugins", "skills")."""

    def sync(
        ctx: typer.Context,
        *,
        full: FullFlag = False,
        check: CheckFlag = False,
        quiet: QuietFlag = False,
        as_json: JsonFlag = False,
        lock_timeout: LockTimeout = 30.0,
        expand: ExpandFlag = False,
    ) -> None:
        run_sync(
            ctx,
            kinds,
            full=full,
            check=check,
            quiet=quiet,
            as_json=as_json,
            lock_timeout=lock_timeout,
            expand=expand,
        )

    sync.__doc__ = doc
    return sync


app = typer.Typer()
app.command("sync")(
    sync_command_for(
        ("plugins", "skills"),
        "Index plugins and skills for retrieval (incremental; run it from cron).",
    )
)


def run_sync(
    ctx: typer.Context,
    kinds: Sequence[str],
    *,
    full: bool,
    check: bool,
    quiet: bool,
    as_json: bool,
    lock_timeout: float,
    expand: bool = False,
) -> None:
    """Sync `kinds` into the index and report it (`--check`: exit 1 when stale).

    `--expand` (or `index.expand: auto`) generates missing example requests first, outside
    the index lock; whatever happens to it, the sync itself runs."""
    from homeclaw_cli.app.context import no_notice
    from homeclaw_cli.app.sync import sync

    context = get_state(ctx).context()
    out = Output(json_mode=as_json)
    expansion = None
    if not check and (expand or context.settings.index.expand == "auto"):
        expansion = _expand(out, context, kinds, explicit=expand, show=not quiet)
    with out.progress(enabled=not (quiet or as_json or check)) as progress:
        report = sync(
            context.settings,
            kinds=kinds,
            full=full,
            check=check,
            progress=progress,
            lock_timeout=lock_timeout,
            context=context,
            on_lock_wait=no_notice if quiet else out.info,
        )
    report.expansion = expansion
    for message in report.errors:
        out.warning(f"not indexed: {message}")
    for message in report.warnings:
        out.warning(message)
    # --quiet prints nothing unless it fails, and a stale index is --check failing
    if out.json_mode or not quiet or (check and report.stale):
        out.result(report, lambda: _print_summary(out, report))
    if check and report.stale:
        exit_failed(out, HomeclawError("the index is stale", hint="run `homeclaw sync`"))
    if expand and expansion is not None and expansion.unreachable:
        exit_failed(out, UnavailableError("the model server for --expand was not reachable"))


def _expand(
    out: Output, context: AppContext, kinds: Sequence[str], *, explicit: bool, show: bool
) -> ExpandReport | None:
    """Run the expansion; auto mode skips the plugins when their folders did not change."""
    from homeclaw_cli.app.expand import expand, plugins_unchanged

    wanted = list(kinds)
    if not explicit and plugins_unchanged(context):
        wanted = [k for k in wanted if k != "plugins"]
    if not wanted:
        return None
    with out.item_progress("examples", enabled=show) as progress:
        report = expand(context, kinds=wanted, progress=progress)
    if report.unreachable and (explicit or report.pending):
        out.warning(
            f"no examples generated for {report.pending} item(s): {report.unreachable}; "
            "the index is synced without them"
        )
    for failure in report.failed:
        out.warning(f"examples: {failure}")
    return report


def _print_summary(out: Output, report: SyncReport) -> None:
    expansion = report.expansion
    if expansion is not None and (expansion.generated or expansion.failed):
        per_item = expansion.llm_seconds / max(expansion.generated, 1)
        out.info(
            f"examples: {expansion.generated} item(s) generated ({expansion.examples} examples, "
            f"{per_item:.1f}s each), {expansion.cached} cached, model {expansion.model}"
        )
    rebuilt = "would be rebuilt" if report.check else "rebuilt"  # --check writes nothing
    for name, kind in report.kinds.items():
        if kind.rebuilt and kind.rebuilt != "--full":
            out.info(f"{name}: {rebuilt} ({kind.rebuilt})")
    verb = "would change" if report.check else "synced"
    counts = (
        f"{len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.removed)} removed, {report.unchanged} unchanged"
    )
    if report.check:
        state = "stale" if report.stale else "up to date"
        out.text(f"index {state}: {verb} {counts}")
    else:
        out.text(f"{verb}: {counts} in {report.seconds:.1f}s")
