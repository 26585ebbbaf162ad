"""`homeclaw eval retrieval QUERIES.jsonl` and `homeclaw eval chat TASKS`: measure retrieval on
labelled queries, and whole chat turns on the configured model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from homeclaw_cli.surfaces.cli.eval_chat_view import (
    FailUnderOpt,
    MaxLeakedOpt,
    MissesOpt,
    RepeatOpt,
    run_eval,
)
from homeclaw_cli.surfaces.cli.options import HostOpt, JsonFlag, ModelOpt
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
        Path, typer.Argument(help='JSONL: {"query": ..., "expected": \\[ids], "tags": [...]}')
    ],
    method: MethodOpt = None,
    misses: Annotated[
        int, typer.Option("--misses", min=0, help="How many misses to print (text output).")
    ] = 20,
    as_json: JsonFlag = False,
) -> None:
    """Measure plugin retrieval over the synced index: recall@1/3/5, MRR, misses.

    complete@5 counts the queries that expect several plugins and find all of them in the
    first five."""
    from homeclaw_cli.app.eval_retrieval import evaluate, read_queries, unknown_expected

    queries = read_queries(queries_file)
    settings = get_state(ctx).settings()
    out = Output(json_mode=as_json)
    for warning in unknown_expected(settings, queries, queries_file):
        out.warning(warning)
    report = evaluate(settings, queries, method=check_method(method))
    out.result(report, lambda: _show_report(out, report, queries_file, misses))


def _show_report(out: Output, report: EvalReport, queries_file: Path, misses: int) -> None:
    header = ["SET", "N", "R@1", "R@3", "R@5", "MRR", "COMPLETE@5"]
    rows = []
    for name, scores in [("overall", report.overall), *sorted(report.by_tag.items())]:
        data = scores.to_json()
        complete = data["complete@5"]
        rows.append(
            [
                name,
                data["queries"],
                *(f"{data[f'recall@{k}']:.3f}" for k in (1, 3, 5)),
                f"{data['mrr']:.3f}",
                "-" if complete is None else f"{complete:.3f} of {data['multi']}",
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


@app.command("chat")
def chat(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    tasks_file: Annotated[
        Path,
        typer.Argument(
            help="YAML or JSONL tasks: request, plugin / capability / args, answer, no_plugin, "
            "asks."
        ),
    ],
    model: ModelOpt = None,
    host: HostOpt = None,
    repeat: RepeatOpt = 1,
    fail_under: FailUnderOpt = None,
    max_leaked: MaxLeakedOpt = None,
    misses: MissesOpt = 20,
    as_json: JsonFlag = False,
) -> None:
    """Run each task through the real chat loop on the configured model and score it.

    Prints the right-plugin / capability / arguments / answer / no-plugin
    rates, tool calls leaked into answers, answers claiming an act no tool did,
    right-plugin-retrieved, turn latency and prompt tokens, then the misses with
    their traces. Task file (YAML/JSONL):

    \b
      - request: 5 miles in km pls   # or turns: \\[first, follow-up]
        plugin: units                # or a list of alternatives
        capability: convert
        args: {value: 5, to_unit: \\[km, kilometers]}  # subset
        answer: \\["8.04"]            # any of these, case-insensitive
      - request: whats the capital of australia
        no_plugin: true
        answer: \\[canberra]
      - request: 5 miles in km and 17 times 23
        needs: \\[units, calculator]   # each of them called
      - request: what's the weather like
        asks: city                   # no call: the user is asked for it

    Read-only calls run; others only for the task's `allow` list (default: the
    expected capability). Exit 1 under a --fail-under / --max-leaked limit.
    """
    from homeclaw_cli.app.eval_chat_tasks import read_tasks

    tasks = read_tasks(tasks_file)
    run_eval(
        ctx,
        tasks,
        str(tasks_file),
        repeat=repeat,
        fail_under=fail_under or [],
        max_leaked=max_leaked,
        misses=misses,
        as_json=as_json,
        model=model,
        host=host,
    )
