"""`homeclaw plugin validate|list|show|register|unregister`: check, list, inspect, register."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.validate import ValidationReport
    from homeclaw_cli.catalog.registry import PluginEntry
    from homeclaw_cli.settings import Settings
    from homeclaw_cli.surfaces.cli.steps import StepLog

app = typer.Typer()

SyncOpt = Annotated[
    bool | None,
    typer.Option(
        "--sync/--no-sync", help="Update the search index now (default: serve.sync_on_register)."
    ),
]


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
    from homeclaw_cli.app.validate import validate_paths

    report = validate_paths(paths, strict=strict)
    if live:
        import asyncio

        from homeclaw_cli.runtime.health import add_live_diagnostics

        asyncio.run(add_live_diagnostics(report.results, get_state(ctx).settings()))
    out = Output(json_mode=as_json)
    out.result(report, lambda: _show_validation(out, report))
    if not report.ok:
        invalid = [str(r.folder) for r in report.results if not report.passed(r)]
        exit_failed(out, HomeclawError(f"not valid: {', '.join(invalid)}"))


def _show_validation(out: Output, report: ValidationReport) -> None:
    for result in report.results:
        label = result.manifest.id if result.manifest else result.folder.name
        where = result.manifest_path or result.folder
        out.verdict(report.passed(result), f"{label} ({where})")
        for diagnostic in result.diagnostics:
            out.text(f"  {diagnostic}")
    out.tally([report.passed(r) for r in report.results])


@app.command("list")
def list_plugins(
    ctx: typer.Context,
    show_all: Annotated[
        bool,
        typer.Option("--all", "-a", help="Also list shadowed and untrusted workspace plugins."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """List installed plugins: id, type, source, capabilities, status, token cost."""
    from homeclaw_cli.app.plugin_listing import plugin_rows

    context = get_state(ctx).context()
    rows = plugin_rows(context, include_shadowed=show_all)
    out = Output(json_mode=as_json)
    for warning in context.registry.warnings():
        out.warning(warning)
    out.result(rows, lambda: _show_plugins(out, rows, folders=show_all))


def _show_plugins(out: Output, rows: list[dict[str, Any]], *, folders: bool) -> None:
    """With --all an id can be listed twice (one used, one shadowed): FOLDER tells them apart.
    Scripts get it as the last field; on a terminal it takes the place of NAME, CAPS and
    TOKENS (`plugin list` without --all shows them), so the table fits 80 columns."""
    columns = ["ID", "NAME", "TYPE", "SOURCE", "CAPS", "STATUS", "TOKENS"]
    if folders:
        columns = ["ID", "TYPE", "SOURCE", "STATUS", "FOLDER"] if out.rich else [*columns, "FOLDER"]
    keys = {"CAPS": "capabilities"}
    table = []
    for row in rows:
        values = {c: row[keys.get(c, c.lower())] for c in columns}
        if "CAPS" in values:
            values["CAPS"] = len(values["CAPS"])
        if "FOLDER" in values and out.rich:
            values["FOLDER"] = _short_path(values["FOLDER"])
        table.append([values[c] for c in columns])
    out.table(
        columns,
        table,
        styles={"ID": "cyan", "SOURCE": "dim", "FOLDER": "dim"},
        whole=["ID", "TYPE", "SOURCE", "CAPS", "STATUS", "TOKENS"],
    )
    for row in rows:
        if row["status"] in ("broken", "unhealthy", "untrusted"):
            out.warning(f"{row['id']}: {row['problem']}")


def _short_path(folder: str | None) -> str:
    """A folder as a person reads it: relative to the current folder, or under ~."""
    if not folder:
        return ""
    path = Path(folder)
    for base, prefix in ((Path.cwd(), ""), (Path.home(), "~/")):
        if path.is_relative_to(base) and path != base:
            return prefix + str(path.relative_to(base))
    return folder


@app.command("show")
def show(
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.plugin_argument("Plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Show a plugin's descriptor, capabilities and the tool schemas the model sees."""
    from homeclaw_cli.catalog.plugin_files import unmet_requirements
    from homeclaw_cli.catalog.registry import describe_entry
    from homeclaw_cli.core.capability_tools import descriptor_token_cost, plugin_tools

    registry = get_state(ctx).context().registry
    disabled = plugin_id in registry.disabled and plugin_id not in registry.plugins
    entry = registry.disabled[plugin_id] if disabled else registry.get(plugin_id)
    data = describe_entry(entry)
    data["disabled"] = disabled
    data["tools"] = plugin_tools(entry.manifest)
    data["tokens"] = descriptor_token_cost(entry.manifest)
    data["requires_missing"] = unmet_requirements(entry.folder, entry.manifest)
    generated = _generated(get_state(ctx).settings(), entry)
    data["generated_examples"] = generated
    out = Output(json_mode=as_json)
    out.result(
        data,
        lambda: _show_plugin(out, entry, generated, data["requires_missing"], disabled=disabled),
    )


