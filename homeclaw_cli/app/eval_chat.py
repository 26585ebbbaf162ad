"""`homeclaw eval chat TASKS`: run each task through the real chat loop and score the turns.

The end-to-end twin of `eval retrieval`: the same ChatSession as `homeclaw chat -q` (retrieval,
prompt, the configured model, tool calls, plugins), with approvals answered per task (see
app/eval_chat_tasks.py). Each task starts with an empty history; the expectations apply to its
last turn. Rates count only the tasks an expectation applies to; `retrieved` is a diagnostic
(was the expected plugin offered at all), not part of a task's pass.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from homeclaw_cli.app.eval_chat_checks import check_installed
from homeclaw_cli.app.eval_chat_tasks import ChatTask
from homeclaw_cli.core.action_claims import act_said
from homeclaw_cli.core.approval import Answer, ToolAction
from homeclaw_cli.core.capability_tools import plugin_ids
from homeclaw_cli.core.tool_parse import TOOL_NAME_SEPARATOR, parse_content_calls
from homeclaw_cli.core.trace import LlmStep, RetrieveStep, SkippedCallStep, ToolStep
from homeclaw_cli.core.turn_result import TurnResult
from homeclaw_cli.errors import HomeclawError, UsageError
from homeclaw_cli.settings import Settings

if TYPE_CHECKING:
    from homeclaw_cli.app.chat import ChatSession

METRICS = (
    "plugin",
    "needs",
    "capability",
    "args",
    "skill",
    "answer",
    "no_plugin",
    "asks",
    "retrieved",
)
SKILL_TOOLS = ("read_skill", "run_skill")
THRESHOLD_NAMES = (*METRICS, "passed")
# Tool-call JSON written as the answer: {"name": "x", "arguments": {...}} and its variants.
_CALL_TEXT = re.compile(
    r'"(?:name|function|tool)"\s*:\s*"[^"]+"\s*,\s*"(?:arguments|parameters|args)"\s*:'
)


@dataclass
class TaskRun:
    """One task, run once: its turns and the checks that apply to it."""

    task: ChatTask
    sample: int  # 1-based repetition
    turns: list[TurnResult]
    checks: dict[str, bool] = field(default_factory=dict)
    leaked: bool = False
    claimed: bool = False  # the answer says something was done, or offers it, and no tool ran

    @property
    def final(self) -> TurnResult:
        return self.turns[-1]

    @property
    def passed(self) -> bool:
        """Every check holds, no call leaked, no act was claimed done or offered without a
        tool, and the turn did not end in the model's failure (a plugin's failure, e.g. no
        network for the weather, leaves the task to its checks)."""
        if self.leaked or self.claimed or self.final.failure == "model":
            return False
        return all(v for k, v in self.checks.items() if k != "retrieved")

    def calls(self) -> list[dict[str, Any]]:
        """The last turn's tool calls: name, arguments, ok."""
        return [
            {"name": s.name, "arguments": s.arguments, "ok": s.ok}
            for s in self.final.steps
            if isinstance(s, ToolStep)
        ]

    def skipped(self) -> list[dict[str, Any]]:
        """The last turn's calls that were not run (made-up values): name, arguments, reason."""
        return [
            {"name": s.name, "arguments": s.arguments, "reason": s.reason}
            for s in self.final.steps
            if isinstance(s, SkippedCallStep)
        ]

    def to_json(self, *, trace: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "task": self.task.label,
            "line": self.task.line,
            "sample": self.sample,
            "request": self.task.turns,
            "expected": self.task.expected(),
            "passed": self.passed,
            "checks": self.checks,
            "leaked": self.leaked,
            "claimed": self.claimed,
            "calls": self.calls(),
            "skipped": self.skipped(),
            "answer": self.final.answer,
            "error": self.final.error,
            "failure": self.final.failure,
            "seconds": round(sum(t.timings.get("total", 0.0) for t in self.turns), 3),
            "turns": [turn_figures(t) for t in self.turns],
        }
        if trace:
            data["trace"] = [[s.to_json() for s in t.steps] for t in self.turns]
        return data


def turn_figures(turn: TurnResult) -> dict[str, Any]:
    """One turn's seconds and prompt tokens: of its first round and of all rounds (as the
    server counted them; the first round falls back to homeclaw's estimate without usage)."""
    rounds = [s for s in turn.steps if isinstance(s, LlmStep)]
    counted = [s.prompt_tokens for s in rounds if s.prompt_tokens is not None]
    first: int | None = rounds[0].prompt_tokens if rounds else None
    estimated = first is None and turn.prompt is not None
    if estimated:
        first = turn.prompt_tokens
    return {
        "seconds": round(turn.timings.get("total", 0.0), 3),
        "first_round_tokens": first,
        "turn_tokens": sum(counted) if counted and len(counted) == len(rounds) else None,
        "estimated": estimated,
    }


