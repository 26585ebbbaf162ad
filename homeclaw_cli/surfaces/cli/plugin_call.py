"""`homeclaw plugin call|health|mcp-import`: run plugins directly, check them, import MCP tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from homeclaw_cli.errors import (
    HomeclawError,
    PluginCallError,
    UnavailableError,
    UsageError,
)
from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.mcp_import import ImportReport
    from homeclaw_cli.catalog.registry import PluginEntry
    from homeclaw_cli.runtime.caller import CallOutcome
    from homeclaw_cli.runtime.health import HealthReport

app = typer.Typer()


def parse_params(items: list[str]) -> dict[str, Any]:
    """`-p key=value` (text, coerced to the declared type later) or `-p key:=JSON` (typed)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(
                f"-p {item!r}: expected key=value (or key:=JSON for a typed value)",
                hint='e.g. -p city=Paris -p days=3 -p tags:=\'["a","b"]\'',
            )
        if key.rstrip(":") in out:
            raise UsageError(
                f"-p {key.rstrip(':')} is given twice", hint="give each parameter once"
            )
        if key.endswith(":"):
            key = key[:-1]
            try:
                out[key] = json.loads(value)
            except json.JSONDecodeError as exc:
                raise UsageError(
                    f"-p {item!r}: the value after := is not JSON ({exc.msg})"
                ) from None
        else:
            out[key] = value
    return out


@app.command("call")
def call(  # noqa: PLR0917 - Typer maps parameters to options
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.plugin_argument("Plugin id.")],
    capability: Annotated[
        str | None,
        typer.Argument(
            help="Capability id (optional when there is only one).",
            autocompletion=complete.capabilities,
        ),
    ] = None,
    params: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="key=value, or key:=JSON for a typed value. Repeatable.",
            autocompletion=complete.parameters,
        ),
    ] = None,
    user_input: Annotated[
        str,
        typer.Option("--input", "-i", help="The user's request text (PluginRequest.user_input)."),
    ] = "",
    as_json: JsonFlag = False,
) -> None:
    """Run one plugin capability and print its answer. Exit 0 ok, 1 failed, 5 unreachable."""
    context = get_state(ctx).context()
    values = parse_params(params or [])

    async def run() -> CallOutcome:
        try:
            return await context.caller.call(plugin_id, capability, values, user_input=user_input)
        finally:
            await context.aclose()

    import asyncio

    outcome = asyncio.run(run())
    out = Output(json_mode=as_json)
    if not as_json:
        _show_plugin_output(out, outcome, debug=get_state(ctx).debug)
    for warning in outcome.warnings:
        out.warning(warning)
    out.result(outcome, lambda: _show_answer(out, outcome))
    if not outcome.result.success:
        entry = context.registry.plugins.get(plugin_id)
        metadata = outcome.result.metadata
        hint = (
            _no_tool_hint(entry)
            if metadata.get("no_tool") and entry is not None
            else _unavailable_hint(
                entry,
                metadata.get("connect_failure"),
                context.settings.data_dir,
                error=outcome.result.error or "",
            )
        )
        _fail(outcome, hint, as_json=as_json, debug=get_state(ctx).debug)


def _show_plugin_output(out: Output, outcome: CallOutcome, *, debug: bool) -> None:
    """What an in-process plugin printed (kept off the terminal while it ran), and with
    --debug its own traceback, on stderr before the answer or the error."""
    metadata = outcome.result.metadata
    printed = metadata.get("printed")
    if isinstance(printed, str) and printed:
        out.passthrough(printed)
    trace = metadata.get("traceback")
    if debug and isinstance(trace, str) and trace:
        out.passthrough(trace)


def _show_answer(out: Output, outcome: CallOutcome) -> None:
    if outcome.result.success:
        out.text(outcome.result.text)
        if outcome.post_process and out.rich:
            out.info("(in chat, the model rewrites this answer: post_process)", style="dim")


def _fail(outcome: CallOutcome, hint: str, *, as_json: bool, debug: bool) -> NoReturn:
    """Exit 5 when the plugin was unreachable, 1 otherwise (under --json, next to the data)."""
    message = outcome.result.error or "the plugin failed"
    if outcome.result.metadata.get("traceback") and not debug:
        hint = "add --debug to see the plugin's traceback"
    elif outcome.failure != "unavailable":
        hint = ""
    error: HomeclawError = (
        UnavailableError(message, hint=hint)
        if outcome.failure == "unavailable"
        else PluginCallError(message, hint=hint or None)
    )
    if as_json:
        exit_failed(Output(json_mode=True), error)
    raise error


def _no_tool_hint(entry: PluginEntry) -> str:
    """An MCP server that answered but has no tool for the capability."""
    where = entry.manifest_path or entry.folder
    return (
        f"run `homeclaw plugin mcp-import {entry.folder or where}` to write the server's tools "
        f"as capabilities, or map the capability to one of its tools in config.tools in {where}"
    )