def _generated(settings: Settings, entry: PluginEntry) -> dict[str, list[str]]:
    """The examples `sync --expand` wrote for this plugin's current descriptor, by capability
    id (`run` for a plugin without capabilities)."""
    from homeclaw_cli.app.expand import generated_examples, plugin_targets
    from homeclaw_cli.state.example_cache import WHOLE_ITEM

    found = generated_examples(settings, plugin_targets(entry))
    default = entry.manifest.callable_capabilities()[0].id
    return {default if cap == WHOLE_ITEM else cap: texts for cap, texts in found.items()}


def _show_plugin(
    out: Output,
    entry: PluginEntry,
    generated: dict[str, list[str]],
    missing: list[str],
    *,
    disabled: bool = False,
) -> None:
    from homeclaw_cli.catalog.plugin_files import config_file_name
    from homeclaw_cli.core.capability_tools import descriptor_token_cost
    from homeclaw_cli.core.permissions import describe

    manifest = entry.manifest
    out.line((manifest.id, "bold cyan"), f"  {manifest.name} {manifest.version or ''}")
    out.text(f"type: {manifest.type}   source: {entry.source}   folder: {entry.folder or '-'}")
    if disabled:
        out.text(f"status: disabled (`homeclaw plugin enable {manifest.id}` turns it back on)")
    out.text(f"description: {manifest.description}")
    if manifest.description_long:
        out.text(f"description_long: {manifest.description_long}")
    if manifest.keywords:
        out.text("keywords: " + ", ".join(manifest.keywords))
    for example in manifest.examples:
        out.text(f"example: {example}")
    for request in manifest.not_for:
        out.text(f"not for: {request}")
    out.text(f"prompt cost: ~{descriptor_token_cost(manifest)} tokens")
    if manifest.requires:
        needs = ", ".join(n.describe(config_file_name(manifest)) for n in manifest.requires)
        out.text(f"requires: {needs} ({'missing: chat does not offer it' if missing else 'set'})")
    start = manifest.managed_start()
    if start is not None:
        command = " ".join([start.command, *start.args])
        out.text(
            f"managed server: homeclaw runs `{command}` (cwd {start.cwd or 'the plugin folder'}) "
            f"on first use, waits for {start.ready}, and stops it on exit"
        )
    if not manifest.permissions.empty:
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
        for example in cap.examples:
            out.text(f"  example: {example}")
        for example in generated.get(cap.id, []):
            out.text(f"  example (generated): {example}")
    for warning in entry.warnings:
        out.warning(str(warning))


@app.command("register")
def register(
    ctx: typer.Context,
    file: Annotated[
        Path,
        typer.Argument(
            help="Plugin descriptor as JSON (plugin.yaml fields, `plugin_id` for `id`), or - "
            "for stdin."
        ),
    ],
    *,
    replace: Annotated[
        bool, typer.Option("--replace", help="Update a registration that already has this id.")
    ] = False,
    check: Annotated[
        bool | None,
        typer.Option("--check/--no-check", help="GET health_check_url first (default: config)."),
    ] = None,
    sync: SyncOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Register an external plugin from a JSON descriptor (same file and lock as the API)."""
    import sys

    from homeclaw_cli.app.registration import read_registration, register_plugin
    from homeclaw_cli.surfaces.cli.steps import show_steps

    stdin_text = sys.stdin.read() if str(file) == "-" else None
    where, document = read_registration(file, stdin_text)
    context = get_state(ctx).context()
    out = Output(json_mode=as_json)
    with show_steps(out, context) as steps:
        result = register_plugin(
            context, document.data, replace=replace, check=check, where=where, document=document
        )
        for warning in result.warnings:
            out.warning(warning)
        if result.change != "unchanged":
            _sync_index(context.settings, out, sync, steps)
    verb = {"added": "registered", "updated": "updated", "unchanged": "already registered"}
    out.result(result, lambda: out.text(f"{verb[result.change]} {result.plugin_id}"))


@app.command("unregister")
def unregister(
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.plugin_argument("Id of an external registration.")],
    sync: SyncOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Remove an external plugin registration."""
    from homeclaw_cli.app.registration import unregister_plugin

    context = get_state(ctx).context()
    settings = context.settings
    unregister_plugin(context, plugin_id)
    out = Output(json_mode=as_json)
    _sync_index(settings, out, sync)
    out.result(
        {"plugin_id": plugin_id, "unregistered": True},
        lambda: out.text(f"unregistered {plugin_id}"),
    )


def _sync_index(
    settings: Settings, out: Output, wanted: bool | None, steps: StepLog | None = None
) -> None:
    """Sync the plugin index after a registration change; the change itself is already saved."""
    from contextlib import nullcontext

    from homeclaw_cli.app.registration import index_sync_function
    from homeclaw_cli.errors import HomeclawError

    if not (settings.serve.sync_on_register if wanted is None else wanted):
        return
    sync = index_sync_function(on_lock_wait=out.info)
    if steps is not None:
        steps("sync", "plugin index")
    try:
        with out.status("updating the plugin index") if steps is None else nullcontext():
            sync(settings)
    except HomeclawError as exc:
        out.warning(f"saved, but the index was not updated ({exc.message}); run `homeclaw sync`")
