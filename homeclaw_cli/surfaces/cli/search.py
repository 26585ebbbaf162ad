"""`homeclaw plugin|skill search` and `homeclaw plugin|skill sync`: one pair of commands per kind.

`index_app(kind)` is the part of the `plugin` or `skill` group that holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.cli.sync import sync_command_for
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult

Kind = Literal["plugin", "skill"]

QueryArg = Annotated[list[str], typer.Argument(help="What the user asked, in their words.")]
LimitOpt = Annotated[
    int | None, typer.Option("--limit", "-n", min=1, help="Hits to keep (default from config).")
]
MethodOpt = Annotated[
    str | None,
    typer.Option(
        "--method",
        help="dense, fts or hybrid (default from config: hybrid).",
        autocompletion=complete.choices("dense", "fts", "hybrid"),
    ),
]
ExplainFlag = Annotated[
    bool,
    typer.Option("--explain", help="Show every candidate's scores and why it was kept or dropped."),
]

_SYNC_HELP: dict[Kind, str] = {
    "plugin": "Index plugins only (see `homeclaw sync`).",
    "skill": "Index skills only, including the test dir (see `homeclaw sync`).",
}


def index_app(kind: Kind) -> typer.Typer:
    """`search` and `sync` for one kind of descriptor."""
    app = typer.Typer()
    app.command("search")(_search_command(kind))
    app.command("sync")(sync_command_for((f"{kind}s",), _SYNC_HELP[kind]))
    return app


def _search_command(kind: Kind) -> Callable[..., None]:
    """The `search` command for plugins or skills."""

    def search(
        ctx: typer.Context,
        query: QueryArg,
        *,
        limit: LimitOpt = None,
        method: MethodOpt = None,
        explain: ExplainFlag = False,
        as_json: JsonFlag = False,
    ) -> None:
        from homeclaw_cli.app.retrieval import RetrievalService
        from homeclaw_cli.app.scan_fingerprint import plugins_changed_since_sync

        settings = get_state(ctx).settings()
        service = RetrievalService(settings, method=check_method(method))
        find = service.search_plugins if kind == "plugin" else service.search_skills
        # The stat walk behind the staleness warning (0.2 s at 10,000 plugins) runs while the
        # query model loads and the search runs.
        with ThreadPoolExecutor(max_workers=1) as pool:
            stale = pool.submit(plugins_changed_since_sync, settings) if kind == "plugin" else None
            result = find(" ".join(query), limit=limit)
            changed = stale is not None and stale.result()
        out = Output(json_mode=as_json)
        if changed:
            out.warning("plugins changed since the last sync; run `homeclaw sync` to search them")
        for warning in _not_offered_in_chat(result) if kind == "plugin" else []:
            out.warning(warning)
        out.result(
            result.to_json(explain=explain),
            lambda: _show_search(out, result, explain=explain, kind=kind),
        )

    search.__doc__ = f"Find the {kind}s a request needs, the way the chat loop retrieves them."
    return search


def _not_offered_in_chat(result: RetrievalResult) -> list[str]:
    """Kept plugins that chat holds back until a key or setting they require is set."""
    from homeclaw_cli.app.plugin_availability import how_to_mend, indexed_requirements_unmet

    return [
        f"plugin {hit.id} is not offered in chat: {why} ({how_to_mend(why)})"
        for hit in result.hits
        if (why := indexed_requirements_unmet(hit.descriptor))
    ]


def check_method(method: str | None) -> str | None:
    """Reject an unknown --method with the list of known ones."""
    from homeclaw_cli.core.retrieval import METHODS
    from homeclaw_cli.errors import UsageError

    if method is not None and method not in METHODS:
        raise UsageError(
            f"unknown retrieval method {method!r}", hint=f"use one of: {', '.join(METHODS)}"
        )
    return method


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _show_search(out: Output, result: RetrievalResult, *, explain: bool, kind: str) -> None:
    """Kept hits (or the fallback), and with --explain every candidate and its reason."""
    if not result.ranked:
        _show_unranked(out, result, explain=explain, kind=kind)
    elif explain:
        rows = [
            [
                c.rank,
                c.id,
                _fmt(c.score),
                _fmt(c.dense_score),
                _fmt(c.keyword_score),
                "kept" if c.kept else "dropped",
                c.reason,
                _matched(c),
            ]
            for c in result.candidates
        ]
        out.table(
            ["RANK", "ID", "SCORE", "DENSE", "KEYWORD", "RESULT", "WHY", "MATCHED"],
            rows,
            title=f"{kind} candidates for {result.query!r} ({result.method})",
            styles={"ID": "cyan"},
        )
        timing = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.timings.items())
        out.info(f"{len(result.candidates)} candidates; {timing}")
    else:
        out.table(
            ["ID", "SCORE", "DESCRIPTION"],
            [[h.id, _fmt(h.score), _description(h.descriptor)] for h in result.hits],
            styles={"ID": "cyan"},
        )
    if result.fallback:
        names = ", ".join(result.fallback_names) or "(none indexed: run `homeclaw sync`)"
        out.info(f"no {kind} was close enough to offer; closest: {names}")


def _show_unranked(out: Output, result: RetrievalResult, *, explain: bool, kind: str) -> None:
    """Vector search off: what chat offers for any request, without scores it never had."""
    if explain:
        rows = [
            [c.rank, c.id, "kept" if c.kept else "dropped", c.reason] for c in result.candidates
        ]
        out.table(["RANK", "ID", "RESULT", "WHY"], rows, styles={"ID": "cyan"})
    else:
        rows = [[h.id, _description(h.descriptor)] for h in result.hits]
        out.table(["ID", "DESCRIPTION"], rows, styles={"ID": "cyan"})
    setting = f"{kind}s.use_vector_search"
    if not result.hits:
        none = f"no usable {kind} indexed ({setting} is false): chat offers none"
        out.info(f"{none}; run `homeclaw sync`")
        return
    out.info(
        f"{setting} is false: nothing is ranked; chat offers these {len(result.hits)}, the "
        f"first usable {kind}s in id order, whatever the request (true ranks by the request)"
    )


def _matched(hit: RetrievalHit) -> str:
    """The closest example request and the capability order."""
    parts = []
    if hit.matched and hit.matched_source == "name":
        parts.append(f"name {hit.matched!r}")
    elif hit.matched:
        generated = " (generated)" if hit.matched_source == "generated" else ""
        parts.append(repr(hit.matched) + generated)
    if hit.capabilities:
        parts.append("capabilities: " + ", ".join(hit.capabilities))
    return "; ".join(parts)


def _description(descriptor: dict[str, object]) -> str:
    manifest = descriptor.get("manifest")
    source = manifest if isinstance(manifest, dict) else descriptor
    return str(source.get("description", ""))