def _unavailable_hint(
    entry: PluginEntry | None,
    connect_failure: object = None,
    data_dir: Path | None = None,
    *,
    error: str = "",
) -> str:
    """What to do when the plugin could not be reached or loaded: an inline plugin's code to
    fix, a command to install, a server to start (or the log of the one homeclaw starts), or
    (`connect_failure` of an http plugin: dns, tls) a base_url to fix. `error` is the call's
    error: whether it holds the server's stderr decides where the hint sends the user."""
    if entry is None:
        return "`homeclaw plugin list` shows the installed plugins"
    check = f"`homeclaw plugin health {entry.id}` checks it"
    where = entry.manifest_path or entry.folder
    if connect_failure == "dns":
        return f"fix the host in config.base_url in {where}; then {check}"
    if connect_failure == "tls":
        return (
            f"check that the server speaks TLS with a valid certificate, or use http:// in "
            f"config.base_url ({where}); then {check}"
        )
    if entry.manifest.type == "inline":  # in-process: there is no server, only its code
        return f"fix its code in {entry.folder} (the error above says where); then {check}"
    from homeclaw_cli.catalog.plugin_files import resolve_command

    command = getattr(entry.manifest.config, "command", None)
    if command and resolve_command(command, entry.folder) is not None:
        if "stderr:" in error:
            why = "its stderr (in the error above) says why"
        else:  # it hangs, or dies without a word: running it shows what it does
            run = " ".join([command, *(getattr(entry.manifest.config, "args", None) or [])])
            inside = f" in {entry.folder}" if entry.folder else ""
            why = f"it printed nothing on stderr: run `{run}`{inside} to see what it does"
        return (
            f"`{command}` is there, but the server it starts did not answer: {why}; fix that "
            f"or config.args in {where}; then {check}"
        )
    if command:
        return f"install `{command}` or fix config.command in {where}; then {check}"
    if getattr(entry.manifest.config, "start", None) is not None and data_dir is not None:
        from homeclaw_cli.runtime.managed_server import log_path

        return (
            f"homeclaw starts its server (config.start in {where}); its log, "
            f"{log_path(data_dir, entry.id)}, says why it stopped or did not answer: fix "
            f"that, then {check}"
        )
    return f"start its server (`homeclaw plugin show {entry.id}` describes it), then {check}"


@app.command("health")
def health(
    ctx: typer.Context,
    plugin_id: Annotated[
        str | None,
        typer.Argument(
            metavar="PLUGIN_ID",
            help="Plugin id (default: all).",
            autocompletion=complete.plugin_ids,
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check plugins (http: health URL, subprocess: command, mcp: handshake) and store the result.

    Retrieval skips plugins whose stored status is unhealthy. Exit 5 when any check failed.
    """
    import asyncio

    from homeclaw_cli.runtime.health import check_plugins

    context = get_state(ctx).context()

    async def run() -> list[HealthReport]:
        try:
            return await check_plugins(context.caller, plugin_id)
        finally:
            await context.aclose()

    reports = asyncio.run(run())
    out = Output(json_mode=as_json)
    out.result(reports, lambda: _show_health(out, reports))
    if unhealthy := [r.plugin_id for r in reports if not r.status.ok]:
        exit_failed(out, UnavailableError(f"unhealthy: {', '.join(unhealthy)}"))


def _show_health(out: Output, reports: list[HealthReport]) -> None:
    rows = [
        [
            r.plugin_id,
            r.type,
            "ok" if r.status.ok else "unhealthy",
            f"{r.seconds * 1000:.0f} ms",
            r.status.detail,
        ]
        for r in reports
    ]
    out.table(["ID", "TYPE", "STATUS", "TIME", "DETAIL"], rows, styles={"ID": "cyan"})
    bad = sum(not r.status.ok for r in reports)
    out.info(f"{len(reports) - bad} healthy, {bad} unhealthy")


@app.command("mcp-import")
def mcp_import(
    folder: Annotated[Path, typer.Argument(help="An mcp plugin's folder (or its plugin.yaml).")],
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Import only these tools. Repeatable.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the capabilities instead of writing.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """List an MCP server's tools and write them into plugin.yaml as capabilities.

    Retrieval and the model then see each tool; calls go straight to that tool.
    """
    import asyncio

    from homeclaw_cli.app.mcp_import import import_tools

    report = asyncio.run(import_tools(folder, only=only or [], write=not dry_run))
    out = Output(json_mode=as_json)
    out.result(report, lambda: _show_import(out, report, dry_run=dry_run))


def _show_import(out: Output, report: ImportReport, *, dry_run: bool) -> None:
    if dry_run:
        out.text(report.yaml_text)
    for warning in report.warnings:
        out.warning(warning)
    verb = "would write" if dry_run else "wrote"
    out.info(f"{verb} {len(report.capabilities)} capabilities to {report.manifest_path}")
    if report.capabilities and not dry_run:  # MCP tools carry no example requests
        out.info("next: homeclaw sync --expand  (your chat model writes example requests for them)")
