"""`homeclaw skill test`: where retrieval ranks a skill for a query, and the skill's tests.yaml."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.catalog.skill_tests import TESTS_FILE, load_tests_file
from homeclaw_cli.catalog.skills import Skill, SkillRegistry
from homeclaw_cli.core.ports import Retriever
from homeclaw_cli.errors import HomeclawError, NotFoundError, UnavailableError
from homeclaw_cli.runtime.skill_run import ScriptResult, run_skill
from homeclaw_cli.settings import Settings

NOT_CANDIDATE = "not among the candidates"
RetrieverFactory = Callable[[AppContext], Retriever]


@dataclass
class QueryCheck:
    query: str
    skill_id: str
    rank: int | None
    score: float | None
    kept: bool
    reason: str
    expect_rank: int | None
    above: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        if not self.kept or self.rank is None:
            return False
        return self.expect_rank is None or self.rank <= self.expect_rank

    @property
    def message(self) -> str:
        if self.rank is None:
            if self.reason == NOT_CANDIDATE:
                return "not retrieved at all (not among the candidates)"
            return f"not checked: {self.reason}"
        where = (
            f"rank {self.rank}, score {self.score:.3f}"
            if self.score is not None
            else (f"rank {self.rank}")
        )
        if not self.kept:
            return f"{where}: would not be offered ({self.reason})"
        if self.expect_rank is not None and self.rank > self.expect_rank:
            return f"{where}: offered, but expected rank {self.expect_rank} or better"
        return f"{where}: offered"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed, "message": self.message}


@dataclass
class ScriptCheck:
    script: str
    args: list[str]
    result: ScriptResult | None
    failures: list[str]

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {
            "script": self.script,
            "args": self.args,
            "passed": self.passed,
            "failures": self.failures,
            "result": self.result.to_json() if self.result else None,
        }


@dataclass
class SkillTestReport:
    skill_id: str
    queries: list[QueryCheck] = field(default_factory=list)
    scripts: list[ScriptCheck] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(q.passed for q in self.queries) and all(s.passed for s in self.scripts)

    def to_json(self) -> dict[str, Any]:
        return {
            "skill": self.skill_id,
            "passed": self.passed,
            "queries": [q.to_json() for q in self.queries],
            "scripts": [s.to_json() for s in self.scripts],
        }


def default_retriever(context: AppContext) -> Retriever:
    """The context's RetrievalService, after an incremental sync of the skills index."""
    from homeclaw_cli.app.sync import sync

    sync(context.settings, kinds=("skills",), context=context)
    return context.retrieval


def check_query(
    retriever: Retriever, skill: Skill, query: str, expect_rank: int | None = None
) -> QueryCheck:
    """Where `skill` lands for `query`: rank, score, whether it is offered, what is above it."""
    result = retriever.search_skills(query)
    candidates = result.candidates
    mine = next((c for c in candidates if c.id == skill.id), None)
    if mine is None:
        return QueryCheck(query, skill.id, None, None, False, NOT_CANDIDATE, expect_rank)
    above = [
        {"id": c.id, "rank": c.rank, "score": c.score, "kept": c.kept}
        for c in sorted(candidates, key=lambda c: c.rank)
        if c.rank < mine.rank
    ]
    return QueryCheck(
        query, skill.id, mine.rank, mine.score, bool(mine.kept), mine.reason, expect_rank, above
    )


def check_script(
    settings: Settings,
    registry: SkillRegistry,
    skill: Skill,
    script: str,
    args: list[str],
    *,
    expect_exit: int = 0,
    expect_stdout: str | None = None,
    expect_stderr: str | None = None,
) -> ScriptCheck:
    try:
        result = run_skill(
            settings, skill.id, script, args, registry=registry, caller_cwd=skill.folder
        )
    except HomeclawError as exc:
        return ScriptCheck(script, args, None, [f"refused: {exc.message}"])
    failures = []
    if result.timed_out:
        failures.append("timed out")
    if result.exit_code != expect_exit:
        failures.append(f"exit code {result.exit_code}, expected {expect_exit}")
    if expect_stdout is not None and expect_stdout not in result.stdout:
        failures.append(
            f"stdout does not contain {expect_stdout!r}; it was {_shown(result.stdout)}"
        )
    if expect_stderr is not None and expect_stderr not in result.stderr:
        failures.append(
            f"stderr does not contain {expect_stderr!r}; it was {_shown(result.stderr)}"
        )
    return ScriptCheck(script, args, result, failures)


def _shown(output: str, limit: int = 300) -> str:
    """What a script printed, quoted on one line and cut at `limit` characters."""
    text = output.strip()
    if not text:
        return "empty"
    return repr(text if len(text) <= limit else text[:limit] + "…")


def run_tests_file(
    context: AppContext, skill: Skill, *, retriever_factory: RetrieverFactory | None = None
) -> SkillTestReport:
    """Run every case in the skill's tests.yaml (scripts from the context's skills)."""
    path = skill.folder / TESTS_FILE
    if not path.is_file():
        raise NotFoundError(
            f"skill {skill.id!r} has no {TESTS_FILE} ({path})",
            hint="add one (see `homeclaw skill test --help`), or pass --query / --script",
        )
    tests = load_tests_file(path)
    report = SkillTestReport(skill.id)
    for case in tests.scripts:
        report.scripts.append(
            check_script(
                context.settings,
                context.skill_registry,
                skill,
                case.script,
                case.args,
                expect_exit=case.expect_exit,
                expect_stdout=case.expect_stdout,
                expect_stderr=case.expect_stderr,
            )
        )
    if tests.queries:
        try:
            retriever = (retriever_factory or default_retriever)(context)
        except UnavailableError as exc:
            # Still report the script results; the queries fail with the reason.
            report.queries.extend(
                QueryCheck(q.query, skill.id, None, None, False, exc.message, q.expect_rank)
                for q in tests.queries
            )
            return report
        for q in tests.queries:
            report.queries.append(check_query(retriever, skill, q.query, q.expect_rank))
    return report
