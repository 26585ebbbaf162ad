"""Register and unregister external plugins (seed 001 §3): the API server and the CLI share this.

A registration body is the seed's descriptor (`plugin_id` instead of `id`), validated by the
same PluginManifest model as plugin.yaml files, so errors name the same fields.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.registered_commands import command_warnings
from homeclaw_cli.catalog.plugin_loader import LEGACY_CONFIG, find_manifest, manifest_from_data
from homeclaw_cli.catalog.registry import plugin_folders, plugin_roots
from homeclaw_cli.core.diagnostics import Diagnostic
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.document import Document, DocumentError, parse_json_text, read_document
from homeclaw_cli.errors import ConflictError, ManifestError, NotFoundError, UnavailableError
from homeclaw_cli.runtime.health import probe_url_now
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.external_registrations import (
    Change,
    payload_to_descriptor,
    refuse_taken_id,
    register_external,
    registration_lock,
    unregister_external,
)
from homeclaw_cli.state.health import HealthStatus

EXTERNAL_TYPES = ("http", "subprocess", "mcp")


class RegistrationError(ManifestError):
    """A registration body that does not validate; `problems` name each field."""

    def __init__(
        self,
        problems: list[dict[str, str]],
        *,
        where: str = "registration",
        hint: str = "the body is a plugin descriptor (like plugin.yaml, as JSON) with "
        "`plugin_id` instead of `id`; `homeclaw plugin validate` explains the same fields",
    ) -> None:
        text = "; ".join(_problem_text(p) for p in problems)
        super().__init__(f"invalid {where}: {text}", hint=hint)
        self.problems = problems


@dataclass
class RegistrationResult:
    plugin_id: str
    change: Change
    health: HealthStatus | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "plugin_id": self.plugin_id,
            "registered": True,
            "change": self.change,
            "health": self.health.to_json() if self.health else None,
            "warnings": self.warnings,
        }


def _problem_text(problem: dict[str, str]) -> str:
    where = problem["field"]
    if problem.get("line"):
        where += f" (line {problem['line']})"
    return f"{where}: {problem['message']}" if where else problem["message"]


def _problem(diagnostic: Diagnostic) -> dict[str, str]:
    name = diagnostic.field or ""
    message = diagnostic.message
    if name == "id":  # the wire format calls it plugin_id
        name = "plugin_id"
        message = message.replace("`id`", "`plugin_id`").replace("plugin id", "plugin_id")
    problem = {"field": name, "message": message}
    if diagnostic.line is not None:
        problem["line"] = str(diagnostic.line)
    return problem


def parse_registration(
    payload: Any, *, where: str = "registration", document: Document | None = None
) -> PluginManifest:
    """Validate a registration body into a PluginManifest or raise RegistrationError.

    `document` (a file read with positions) lets problems name their line.
    """
    if not isinstance(payload, dict):
        raise RegistrationError(
            [{"field": "", "message": "the body must be a JSON object (a plugin descriptor)"}],
            where=where,
        )
    if "id" in payload and "plugin_id" not in payload:
        raise RegistrationError(
            [
                {
                    "field": "id",
                    "message": "registrations name the plugin with `plugin_id`, not `id`",
                }
            ],
            where=where,
        )
    ptype = payload.get("type")
    if ptype not in EXTERNAL_TYPES:
        got = "it is missing" if ptype is None else f"got {ptype!r}"
        raise RegistrationError(
            [
                {
                    "field": "type",
                    "message": f"an external registration must be one of "
                    f"{', '.join(EXTERNAL_TYPES)} ({got}); inline plugins live in a plugins folder",
                }
            ],
            where=where,
        )
    data = payload_to_descriptor(payload)
    positions = dict(document.positions) if document else {}
    if ("plugin_id",) in positions:
        positions[("id",)] = positions[("plugin_id",)]
    manifest, diagnostics = manifest_from_data(data, Document(Path(where), data, positions))
    problems = [_problem(d) for d in diagnostics if d.severity == "error"]
    if manifest is not None and not problems:
        problems = _external_rules(manifest)
    if problems or manifest is None:
        raise RegistrationError(problems, where=where)
    return manifest


def _external_rules(manifest: PluginManifest) -> list[dict[str, str]]:
    problems: list[dict[str, str]] = []
    needs_url = manifest.type == "http" or (
        manifest.type == "mcp" and getattr(manifest.config, "transport", "stdio") != "stdio"
    )
    if needs_url and not manifest.health_check_url:
        problems.append(
            {
                "field": "health_check_url",
                "message": "missing required field `health_check_url` (a GET URL that answers "
                "2xx while the plugin is up, e.g. http://127.0.0.1:3100/health)",
            }
        )
    return problems


IndexSync = Callable[[Settings], object]


def index_sync_function(on_lock_wait: Callable[[str], None] | None = None) -> IndexSync:
    """The plugin index sync run after a registration change (tests swap it for a fake);
    `on_lock_wait` hears when it waits for another process's index lock."""

    def run(settings: Settings) -> object:
        from homeclaw_cli.app.sync import sync

        return sync(settings, kinds=("plugins",), on_lock_wait=on_lock_wait)

    return run