def score(task: ChatTask, turns: list[TurnResult], sample: int = 1) -> TaskRun:
    """Check the last turn against the task's expectations."""
    final = turns[-1]
    calls = final.tool_steps()
    called = set(plugin_ids(c.name for c in calls))
    run = TaskRun(task, sample, turns)
    run.leaked = leaked_call(final.answer, final.tools_offered)
    run.claimed = final.ok and not calls and act_said(final.answer, final.message) is not None
    checks = run.checks
    if task.plugins:
        checks["plugin"] = any(p in called for p in task.plugins)
        retrieved = {p.id for s in final.steps if isinstance(s, RetrieveStep) for p in s.plugins}
        checks["retrieved"] = any(p in retrieved for p in task.plugins)
    if task.needs:
        checks["needs"] = all(called & set(need) for need in task.need_plugins)
    if task.capability:
        name = f"{task.plugin}{TOOL_NAME_SEPARATOR}{task.capability}"
        wanted = [c for c in calls if c.name == name]
        checks["capability"] = bool(wanted)
        if task.args:
            checks["args"] = any(args_match(task.args, c.arguments) for c in wanted)
    if task.skill:
        checks["skill"] = any(
            c.name in SKILL_TOOLS
            and isinstance(c.arguments, dict)
            and value_matches(task.skill, c.arguments.get("skill_name", c.arguments.get("skill")))
            for c in calls
        )
    if task.no_plugin:
        checks["no_plugin"] = final.ok and not calls
    if task.asks:
        asked = {s.asked for s in final.steps if isinstance(s, SkippedCallStep)}
        checks["asks"] = final.ok and not calls and task.asks in asked
    if task.answers:
        text = final.answer.casefold() if final.ok else ""
        checks["answer"] = any(f.casefold() in text for f in task.answers)
    return run


def args_match(expected: dict[str, Any], actual: Any) -> bool:
    """Every expected key is in the call with a matching value (see value_matches)."""
    if not isinstance(actual, dict):
        return False
    return all(key in actual and value_matches(want, actual[key]) for key, want in expected.items())


def value_matches(expected: Any, actual: Any) -> bool:
    """Numbers by value ("5" == 5.0), text case-insensitively; an expected list against a
    single value gives alternatives."""
    if isinstance(expected, list) and not isinstance(actual, list):
        return any(value_matches(e, actual) for e in expected)
    if isinstance(expected, list):
        return len(expected) == len(actual) and all(map(value_matches, expected, actual))
    if isinstance(expected, dict):
        return args_match(expected, actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(expected).casefold() == str(actual).casefold()
    number = _number(expected), _number(actual)
    if number[0] is not None and number[1] is not None:
        return math.isclose(number[0], number[1], rel_tol=1e-6, abs_tol=1e-9)
    return str(actual).strip().casefold() == str(expected).strip().casefold()


def _number(value: Any) -> float | None:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def leaked_call(answer: str, offered: list[str]) -> bool:
    """True when the answer shown to the user is (or contains) a tool call's JSON."""
    if not answer.strip():
        return False
    return (
        bool(parse_content_calls(answer, offered))
        or bool(_CALL_TEXT.search(answer))
        or "<tool_call>" in answer
    )


@dataclass
class ChatEvalReport:
    """Every task run, and the rates, latency and prompt size over them."""

    tasks_file: str
    model: str
    provider: str
    repeat: int
    runs: list[TaskRun]
    seconds: float = 0.0

    def rates(self) -> dict[str, dict[str, Any]]:
        """Per metric: passed, total and rate (None when no task has that expectation)."""
        out: dict[str, dict[str, Any]] = {}
        for name in METRICS:
            values = [r.checks[name] for r in self.runs if name in r.checks]
            out[name] = _rate(sum(values), len(values))
        out["passed"] = _rate(sum(r.passed for r in self.runs), len(self.runs))
        return out

    @property
    def leaked(self) -> int:
        return sum(r.leaked for r in self.runs)

    @property
    def claimed(self) -> int:
        return sum(r.claimed for r in self.runs)

    def misses(self) -> list[TaskRun]:
        return [r for r in self.runs if not r.passed]

    def latency(self) -> dict[str, float | None]:
        """Seconds per turn (every turn of every task): median and p90."""
        totals = [t.timings.get("total", 0.0) for r in self.runs for t in r.turns]
        return {"median": _median(totals), "p90": _percentile(totals, 0.9)}

    def prompt_tokens(self) -> dict[str, Any]:
        """Median prompt tokens of a turn's first round and of the whole turn (all rounds), as
        the server counted them; the first round falls back to homeclaw's estimate when the
        server does not report usage."""
        counts = [turn_figures(t) for r in self.runs for t in r.turns]
        first = [c["first_round_tokens"] for c in counts if c["first_round_tokens"] is not None]
        whole = [c["turn_tokens"] for c in counts if c["turn_tokens"] is not None]
        estimated = any(c["estimated"] for c in counts)
        return {
            "first_round_median": _median(first),
            "turn_median": _median(whole),
            "source": "estimate" if estimated else "server",
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks_file": self.tasks_file,
            "model": self.model,
            "provider": self.provider,
            "repeat": self.repeat,
            "runs": len(self.runs),
            "rates": self.rates(),
            "leaked_calls": self.leaked,
            "claimed_acts": self.claimed,
            "latency_seconds": self.latency(),
            "prompt_tokens": self.prompt_tokens(),
            "seconds": round(self.seconds, 2),
            "tasks": [r.to_json(trace=False) for r in self.runs],
            "misses": [r.to_json(trace=True) for r in self.misses()],
        }


def _rate(passed: int, total: int) -> dict[str, Any]:
    return {"passed": passed, "total": total, "rate": round(passed / total, 4) if total else None}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(math.ceil(share * len(ordered)) - 1, 0)], 3)


