"""`homeclaw skill ...`: list, show, validate, test and install skills.

main.py adds `search`/`sync` (cli/index_commands.py) and `update`/`remove`
(cli/skill_lifecycle.py) to this app.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from homeclaw_cli.errors import ExitCode, NotFoundError, UsageError
from homeclaw_cli.surfaces.cli.options import JsonFlag, YesFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.skill_test import QueryCheck, ScriptCheck
    from homeclaw_cli.catalog.skills import Skill, SkillRegistry
    from homeclaw_cli.runtime.skill_run import ScriptResult
    from homeclaw_cli.settings import Settings

app = typer.Typer(
    help="Write, inspect, test and install skills (folders with a SKILL.md).",
    no_args_is_help=True,
)

TrustFlag = Annotated[
    bool,
    typer.Option(
        "--trust-workspace",
        help="Also load ./skills of the current folder (off by default: it is untrusted).",
    ),
]


def _settings(ctx: typer.Context, trust_workspace: bool) -> Settings:
    flags: dict[str, Any] = {"skills.trust_workspace": True} if trust_workspace else {}
    return get_state(ctx).settings(**flags)


def _registry(ctx: typer.Context, trust_workspace: bool) -> tuple[Settings, SkillRegistry]:
    from homeclaw_cli.catalog.skills import scan_skills

    settings = _settings(ctx, trust_workspace)
    return settings, scan_skills(settings)


def _warn_untrusted(out: Output, registry: SkillRegistry) -> None:
    from homeclaw_cli.catalog.skills import skill_folders

    for folder in registry.untrusted_workspace:
        count = len(skill_folders(folder))
        out.warning(
            f"{folder} has {count} skill(s) that are not loaded: workspace skills are untrusted "
            "by default (use --trust-workspace, or set skills.trust_workspace: true)"
        )


@app.command("list")
def list_skills(
    ctx: typer.Context,
    show_all: Annotated[
        bool,
        typer.Option("--all", "-a", help="Also list ineligible, shadowed and broken skills."),
    ] = False,
    trust_workspace: TrustFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """List skills: id, name, source, status and script count."""
    registry = _registry(ctx, trust_workspace)[1]
    rows: list[dict[str, Any]] = []
    for skill in registry.skills.values():
        if not skill.eligible and not show_all:
            continue
        rows.append(_row(skill, "ok" if skill.eligible else "ineligible", skill.ineligible_reason))
    if show_all:
        for shadow in registry.shadowed:
            winner = shadow.shadowed_by
            rows.append(
                _row(
                    shadow.skill,
                    "shadowed",
                    f"by {winner.id} from {winner.source} ({winner.folder})",
                )
            )
        for broken in registry.broken:
            rows.append(
                {
                    "id": broken.folder.name,
                    "name": "",
                    "source": broken.source,
                    "status": "broken",
                    "reason": broken.error,
                    "scripts": 0,
                    "folder": str(broken.folder),
                    "description": "",
                }
            )
    out = Output(json_mode=as_json)
    if as_json:
        out.json(rows)
    else:
        out.table(
            ["ID", "NAME", "SOURCE", "STATUS", "SCRIPTS", "DESCRIPTION / REASON"],
            [
                [
                    r["id"],
                    r["name"],
                    r["source"],
                    r["status"],
                    r["scripts"],
                    r["reason"] or _short(r["description"]),
                ]
                for r in rows
            ],
            styles={"ID": "cyan", "SOURCE": "dim"},
        )
    ineligible = sum(not s.eligible for s in registry.skills.values())
    total = len(registry.skills)
    summary = f"{total} skill(s), {total - ineligible} eligible"
    if not show_all and (ineligible or registry.shadowed or registry.broken):
        summary += (
            f"; {ineligible} ineligible, {len(registry.shadowed)} shadowed, "
            f"{len(registry.broken)} broken not shown (--all shows them)"
        )
    out.info(summary)
    if not show_all:
        for broken in registry.broken:
            out.warning(broken.error)
    _warn_untrusted(out, registry)


def _row(skill: Skill, status: str, reason: str | None) -> dict[str, Any]:
    return {
        "id": skill.id,
        "name": skill.name,
        "source": skill.source,
        "status": status,
        "reason": reason,
        "scripts": len(skill.scripts),
        "folder": str(skill.folder),
        "description": skill.description,
    }


def _short(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@app.command("show")
def show(
    ctx: typer.Context,
    skill_id: Annotated[str, typer.Argument(help="Skill id (its folder name) or name.")],
    body: Annotated[bool, typer.Option("--body", help="Also print the SKILL.md body.")] = False,
    trust_workspace: TrustFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Show a skill: where it comes from, what it needs, its scripts and frontmatter."""
    from homeclaw_cli.core.tokens import estimate_tokens

    _s, registry = _registry(ctx, trust_workspace)
    skill = registry.get(skill_id)
    shadows = [s.skill for s in registry.shadowed if s.shadowed_by is skill]
    out = Output(json_mode=as_json)
    if as_json:
        data = skill.to_descriptor()
        data["warnings"] = skill.warnings
        data["shadows"] = [{"source": s.source, "folder": str(s.folder)} for s in shadows]
        data["body"] = skill.body
        out.json(data)
        return
    title = skill.id if skill.name == skill.id else f"{skill.id}  (name: {skill.name})"
    out.markup(f"[bold cyan]{escape(title)}[/bold cyan]")
    out.text(f"description: {skill.description}")
    out.text(f"source: {skill.source}   location: {skill.skill_md}")
    status = "eligible" if skill.eligible else f"ineligible: {skill.ineligible_reason}"
    out.text(f"status: {status}")
    req = skill.requirements
    needs = [
        f"{label}: {', '.join(values)}"
        for label, values in (
            ("os", req.os),
            ("bins", req.bins),
            ("any of bins", req.any_bins),
            ("env", req.env),
            ("config", req.config),
        )
        if values
    ]
    if req.always:
        needs.insert(0, "always: true (no other checks)")
    if needs:
        out.text(f"requires (metadata.{req.namespace}): " + "; ".join(needs))
    extra = {
        k: v for k, v in skill.frontmatter.items() if k not in ("name", "description", "metadata")
    }
    for key, value in extra.items():
        out.text(f"{key}: {value}")
    out.text("scripts: " + (", ".join(skill.scripts) if skill.scripts else "(none)"))
    out.text(f"body: ~{estimate_tokens(skill.body)} tokens (read on demand, not in the prompt)")
    for shadow in shadows:
        out.text(f"shadows: {shadow.source} copy at {shadow.folder}")
    for warning in skill.warnings:
        out.warning(warning)
    if body:
        out.text("")
        out.text(skill.body)


