"""Load one plugin folder into a PluginManifest plus diagnostics, without running its code.

Used by the registry (errors only matter there) and by `homeclaw plugin validate` (every
finding is shown), so both see exactly the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from homeclaw_cli.catalog.plugin_checks import (
    BASE_CLASS,
    format_loc,
    safe_plugin_class,
    semantic_checks,
)
from homeclaw_cli.catalog.schema_errors import schema_message
from homeclaw_cli.core.diagnostics import Diagnostic, has_errors
from homeclaw_cli.core.manifest import (
    MANIFEST_NAMES,
    PLUGIN_TYPES,
    Capability,
    HttpConfig,
    InlineConfig,
    McpConfig,
    Parameter,
    Permissions,
    PluginManifest,
    SubprocessConfig,
)
from homeclaw_cli.document import Document, DocumentError, FieldPath, read_document

LEGACY_CONFIG = "config.yml"

_CONFIG_MODELS: dict[str, type[BaseModel]] = {
    "inline": InlineConfig,
    "subprocess": SubprocessConfig,
    "http": HttpConfig,
    "mcp": McpConfig,
}


@dataclass
class LoadResult:
    folder: Path
    manifest_path: Path | None
    manifest: PluginManifest | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    legacy: bool = False

    @property
    def ok(self) -> bool:
        return self.manifest is not None and not has_errors(self.diagnostics)


def find_manifest(folder: Path) -> Path | None:
    for name in MANIFEST_NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _ignored_manifests(folder: Path, used: Path) -> list[Diagnostic]:
    """A second manifest in one folder is never read: edits to it would change nothing."""
    return [
        Diagnostic(
            "warning",
            "ignored-manifest",
            folder / name,
            f"{name} is ignored: {used.name} in the same folder is the manifest homeclaw reads",
            hint=f"keep one manifest: merge what {name} adds into {used.name}, then delete {name}",
        )
        for name in MANIFEST_NAMES
        if name != used.name and (folder / name).is_file()
    ]


def is_plugin_folder(folder: Path) -> bool:
    return find_manifest(folder) is not None or (folder / LEGACY_CONFIG).is_file()


def load_plugin(target: Path) -> LoadResult:
    """Load a plugin from its folder or from a manifest file path."""
    try:
        if target.is_file():
            return _load_manifest(target.parent, target)
        manifest_path = find_manifest(target)
        if manifest_path is not None:
            result = _load_manifest(target, manifest_path)
            result.diagnostics.extend(_ignored_manifests(target, manifest_path))
            return result
        if (target / LEGACY_CONFIG).is_file():
            return _load_legacy(target)
    except OSError as exc:  # a folder this user may not read: broken, the others still load
        why = f"cannot read this folder: {exc.strerror}"
        hint = "give this user read access to it, or move it out of the plugin folders"
        return LoadResult(
            target, None, None, [Diagnostic("error", "unreadable", target, why, hint=hint)]
        )
    return LoadResult(
        target,
        None,
        None,
        [
            Diagnostic(
                "error",
                "no-manifest",
                target,
                "no plugin.yaml, plugin.yml or plugin.json here",
                hint="create plugin.yaml (see `homeclaw plugin new`), or point at a plugin folder",
            )
        ],
    )


def manifest_from_data(
    data: Any, document: Document
) -> tuple[PluginManifest | None, list[Diagnostic]]:
    """Validate parsed descriptor data; diagnostics carry field paths and lines."""
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        return None, [
            Diagnostic(
                "error",
                "schema",
                document.path,
                f"a plugin descriptor must be a mapping of fields, not {kind}",
                line=1,
                hint="start with `id:`, `name:` and `description:`",
            )
        ]
    try:
        return PluginManifest.model_validate(data), []
    except ValidationError as exc:
        return None, _translate(exc, data, document)


def _load_manifest(folder: Path, manifest_path: Path) -> LoadResult:
    result = LoadResult(folder, manifest_path, None)
    try:
        document = read_document(manifest_path)
    except DocumentError as exc:
        result.diagnostics.append(
            Diagnostic(
                "error", "syntax", manifest_path, exc.message, line=exc.line, column=exc.column
            )
        )
        return result
    manifest, diagnostics = manifest_from_data(document.data, document)
    result.diagnostics.extend(diagnostics)
    if manifest is not None:
        result.manifest = manifest
        result.diagnostics.extend(semantic_checks(manifest, folder, document))
    return result


def _load_legacy(folder: Path) -> LoadResult:
    """Seed 001 §5.2: config.yml + a .py with a BasePlugin subclass, no plugin.yaml."""
    config_path = folder / LEGACY_CONFIG
    result = LoadResult(folder, config_path, None, legacy=True)
    try:
        document = read_document(config_path)
    except DocumentError as exc:
        result.diagnostics.append(
            Diagnostic(
                "error", "syntax", config_path, exc.message, line=exc.line, column=exc.column
            )
        )
        return result
    data = document.data if isinstance(document.data, dict) else {}
    module = next((p for p in sorted(folder.glob("*.py")) if safe_plugin_class(p)), None)
    if module is None:
        result.diagnostics.append(
            Diagnostic(
                "error",
                "legacy",
                config_path,
                f"config.yml without plugin.yaml, and no .py file here defines a {BASE_CLASS} "
                "subclass",
                hint="add plugin.yaml, or a plugin.py with `class MyPlugin(BasePlugin)`",
            )
        )
        return result
    for key in ("id", "description"):
        if not isinstance(data.get(key), str) or not data.get(key):
            result.diagnostics.append(
                Diagnostic(
                    "error",
                    "legacy",
                    config_path,
                    f"legacy plugin config.yml needs a `{key}` string",
                    field=key,
                    line=(document.position((key,)) or (1, 1))[0],
                    hint=f"add `{key}: ...` to config.yml, or write a plugin.yaml",
                )
            )
    if has_errors(result.diagnostics):
        return result
    descriptor = {
        "id": data["id"],
        "name": data.get("name") or data["id"],
        "description": data["description"],
        "type": "inline",
        "config": {"plugin_module": module.name},
    }
    manifest, diagnostics = manifest_from_data(descriptor, document)
    result.diagnostics.extend(diagnostics)
    if manifest is not None:
        result.manifest = manifest
        result.diagnostics.extend(semantic_checks(manifest, folder, document))
    return result


# --- pydantic errors -> diagnostics ------------------------------------------------------


def _translate(exc: ValidationError, data: dict[str, Any], document: Document) -> list[Diagnostic]:
    errors = exc.errors()
    type_invalid = any(e["loc"] == ("type",) for e in errors)
    out: list[Diagnostic] = []
    for err in errors:
        loc = _clean_loc(err["loc"])
        ctx = err.get("ctx") or {}
        if err["type"] == "manifest_rule":
            loc = (*loc, *ctx.get("subpath", ()))
            message = str(ctx["reason"])
        else:
            message = schema_message(err, loc, _known_fields(loc[:-1], data))
        if type_invalid and loc[:1] == ("config",) and err["type"].startswith("union_tag"):
            continue  # the `type` error already explains it
        code = {
            "extra_forbidden": "unknown-field",
            "missing": "missing-field",
            "manifest_rule": "rule",
        }.get(err["type"], "schema")
        position = document.position(loc)
        out.append(
            Diagnostic(
                "error",
                code,
                document.path,
                message,
                field=format_loc(loc),
                line=position[0] if position else None,
                column=position[1] if position else None,
            )
        )
    return out


def _clean_loc(loc: tuple[Any, ...]) -> FieldPath:
    # Drop the discriminator tag pydantic inserts: ("config", "http", "base_url").
    if len(loc) >= 2 and loc[0] == "config" and loc[1] in PLUGIN_TYPES:
        loc = (loc[0], *loc[2:])
    return tuple(loc)


def _known_fields(parent: FieldPath, data: dict[str, Any]) -> list[str]:
    model: type[BaseModel] = PluginManifest
    if parent[:1] == ("config",):
        model = _CONFIG_MODELS.get(str(data.get("type", "inline")), InlineConfig)
    elif parent[:1] == ("permissions",):
        model = Permissions
    elif len(parent) >= 4 and parent[2] == "parameters":
        model = Parameter
    elif len(parent) >= 2 and parent[0] == "capabilities":
        model = Capability
    return [name for name in model.model_fields if name != "type" or model is PluginManifest]
