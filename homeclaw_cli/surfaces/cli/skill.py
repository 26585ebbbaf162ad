"""`homeclaw skill list|show|validate|test|install`: inspect, check, test and install skills."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.errors import HomeclawError, UsageError
from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.cli.options import JsonFlag, YesFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output, clip

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.app.skill_validate import ValidationReport
    from homeclaw_cli.catalog.skills import Skill, SkillRegistry

app = typer.Typer()

TrustFlag = Annotated[
    bool,
    typer.Option(
        "--trust-workspace",
        help="Also load ./skills of the current folder (off by default: it is untrusted).",
    ),
]


def _context(ctx: typer.Context, trust_workspace: bool) -> AppContext:
    flags: dict[str, Any] = {"skills.trust_workspace": True} if trust_workspace else {}
    return get_state(ctx).context(**flags)


def _registry(ctx: typer.Context, trust_workspace: bool) -> SkillRegistry:
    return _context(ctx, trust_workspace).skill_registry


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
    registry = _registry(ctx, trust_workspace)
    rows = _listing(registry, show_all=show_all)
    out = Output(json_mode=as_json)
    out.result(rows, lambda: _show_listing(out, rows))
    out.info(_summary(registry, show_all=show_all))
    if not show_all:
        for broken in registry.broken:
            out.warning(broken.error)
    _warn_untrusted(out, registry)


def _listing(registry: SkillRegistry, *, show_all: bool) -> list[dict[str, Any]]:
    """One row per eligible skill; with `show_all` also the ineligible, shadowed and broken."""
    rows = [
        _row(skill, "ok" if skill.eligible else "ineligible", skill.ineligible_reason)
        for skill in registry.skills.values()
        if skill.eligible or show_all
    ]
    rows += [_row(skill, "disabled", None) for skill in registry.disabled.values()]
    if not show_all:
        return rows
    for shadow in registry.shadowed:
        winner = shadow.shadowed_by
        reason = f"by {winner.id} from {winner.source} ({winner.folder})"
        rows.append(_row(shadow.skill, "shadowed", reason))
    rows += [
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
        for broken in registry.broken
    ]
    return rows


def _show_listing(out: Output, rows: list[dict[str, Any]]) -> None:
    out.table(
        ["ID", "NAME", "SOURCE", "STATUS", "SCRIPTS", "DESCRIPTION / REASON"],
        [
            [
                r["id"],
                r["name"],
                r["source"],
                r["status"],
                r["scripts"],
                r["reason"] or (clip(r["description"], 80) if out.rich else r["description"]),
            ]
            for r in rows
        ],
        styles={"ID": "cyan", "SOURCE": "dim"},
    )


def _summary(registry: SkillRegistry, *, show_all: bool) -> str:
    ineligible = sum(not s.eligible for s in registry.skills.values())
    total = len(registry.skills)
    summary = f"{total} skill(s), {total - ineligible} eligible"
    if not show_all and (ineligible or registry.shadowed or registry.broken):
        summary += (
            f"; {ineligible} ineligible, {len(registry.shadowed)} shadowed, "
            f"{len(registry.broken)} broken not shown (--all shows them)"
        )
    return summary


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


@app.command("show")
def show(
    ctx: typer.Context,
    skill_id: Annotated[str, complete.skill_argument("Skill id (its folder name) or name.")],
    body: Annotated[bool, typer.Option("--body", help="Also print the SKILL.md body.")] = False,
    trust_workspace: TrustFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Show a skill: where it comes from, what it needs, its scripts and frontmatter."""
    registry = _registry(ctx, trust_workspace)
    disabled = registry.disabled.get(skill_id)
    skill = disabled or registry.get(skill_id)
    shadows = [s.skill for s in registry.shadowed if s.shadowed_by is skill]
    data = skill.to_descriptor()
    data["disabled"] = disabled is not None
    data["warnings"] = skill.warnings
    data["shadows"] = [{"source": s.source, "folder": str(s.folder)} for s in shadows]
    data["body"] = skill.body
    from homeclaw_cli.app.expand import generated_examples, skill_targets

    generated = generated_examples(get_state(ctx).settings(), skill_targets(skill))
    data["generated_examples"] = [text for texts in generated.values() for text in texts]
    out = Output(json_mode=as_json)
    out.result(
        data,
        lambda: _show_skill(
            out,
            skill,
            shadows,
            body=body,
            disabled=disabled is not None,
            generated=data["generated_examples"],
        ),
    )