@app.command("validate")
def validate(
    ctx: typer.Context,
    paths: Annotated[
        list[Path], typer.Argument(help="Skill folders, SKILL.md files, or folders of skills.")
    ],
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Check skills the way homeclaw loads them. Exit 0 valid, 1 invalid."""
    from homeclaw_cli.app.skill_validate import validate_skill_paths

    report = validate_skill_paths(paths, get_state(ctx).settings(), strict=strict)
    out = Output(json_mode=as_json)
    if as_json:
        out.json(report.to_json())
    else:
        for check in report.checks:
            label = check.skill.display_name if check.skill else check.folder.name
            note = ""
            if check.skill and not check.skill.eligible:
                note = f" (not eligible here: {check.skill.ineligible_reason})"
            out.verdict(check.passed(strict), f"{label} ({check.folder}){note}")
            for error in check.errors:
                out.text(f"  error: {error}")
            for warning in check.warnings:
                out.text(f"  warning: {warning}")
        out.tally([c.passed(strict) for c in report.checks])
    if not report.ok:
        raise typer.Exit(int(ExitCode.FAILURE))


@app.command("test")
def test(  # noqa: PLR0917 - Typer maps parameters to options
    ctx: typer.Context,
    skill_id: Annotated[str, typer.Argument(help="Skill id.")],
    script_args: Annotated[
        list[str] | None,
        typer.Argument(help="Arguments for --script (put them after `--`)."),
    ] = None,
    script: Annotated[
        str | None, typer.Option("--script", "-s", help="Run this script as run_skill would.")
    ] = None,
    args_line: Annotated[
        str | None,
        typer.Option(
            "--args", help="Script arguments as one string, split like a shell: \"a 'b c'\"."
        ),
    ] = None,
    query: Annotated[
        list[str] | None,
        typer.Option("--query", "-q", help="Show where retrieval ranks this skill. Repeatable."),
    ] = None,
    expect_rank: Annotated[
        int | None,
        typer.Option("--expect-rank", min=1, help="Fail unless ranked this high or better."),
    ] = None,
    trust_workspace: TrustFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Test a skill: run a script (--script), rank queries (--query), or run its tests.yaml.

    \b
    homeclaw skill test disk-usage --script du.py -- ~/Downloads --top 5
    homeclaw skill test disk-usage --query "what fills my disk" --expect-rank 1
    homeclaw skill test disk-usage            # every case in the skill's tests.yaml

    tests.yaml (in the skill folder):
      queries: [{query: "...", expect_rank: 1}]
      scripts: [{script: du.py, args: ["."], expect_exit: 0, expect_stdout: "..."}]
    """
    from homeclaw_cli.app import skill_test

    settings, registry = _registry(ctx, trust_workspace)
    if skill_id not in registry.skills and ("/" in skill_id or Path(skill_id).is_dir()):
        raise NotFoundError(
            f"`skill test` takes a skill id, not a folder: {skill_id}",
            hint=f"install it first (`homeclaw skill install {skill_id}`), or set "
            "skills.test_dir to its parent folder and test it as test__NAME",
        )
    skill = registry.get(skill_id)
    out = Output(json_mode=as_json)
    args = [*(shlex.split(args_line) if args_line else []), *(script_args or [])]
    if args and not script:
        raise UsageError("script arguments given without --script", hint="add --script NAME")
    if expect_rank is not None and not query:
        raise UsageError("--expect-rank needs --query")
    if script:
        from homeclaw_cli.runtime.skill_run import run_skill

        result = run_skill(settings, skill.id, script, args, registry=registry)
        _print_script_result(out, result, as_json)
        if not result.ok:
            raise typer.Exit(int(ExitCode.FAILURE))
        return
    if query:
        retriever = skill_test.default_retriever(settings)
        checks = [skill_test.check_query(retriever, skill, q, expect_rank) for q in query]
        if as_json:
            out.json([c.to_json() for c in checks])
        else:
            for check in checks:
                _print_query_check(out, check)
        if not all(c.passed for c in checks):
            raise typer.Exit(int(ExitCode.FAILURE))
        return
    report = skill_test.run_tests_file(settings, registry, skill)
    if as_json:
        out.json(report.to_json())
    else:
        for script_check in report.scripts:
            _print_script_check(out, script_check)
        for query_check in report.queries:
            _print_query_check(out, query_check)
        passed = sum(c.passed for c in report.scripts) + sum(c.passed for c in report.queries)
        total = len(report.scripts) + len(report.queries)
        out.info(f"{skill.id}: {passed}/{total} checks passed")
    if not report.passed:
        raise typer.Exit(int(ExitCode.FAILURE))


def _print_script_result(out: Output, result: ScriptResult, as_json: bool) -> None:
    if as_json:
        out.json(result.to_json())
        return
    if result.stdout:
        out.text(result.stdout)
    if result.stderr.strip():
        out.err.print(result.stderr.rstrip(), markup=False, highlight=False)
    status = "timed out" if result.timed_out else f"exit {result.exit_code}"
    out.info(
        f"{result.skill_id}/{result.script}: {status} in {result.seconds:.2f} s"
        + (" (output truncated)" if result.truncated else "")
    )


def _print_script_check(out: Output, check: ScriptCheck) -> None:
    mark = "ok" if check.passed else "FAIL"
    out.text(f"{mark}  script {check.script} {shlex.join(check.args)}".rstrip())
    for failure in check.failures:
        out.text(f"      {failure}")
    if not check.passed and check.result is not None and check.result.stderr.strip():
        out.text("      stderr: " + check.result.stderr.strip().splitlines()[-1][:300])


def _print_query_check(out: Output, check: QueryCheck) -> None:
    mark = "ok" if check.passed else "FAIL"
    out.text(f"{mark}  query {check.query!r}: {check.message}")
    for other in check.above:
        offered = "offered" if other["kept"] else "not offered"
        out.text(f"      above: #{other['rank']} {other['id']} ({other['score']:.3f}, {offered})")


@app.command("install")
def install(  # noqa: PLR0917 - Typer maps parameters to options
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Skill folder, .zip/.tar.gz archive, or git URL.")],
    force: Annotated[
        bool, typer.Option("--force", "--upgrade", "-U", help="Replace an installed skill.")
    ] = False,
    skill_id: Annotated[
        str | None, typer.Option("--id", help="Install under this id (folder name).")
    ] = None,
    subdir: Annotated[
        str | None, typer.Option("--subdir", help="The skill's folder inside the source.")
    ] = None,
    as_json: JsonFlag = False,
    yes: YesFlag = False,
) -> None:
    """Validate a skill, then copy it atomically into the user skills folder."""
    from homeclaw_cli.app.install.skill import install_skill
    from homeclaw_cli.surfaces.cli.install_view import approver, show_skill_installed

    out = Output(json_mode=as_json)
    result = install_skill(
        get_state(ctx).settings(),
        source,
        force=force,
        skill_id=skill_id,
        subdir=subdir,
        approve=approver(out, yes),
    )
    show_skill_installed(out, result)