def parse_thresholds(specs: list[str], max_leaked: int | None) -> dict[str, float]:
    """`--fail-under plugin=0.9` (or 90%) specs as {metric: minimum rate}."""
    out: dict[str, float] = {}
    for spec in specs:
        name, sep, raw = spec.partition("=")
        name = name.strip().replace("-", "_")
        value = _rate_value(raw.strip())
        if not sep or name not in THRESHOLD_NAMES or value is None:
            raise UsageError(
                f"--fail-under {spec!r} is not METRIC=RATE",
                hint=f"METRIC is one of {', '.join(THRESHOLD_NAMES)}; RATE 0.9 or 90%",
            )
        out[name] = value
    if max_leaked is not None:
        out["leaked_calls"] = float(max_leaked)
    return out


def _rate_value(raw: str) -> float | None:
    try:
        value = float(raw.removesuffix("%")) / (100 if raw.endswith("%") else 1)
    except ValueError:
        return None
    return value if 0 <= value <= 1 else None


def failed_thresholds(report: ChatEvalReport, thresholds: dict[str, float]) -> list[str]:
    """One line per threshold the report misses; a metric with no tasks does not fail."""
    failures = []
    rates = report.rates()
    for name, minimum in thresholds.items():
        if name == "leaked_calls":
            if report.leaked > minimum:
                failures.append(f"leaked calls {report.leaked} > {int(minimum)}")
            continue
        rate = rates[name]["rate"]
        if rate is not None and rate < minimum:
            failures.append(f"{name} {rate:.2f} < {minimum:.2f}")
    return failures


OnRun = Callable[[TaskRun, int, int], None]
MAX_MODEL_ERRORS = 3  # tasks in a row whose model call failed: the server is gone, stop


async def _run_turns(
    session: ChatSession, messages: list[str]
) -> tuple[list[TurnResult], HomeclawError | None]:
    """The task's turns; a failed model call (a timeout, a server error) ends the task as a
    miss with that error instead of ending the whole evaluation."""
    turns: list[TurnResult] = []
    for message in messages:
        try:
            turns.append(await session.ask(message))
        except HomeclawError as exc:
            turns.append(
                TurnResult(
                    message, ok=False, error=f"model call failed: {exc.message}", failure="model"
                )
            )
            return turns, exc
    return turns, None


async def run_tasks(
    settings: Settings,
    tasks: list[ChatTask],
    *,
    repeat: int = 1,
    tasks_file: str = "",
    on_run: OnRun | None = None,
) -> ChatEvalReport:
    """Every task `repeat` times through one ChatSession (history cleared between tasks).
    Raises the model's error when it fails MAX_MODEL_ERRORS tasks in a row."""
    from homeclaw_cli.app.chat import ChatSession

    allowed: set[str] = set()

    async def ask(action: ToolAction, _reason: str) -> Answer:
        return "yes" if any(key in allowed for key in action.rule_keys) else "no"

    session = ChatSession(settings, log=False, ask=ask)
    started = time.perf_counter()
    report = ChatEvalReport(tasks_file, session.model, settings.llm.provider, repeat, [])
    total = repeat * len(tasks)
    model_errors = 0
    try:
        context = session.context  # before any model call: a task that cannot pass costs none
        check_installed(tasks, context.registry, context.skill_registry, tasks_file or "tasks")
        await session.start()
        for sample in range(1, repeat + 1):
            for task in tasks:
                allowed.clear()
                allowed.update(task.allowed())
                session.agent.clear()
                turns, error = await _run_turns(session, task.turns)
                model_errors = model_errors + 1 if error else 0
                if error is not None and model_errors >= MAX_MODEL_ERRORS:
                    raise error
                report.runs.append(score(task, turns, sample))
                if on_run is not None:
                    on_run(report.runs[-1], len(report.runs), total)
    finally:
        await session.aclose()
        report.seconds = time.perf_counter() - started
    return report
