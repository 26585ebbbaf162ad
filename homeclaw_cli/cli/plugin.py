"""`homeclaw plugin ...`: validate, list and inspect plugins."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homeclaw_cli.cli.render import Output
from homeclaw_cli.cli.state import get_state
from homeclaw_cli.errors import ExitCode

app = typer.Typer(help="Write, inspect and run plugins.", no_args_is_help=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON (for editors, CI, scripts).")]


@app.command("validate")
def validate(
    ctx: typer.Context,
    paths: Annotated[
        list[Path], typer.Argument(help="Plugin folders, manifest files, or folders of plugins.")
    ],
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")] = False,
    live: Annotated[
        bool,
        typer.Option("--live", help="Also start MCP servers / contact http plugins to check them."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Check plugin manifests the way homeclaw will load them. Exit 0 valid, 1 invalid."""
    from homeclaw_cli.services.validate import validate_paths

    report = validate_paths(paths, strict=strict)
    if live:
        import asyncio

        from homeclaw_cli.services.health import add_live_diagnostics

        asyncio.run(add_live_diagnostics(report.results, get_state(ctx).settings()))
    out = Output(json_mode=as_json)
    if as_json:
        out.json(report.to_json())
    else:
        for result in report.results:
            label = result.manifest.id if result.manifest else result.folder.name
            where = result.manifest_path or result.folder
            if report.passed(result):
                mark = "[green]✓[/green]" if out.rich else "ok"
                out.markup(f"{mark} {label} ({where})")
            else:
                mark = "[red]✗[/red]" if out.rich else "invalid"
                out.markup(f"{mark} {label} ({where})")
            for diagnostic in result.diagnostics:
                out.text(f"  {diagnostic}")
        bad = sum(not report.passed(r) for r in report.results)
        out.info(f"{len(report.results) - bad} valid, {bad} invalid")
    if not report.ok:
        raise typer.Exit(int(ExitCode.FAILURE))


@app.command("list")
def list_plugins(
    ctx: typer.Context,
    show_all: Annotated[
        bool, typer.Option("--all", "-a", help="Also list shadowed plugins.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """List installed plugins: id, type, source, capabilities, status, token cost."""
    from homeclaw_cli.services.plugins import plugin_rows

    rows = plugin_rows(get_state(ctx).settings(), include_shadowed=show_all)
    out = Output(json_mode=as_json)
    if as_json:
        out.json(rows)
        return
    columns = ["ID", "NAME", "TYPE", "SOURCE", "CAPS", "STATUS", "TOKENS"]
    keys = ["id", "name", "type", "source", "capabilities", "status", "tokens"]
    out.table(
        columns,
        [[row[k] if k != "capabilities" else len(row[k]) for k in keys] for row in rows],
        styles={"ID": "cyan", "SOURCE": "dim"},
    )
    for row in rows:
        if row["status"] in ("broken", "unhealthy"):
            out.warning(f"{row['id']}: {row['problem']}")


@app.command("show")
def show(
    ctx: typer.Context,
    plugin_id: Annotated[str, typer.Argument(help="Plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Show a plugin's descriptor, capabilities and the tool schemas the model sees."""
    from homeclaw_cli.domain.registry import describe_entry, scan
    from homeclaw_cli.domain.tools import descriptor_token_cost, plugin_tools

    entry = scan(get_state(ctx).settings()).get(plugin_id)
    out = Output(json_mode=as_json)
    manifest = entry.manifest
    if as_json:
        data = describe_entry(entry)
        data["tools"] = plugin_tools(manifest)
        data["tokens"] = descriptor_token_cost(manifest)
        out.json(data)
        return
    out.markup(f"[bold cyan]{manifest.id}[/bold cyan]  {manifest.name} {manifest.version or ''}")
    out.text(f"type: {manifest.type}   source: {entry.source}   folder: {entry.folder or '-'}")
    out.text(f"description: {manifest.description}")
    if manifest.description_long:
        out.text(f"description_long: {manifest.description_long}")
    if manifest.keywords:
        out.text("keywords: " + ", ".join(manifest.keywords))
    out.text(f"prompt cost: ~{descriptor_token_cost(manifest)} tokens")
    if not manifest.permissions.empty:
        from homeclaw_cli.domain.permissions import describe

        out.text("permissions: " + "; ".join(describe(manifest.permissions)))
    for cap in manifest.callable_capabilities():
        flags = " (post-processed)" if cap.post_process else ""
        route = f" [{cap.method} {cap.path}]" if cap.method or cap.path else ""
        out.text(f"\n{cap.id}{route}: {cap.description}{flags}")
        for p in cap.parameters:
            need = "required" if p.required and not p.has_default else f"default={p.default!r}"
            out.text(f"  - {p.name} ({p.type}, {need}) {p.description}")
        if cap.output_description:
            out.text(f"  returns: {cap.output_description}")
    for warning in entry.warnings:
        out.warning(str(warning))
