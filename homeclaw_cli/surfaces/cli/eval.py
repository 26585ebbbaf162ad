"""`homeclaw eval retrieval QUERIES.jsonl`: measure retrieval on labelled queries."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.search import MethodOpt, check_method
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.eval_retrieval import EvalReport

app = typer.Typer()


@app.command("retrieval")
def retrieval(
    ctx: typer.Context,
    queries_file: Annotated[
        Path, typer.Argument(help='JSONL: {"query": ..., "expected": [ids], "tags": [...]}')
    ],
    method: MethodOpt = None,
    misses: Annotated[
        int, typer.Option("--misses", min=0, help="How many misses to print (text output).")
    ] = 20,
    as_json: JsonFlag = False,
) -> None:
    """Recall@1/3/5, MRR and misses of plugin retrieval over the synced index."""
    from homeclaw_cli.app.eval_retrieval import evaluate, read_queries

    queries = read_queries(queries_file)
    report = evaluate(get_state(ctx).settings(), queries, method=check_method(method))
    out = Output(json_mode=as_json)
    out.result(report, lambda: _show_report(out, report, queries_file, misses))


def _show_report(out: Output, report: EvalReport, queries_file: Path, misses: int) -> None:
    header = ["SET", "N", "R@1", "R@3", "R@5", "MRR"]
    rows = []
    for name, scores in [("overall", report.overall), *sorted(report.by_tag.items())]:
        data = scores.to_json()
        rows.append(
            [
                name,
                data["queries"],
                *(f"{data[f'recall@{k}']:.3f}" for k in (1, 3, 5)),
                f"{data['mrr']:.3f}",
            ]
        )
    out.table(header, rows, title=f"retrieval ({report.method}), {queries_file}")
    for miss in report.misses[:misses]:
        out.info(
            f"miss line {miss['line']}: {miss['query']!r} expected {', '.join(miss['expected'])}"
            f" got {', '.join(miss['got']) or '-'}"
        )
    out.info(
        f"{len(report.misses)} misses (not in top 5); kept recall {report.kept_recall:.3f}; "
        f"no-tool queries left empty {report.none_correct}/{report.none_total}; "
        f"{report.avg_kept:.2f} hits kept on average; p50 {report.latency_ms_p50:.1f} ms"
    )
