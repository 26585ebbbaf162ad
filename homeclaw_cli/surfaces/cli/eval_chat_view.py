"""What `eval chat` and `plugin eval` share: their options, the run, and the report's view."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.eval_chat import ChatEvalReport, TaskRun
    from homeclaw_cli.app.eval_chat_tasks import ChatTask

RepeatOpt = Annotated[
    int, typer.Option("--repeat", min=1, help="Run every task N times (sampling noise).")
]
FailUnderOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-under",
        metavar="METRIC=RATE",
        help="Exit 1 when a rate is lower, e.g. plugin=0.9 or answer=85% (repeatable). "
        "METRIC: plugin, needs, capability, args, skill, answer, no_plugin, asks, retrieved, "
        "passed.",
    ),
]
MaxLeakedOpt = Annotated[
    int | None,
    typer.Option("--max-leaked", min=0, help="Exit 1 when more tool calls leak into answers."),
]
MissesOpt = Annotated[
    int, typer.Option("--misses", min=0, help="How many misses to print with their traces.")
]
LABELS = {
    "plugin": "right plugin",
    "needs": "every need's plugin",
    "capability": "right capability",
    "args": "right arguments",
    "skill": "right skill",
    "answer": "right answer",
    "no_plugin": "no-plugin answered without a tool",
    "asks": "asked for the value instead of a call",
    "retrieved": "right plugin retrieved",
    "passed": "tasks passed",
}


def run_eval(
    ctx: typer.Context,
    tasks: list[ChatTask],
    tasks_file: str,
    *,
    repeat: int,
    fail_under: list[str],
    max_leaked: int | None,
    misses: int,
    as_json: bool,
    model: str | None = None,
    host: str | None = None,
) -> None:
    """Run the tasks on the configured model, print the report, exit 1 under a threshold."""
    import asyncio

    from homeclaw_cli.app.eval_chat import failed_thresholds, parse_thresholds, run_tasks
    from homeclaw_cli.surfaces.cli.state import llm_settings

    thresholds = parse_thresholds(fail_under, max_leaked)
    settings = llm_settings(ctx, model, host, **{"tools.approve": "ask", "tools.approve_rules": {}})
    out = Output(json_mode=as_json)

    def progress(run: TaskRun, done: int, total: int) -> None:
        if not as_json:
            mark = "ok  " if run.passed else "MISS"
            seconds = sum(t.timings.get("total", 0.0) for t in run.turns)
            out.info(f"[{done}/{total}] {mark} {seconds:5.1f} s  {run.task.label}: {_said(run)}")

    report = asyncio.run(
        run_tasks(settings, tasks, repeat=repeat, tasks_file=tasks_file, on_run=progress)
    )
    failures = failed_thresholds(report, thresholds)
    data = report.to_json()
    data["thresholds"] = {"required": thresholds, "failed": failures}
    out.result(data, lambda: show_report(out, report, misses))
    if failures:
        below = HomeclawError("below the thresholds: " + "; ".join(failures))
        out.error(below.message)
        exit_failed(out, below)


def show_report(out: Output, report: ChatEvalReport, misses: int) -> None:
    """The rates table on stdout; the misses with their traces on stderr."""
    from homeclaw_cli.surfaces.trace import trace_lines

    for run in report.misses()[:misses]:
        out.info(f"\nmiss {run.task.label} (line {run.task.line}, sample {run.sample})")
        out.info(f"  expected {json.dumps(run.task.expected(), ensure_ascii=False)}")
        for number, turn in enumerate(run.turns, start=1):
            out.info(f"  turn {number}: {turn.message!r}")
            for line in trace_lines(turn):
                out.info(f"    {line}")
        problems = [k for k, ok in run.checks.items() if not ok]
        problems += ["leaked"] if run.leaked else []
        problems += ["claimed or offered an act no tool did"] if run.claimed else []
        out.info(f"  answer: {_said(run)}  [missed: {', '.join(problems)}]")
    rows = []
    for name, rate in report.rates().items():
        if rate["total"]:
            rows.append([LABELS[name], f"{rate['rate']:.0%}", f"{rate['passed']}/{rate['total']}"])
    latency, tokens = report.latency(), report.prompt_tokens()
    rows.append(["leaked tool calls", str(report.leaked), ""])
    rows.append(["acts claimed done or offered with no tool run", str(report.claimed), ""])
    rows.append(["turn seconds median / p90", f"{_num(latency['median'])}", _num(latency["p90"])])
    rows.append(
        [
            f"prompt tokens median, first round / turn ({tokens['source']})",
            _num(tokens["first_round_median"]),
            _num(tokens["turn_median"]),
        ]
    )
    title = f"eval chat {report.tasks_file}: {report.model} ({report.provider}), "
    title += f"{len(report.runs)} runs, {report.seconds:.0f} s"
    out.table(["METRIC", "VALUE", "OF"], rows, title=title)


def _said(run: TaskRun) -> str:
    """What the turn did, in one line: its calls (and those not run), then its answer or error."""
    names = [c["name"] for c in run.calls()] + [f"(not run: {c['name']})" for c in run.skipped()]
    calls = ", ".join(names)
    answer = run.final.answer.strip().replace("\n", " ")
    answer = answer[:120] + ("…" if len(answer) > 120 else "")
    said = f"error: {run.final.error}" if run.final.error else repr(answer)
    return f"{calls} -> {said}" if calls else said


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
