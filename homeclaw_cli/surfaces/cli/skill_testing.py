"""The three modes of `homeclaw skill test`: run one script, rank queries, run tests.yaml."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from homeclaw_cli.errors import NotFoundError, UsageError
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.app.skill_test import QueryCheck, ScriptCheck, SkillTestReport
    from homeclaw_cli.catalog.skills import Skill, SkillRegistry
    from homeclaw_cli.runtime.skill_run import ScriptResult
    from homeclaw_cli.settings import Settings


def find_skill(registry: SkillRegistry, skill_id: str) -> Skill:
    """The skill to test; a folder path gets a hint instead of a bare not-found."""
    known = {*registry.skills, *registry.disabled, *(b.folder.name for b in registry.broken)}
    if skill_id not in known and ("/" in skill_id or Path(skill_id).is_dir()):
        raise NotFoundError(
            f"`skill test` takes a skill id, not a folder: {skill_id}",
            hint=f"install it first (`homeclaw skill install {skill_id}`), or set "
            "skills.test_dir to its parent folder and test it as test__NAME",
        )
    return registry.get(skill_id)


def script_arguments(
    args_lines: list[str] | None, script_args: list[str] | None, *, script: str | None
) -> list[str]:
    """Each --args split like a shell, then the arguments after `--`; both need --script."""
    args = [arg for line in args_lines or [] for arg in _shell_split(line)]
    args += script_args or []
    if args and not script:
        raise UsageError("script arguments given without --script", hint="add --script NAME")
    return args


def _shell_split(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:  # an unclosed quote: "No closing quotation"
        raise UsageError(
            f"--args {line!r}: {str(exc).lower()}",
            hint="close the quote, or pass the arguments after `--`, each quoted by your shell: "
            '--script NAME -- "it\'s mine"',
        ) from None


def run_script(
    out: Output,
    settings: Settings,
    registry: SkillRegistry,
    skill: Skill,
    *,
    script: str,
    args: list[str],
) -> bool:
    """Run `script` as run_skill would and print its result; True when it exited 0."""
    from homeclaw_cli.runtime.skill_run import run_skill

    result = run_skill(settings, skill.id, script, args, registry=registry)
    out.result(result, lambda: _show_script_result(out, result))
    return result.ok


def rank_queries(
    out: Output, context: AppContext, skill: Skill, queries: list[str], expect_rank: int | None
) -> bool:
    """Where retrieval ranks `skill` for each query; True when every check passed."""
    from homeclaw_cli.app import skill_test

    retriever = skill_test.default_retriever(context)
    checks = [skill_test.check_query(retriever, skill, q, expect_rank) for q in queries]

    def show() -> None:
        for check in checks:
            _show_query_check(out, check)

    out.result(checks, show)
    return all(c.passed for c in checks)


def run_tests_file(out: Output, context: AppContext, skill: Skill) -> bool:
    """Every case of the skill's tests.yaml; True when all passed."""
    from homeclaw_cli.app import skill_test

    report = skill_test.run_tests_file(context, skill)
    out.result(report, lambda: _show_report(out, report))
    return report.passed


def _show_report(out: Output, report: SkillTestReport) -> None:
    for script_check in report.scripts:
        _show_script_check(out, script_check)
    for query_check in report.queries:
        _show_query_check(out, query_check)
    passed = sum(c.passed for c in report.scripts) + sum(c.passed for c in report.queries)
    total = len(report.scripts) + len(report.queries)
    out.info(f"{report.skill_id}: {passed}/{total} checks passed")


def _show_script_result(out: Output, result: ScriptResult) -> None:
    if result.stdout:
        out.text(result.stdout)
    if result.stderr.strip():
        out.info(result.stderr.rstrip())
    status = "timed out" if result.timed_out else f"exit {result.exit_code}"
    out.info(
        f"{result.skill_id}/{result.script}: {status} in {result.seconds:.2f} s"
        + (" (output truncated)" if result.truncated else "")
    )


def _show_script_check(out: Output, check: ScriptCheck) -> None:
    mark = "ok" if check.passed else "FAIL"
    out.text(f"{mark}  script {check.script} {shlex.join(check.args)}".rstrip())
    for failure in check.failures:
        out.text(f"      {failure}")
    if not check.passed and check.result is not None and check.result.stderr.strip():
        out.text("      stderr: " + check.result.stderr.strip().splitlines()[-1][:300])


def _show_query_check(out: Output, check: QueryCheck) -> None:
    mark = "ok" if check.passed else "FAIL"
    out.text(f"{mark}  query {check.query!r}: {check.message}")
    for other in check.above:
        offered = "offered" if other["kept"] else "not offered"
        out.text(f"      above: #{other['rank']} {other['id']} ({other['score']:.3f}, {offered})")