def _show_skill(
    out: Output,
    skill: Skill,
    shadows: list[Skill],
    *,
    body: bool,
    disabled: bool,
    generated: list[str],
) -> None:
    from homeclaw_cli.core.tokens import estimate_tokens

    title = skill.id if skill.name == skill.id else f"{skill.id}  (name: {skill.name})"
    out.line((title, "bold cyan"))
    out.text(f"description: {skill.description}")
    out.text(f"source: {skill.source}   location: {skill.skill_md}")
    status = "eligible" if skill.eligible else f"ineligible: {skill.ineligible_reason}"
    if disabled:
        status = f"disabled (`homeclaw skill enable {skill.id}` turns it back on)"
    out.text(f"status: {status}")
    needs = _needs(skill)
    if needs:
        out.text(f"requires (metadata.{skill.requirements.namespace}): " + "; ".join(needs))
    for key, value in skill.frontmatter.items():
        if key not in ("name", "description", "metadata", "examples", "not_for"):
            out.text(f"{key}: {value}")
    for example in skill.examples:
        out.text(f"example: {example}")
    for example in generated:
        out.text(f"example (generated): {example}")
    for request in skill.not_for:
        out.text(f"not for: {request}")
    out.text("scripts: " + (", ".join(skill.scripts) if skill.scripts else "(none)"))
    out.text(f"body: ~{estimate_tokens(skill.body)} tokens (read on demand, not in the prompt)")
    for shadow in shadows:
        out.text(f"shadows: {shadow.source} copy at {shadow.folder}")
    for warning in skill.warnings:
        out.warning(warning)
    if body:
        out.text("")
        out.text(skill.body)


def _needs(skill: Skill) -> list[str]:
    """The skill's requirements, one `label: values` item per kind."""
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
    return needs


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
    out.result(report, lambda: _show_validation(out, report, strict=strict))
    if not report.ok:
        exit_failed(out, HomeclawError("not valid", hint="each skill's problems are listed"))


def _show_validation(out: Output, report: ValidationReport, *, strict: bool) -> None:
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


@app.command("test")
def test(  # noqa: PLR0917 - Typer maps parameters to options
    ctx: typer.Context,
    skill_id: Annotated[str, complete.skill_argument("Skill id.")],
    script_args: Annotated[
        list[str] | None,
        typer.Argument(help="Arguments for --script (put them after `--`)."),
    ] = None,
    script: Annotated[
        str | None, typer.Option("--script", "-s", help="Run this script as run_skill would.")
    ] = None,
    args_line: Annotated[
        list[str] | None,
        typer.Option(
            "--args",
            help="Script arguments as one string, split like a shell: \"a 'b c'\". Repeatable.",
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
    from homeclaw_cli.surfaces.cli import skill_testing

    context = _context(ctx, trust_workspace)
    settings, registry = context.settings, context.skill_registry
    skill = skill_testing.find_skill(registry, skill_id)
    args = skill_testing.script_arguments(args_line, script_args, script=script)
    if expect_rank is not None and not query:
        raise UsageError("--expect-rank needs --query")
    out = Output(json_mode=as_json)
    if script:
        passed = skill_testing.run_script(out, settings, registry, skill, script=script, args=args)
    elif query:
        passed = skill_testing.rank_queries(out, context, skill, query, expect_rank)
    else:
        passed = skill_testing.run_tests_file(out, context, skill)
    if not passed:
        exit_failed(out, HomeclawError(f"skill {skill.id!r} failed its test"))


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
    from homeclaw_cli.surfaces.cli.steps import show_steps

    out = Output(json_mode=as_json)
    context = get_state(ctx).context()
    with show_steps(out, context) as steps:
        result = install_skill(
            context,
            source,
            force=force,
            skill_id=skill_id,
            subdir=subdir,
            approve=approver(out, yes, steps.paused),
        )
    show_skill_installed(out, result)