def runs_local_command(manifest: PluginManifest) -> bool:
    """True for subprocess plugins, stdio MCP servers and managed servers (`config.start`):
    homeclaw spawns their command."""
    if manifest.type == "subprocess" or manifest.managed_start() is not None:
        return True
    return manifest.type == "mcp" and getattr(manifest.config, "transport", "") == "stdio"


def declared_id(folder: Path) -> str | None:
    """The id a plugin folder claims (manifest or legacy config.yml), without validating it.

    Cheap on purpose (no code parsing): it runs on every registration, and a folder whose
    manifest is broken still owns its id.
    """
    path = find_manifest(folder) or folder / LEGACY_CONFIG
    try:
        data = read_document(path).data
    except (DocumentError, OSError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def folder_plugin_owner(settings: Settings, plugin_id: str) -> tuple[str, Path] | None:
    """(source, folder) of the folder plugin claiming this id, if any."""
    for root in plugin_roots(settings):
        for folder in plugin_folders(root.path):
            if declared_id(folder) == plugin_id:
                return root.source, folder
    return None


def _check_folder_conflict(settings: Settings, plugin_id: str) -> None:
    owner = folder_plugin_owner(settings, plugin_id)
    if owner is not None:
        source, folder = owner
        raise ConflictError(
            f"plugin id {plugin_id!r} belongs to the {source} plugin at {folder}; an external "
            "registration can never replace a folder plugin",
            hint="register under another plugin_id",
        )


def prepare_registration(
    settings: Settings,
    payload: Any,
    *,
    where: str = "registration",
    remote: bool = False,
    replace: bool = False,
    document: Document | None = None,
) -> PluginManifest:
    """Everything that can refuse a registration before its health check and write.

    `remote` (the HTTP API) refuses plugins that run a local command unless
    serve.allow_command_plugins: registering one would let a network client choose what
    homeclaw executes. Without `replace`, an id registered with another descriptor is refused.
    """
    manifest = parse_registration(payload, where=where, document=document)
    if remote and not settings.serve.allow_command_plugins and runs_local_command(manifest):
        raise RegistrationError(
            [
                {
                    "field": "type",
                    "message": f"{manifest.type} plugins that start a local command cannot be "
                    "registered over HTTP (a network client would choose what homeclaw runs); "
                    "register it with `homeclaw plugin register FILE.json`, or set "
                    "serve.allow_command_plugins: true",
                }
            ],
            where=where,
        )
    _check_folder_conflict(settings, manifest.id)
    if not replace:
        refuse_taken_id(settings.external_plugins_file, manifest)
    return manifest


def check_url(settings: Settings, manifest: PluginManifest, check: bool | None) -> str | None:
    """The URL to GET before registering, or None when the check is off or impossible."""
    do_check = settings.serve.check_on_register if check is None else check
    return manifest.health_check_url if do_check else None


def unreachable(manifest: PluginManifest, detail: str) -> UnavailableError:
    return UnavailableError(
        f"plugin {manifest.id!r} is not reachable: {detail}",
        hint="start the plugin before registering it, or skip the check "
        "(`--no-check`, or serve.check_on_register: false)",
    )


def commit_registration(
    context: AppContext,
    manifest: PluginManifest,
    *,
    replace: bool = False,
    checked: str | None = None,
    serialize: AbstractContextManager[Any] | None = None,
) -> RegistrationResult:
    """Write the registration; `checked` is the detail of a passed health check, if one ran.

    `serialize` is held around the file write only (the server's in-process writer lock).
    """
    settings = context.settings
    with serialize or contextlib.nullcontext():
        outcome = register_external(
            settings.external_plugins_file,
            registration_lock(settings.state_dir),
            manifest,
            replace=replace,
            on_wait=context.notice,
        )
    store = context.health
    health: HealthStatus | None = None
    if checked is not None:
        health = store.record(manifest.id, True, f"{checked} (at registration)")
    elif outcome.change != "unchanged":
        store.forget([manifest.id])  # an old status says nothing about the new descriptor
    warnings = command_warnings(manifest, Path.cwd())
    if outcome.backup is not None:
        warnings.append(
            f"{settings.external_plugins_file} could not be read ({outcome.corrupt_reason}); "
            f"it was moved to {outcome.backup} and a new file was started"
        )
    return RegistrationResult(manifest.id, outcome.change, health, warnings)


def read_registration(file: Path, stdin_text: str | None = None) -> tuple[str, Document]:
    """The registration document in `file` (`stdin_text` when the file is `-`) and the name
    errors should give it."""
    where = "<stdin>" if stdin_text is not None else str(file)
    try:
        if stdin_text is not None:
            return where, parse_json_text(Path(where), stdin_text.removeprefix("\ufeff"))
        if not file.is_file():
            what = "is a folder, not a file" if file.is_dir() else "does not exist"
            raise NotFoundError(f"{file} {what}", hint="give the path of a .json file")
        return where, read_document(file)
    except DocumentError as exc:
        position = f":{exc.line}:{exc.column}" if exc.line else ""
        raise ManifestError(
            f"{where}{position}: {exc.message}", hint="fix the syntax at that position"
        ) from None


def register_plugin(
    context: AppContext,
    payload: Any,
    *,
    replace: bool = False,
    check: bool | None = None,
    where: str = "registration",
    document: Document | None = None,
) -> RegistrationResult:
    """Validate, health-check (unless turned off) and persist one registration (the CLI path;
    the API runs the same steps with an async health check)."""
    settings = context.settings
    context.steps("validate", where)
    manifest = prepare_registration(
        settings, payload, where=where, replace=replace, document=document
    )
    url = check_url(settings, manifest, check)
    checked: str | None = None
    if url:
        context.steps("check", f"GET {url}")
        ok, checked = probe_url_now(url, timeout=settings.serve.health_timeout_sec)
        if not ok:
            raise unreachable(manifest, checked)
    context.steps("save", str(settings.external_plugins_file))
    return commit_registration(context, manifest, replace=replace, checked=checked)


def unregister_plugin(
    context: AppContext, plugin_id: str, *, serialize: AbstractContextManager[Any] | None = None
) -> None:
    """Remove an external registration (and its health record)."""
    settings = context.settings
    try:
        with serialize or contextlib.nullcontext():
            unregister_external(
                settings.external_plugins_file,
                registration_lock(settings.state_dir),
                plugin_id,
                on_wait=context.notice,
            )
    except NotFoundError:
        owner = folder_plugin_owner(settings, plugin_id)
        if owner is not None:
            raise NotFoundError(
                f"{plugin_id!r} is a {owner[0]} plugin, not an external registration",
                hint=f"`homeclaw plugin disable {plugin_id}` turns it off"
                + (
                    f"; `homeclaw plugin remove {plugin_id}` deletes it"
                    if owner[0] == "user"
                    else ""
                ),
            ) from None
        raise
    context.health.forget([plugin_id])
