"""Load one plugin folder into a PluginManifest plus diagnostics, without running its code.

Used by the registry (errors only matter there) and by `homeclaw plugin validate` (every
finding is shown), so both see exactly the same rules.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

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
from homeclaw_cli.core.tokens import estimate_tokens
from homeclaw_cli.document import Document, DocumentError, FieldPath, read_document
from homeclaw_cli.suggest import did_you_mean

LEGACY_CONFIG = "config.yml"
BASE_CLASS = "BasePlugin"
MAX_SOURCE_BYTES = 2 * 1024 * 1024
DESCRIPTION_TOKEN_LIMIT = 60
EMBEDDING_TOKEN_LIMIT = 256  # all-MiniLM-L6-v2 reads at most 256 word pieces

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


def is_plugin_folder(folder: Path) -> bool:
    return find_manifest(folder) is not None or (folder / LEGACY_CONFIG).is_file()


def load_plugin(target: Path) -> LoadResult:
    """Load a plugin from its folder or from a manifest file path."""
    if target.is_file():
        return _load_manifest(target.parent, target)
    manifest_path = find_manifest(target)
    if manifest_path is not None:
        return _load_manifest(target, manifest_path)
    if (target / LEGACY_CONFIG).is_file():
        return _load_legacy(target)
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
        result.diagnostics.extend(_semantic_checks(manifest, folder, document))
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
    module = next((p for p in sorted(folder.glob("*.py")) if _safe_plugin_class(p)), None)
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
        result.diagnostics.extend(_semantic_checks(manifest, folder, document))
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
            message = _message(err, loc, data)
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


def _message(err: Any, loc: FieldPath, data: dict[str, Any]) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        name = str(loc[-1])
        known = _known_fields(loc[:-1], data)
        return f"unknown field `{name}`{did_you_mean(name, known)}"
    if kind == "missing":
        return f"missing required field `{loc[-1]}`"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return f"must be one of {expected}, got {err.get('input')!r}"
    message = str(err["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    if kind not in ("value_error",) and "input" in err and not isinstance(err["input"], dict):
        message += f" (got {err['input']!r})"
    return message


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


def format_loc(loc: FieldPath) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


# --- checks that need the folder or more than one field ----------------------------------


def _semantic_checks(
    manifest: PluginManifest, folder: Path, document: Document
) -> list[Diagnostic]:
    out: list[Diagnostic] = []

    def add(
        severity: str, code: str, loc: FieldPath, message: str, hint: str | None = None
    ) -> None:
        position = document.position(loc)
        out.append(
            Diagnostic(
                severity,  # type: ignore[arg-type]
                code,
                document.path,
                message,
                field=format_loc(loc) or None,
                line=position[0] if position else None,
                column=position[1] if position else None,
                hint=hint,
            )
        )

    config = manifest.config
    if isinstance(config, InlineConfig):
        _check_inline(manifest, config, folder, add)
    else:
        command = config.command if isinstance(config, SubprocessConfig | McpConfig) else None
        if command and not command_exists(command, folder):
            add(
                "warning",
                "command-not-found",
                ("config", "command"),
                f"command {command!r} is not on PATH (or in the plugin folder)",
                "install it, or use an absolute path",
            )

    for loc, text in _descriptions(manifest):
        tokens = estimate_tokens(text)
        if tokens > DESCRIPTION_TOKEN_LIMIT:
            add(
                "warning",
                "description-length",
                loc,
                f"description is about {tokens} tokens; routing works best under "
                f"{DESCRIPTION_TOKEN_LIMIT}",
                "keep it to one or two sentences; put detail in description_long",
            )
    embed_tokens = estimate_tokens(manifest.embedding_text())
    if embed_tokens > EMBEDDING_TOKEN_LIMIT:
        add(
            "warning",
            "description-length",
            ("description_long",) if manifest.description_long else ("description",),
            f"the embedded text is about {embed_tokens} tokens; the embedding model reads only "
            f"the first {EMBEDDING_TOKEN_LIMIT}, so the rest does not help retrieval",
            "shorten description_long or capability descriptions",
        )
    return out


def _descriptions(manifest: PluginManifest) -> list[tuple[FieldPath, str]]:
    found: list[tuple[FieldPath, str]] = [(("description",), manifest.description)]
    for index, cap in enumerate(manifest.capabilities):
        found.append((("capabilities", index, "description"), cap.description))
    return found


def command_exists(command: str, folder: Path) -> bool:
    """True when the runners would find `command` (see catalog/plugin_files.py)."""
    from homeclaw_cli.catalog.plugin_files import resolve_command

    return resolve_command(command, folder) is not None


def method_name(capability_id: str) -> str:
    """The Python method an inline capability maps to: `fetch-weather` -> `fetch_weather`."""
    return capability_id.replace("-", "_")


def inline_module_path(folder: Path, config: InlineConfig) -> Path:
    """The file holding an inline plugin's class (`plugin_module`, or plugin.py)."""
    module = config.plugin_module or "plugin.py"
    if module.endswith(".py"):
        return folder / module
    relative = Path(*module.split("."))
    package_init = folder / relative / "__init__.py"
    return package_init if package_init.is_file() else folder / relative.with_suffix(".py")


def _check_inline(manifest: PluginManifest, config: InlineConfig, folder: Path, add: Any) -> None:
    module_path = inline_module_path(folder, config)
    if not module_path.is_file():
        add(
            "error",
            "inline-module",
            ("config", "plugin_module") if config.plugin_module else ("type",),
            f"inline plugin code {module_path.name} not found in {folder}",
            "create plugin.py with a BasePlugin subclass, or set config.plugin_module",
        )
        return
    try:
        methods = _plugin_class(module_path)
    except SyntaxError as exc:
        add(
            "error",
            "inline-module",
            ("config", "plugin_module") if config.plugin_module else ("type",),
            f"{module_path.name}:{exc.lineno}: Python syntax error: {exc.msg}",
        )
        return
    if methods is None:
        add(
            "error",
            "inline-module",
            ("type",),
            f"{module_path.name} defines no {BASE_CLASS} subclass",
            f"add `class MyPlugin({BASE_CLASS})` (from homeclaw_cli.sdk import {BASE_CLASS})",
        )
        return
    declared = manifest.capabilities or manifest.callable_capabilities()
    for index, cap in enumerate(declared):
        wanted = method_name(cap.id)
        if wanted not in methods and not (not manifest.capabilities and "run" in methods):
            add(
                "error",
                "inline-method",
                ("capabilities", index, "id") if manifest.capabilities else ("type",),
                f"capability {cap.id!r} has no method `{wanted}` in {module_path.name}"
                + did_you_mean(wanted, sorted(methods)),
                f"define `def {wanted}(self, ...)` on the plugin class",
            )


def _safe_plugin_class(module_path: Path) -> set[str] | None:
    try:
        return _plugin_class(module_path)
    except (SyntaxError, ValueError, OSError):
        return None


def _plugin_class(module_path: Path) -> set[str] | None:
    """Method names of the module's BasePlugin subclass (and its local bases), or None."""
    if module_path.stat().st_size > MAX_SOURCE_BYTES:
        return None
    tree = ast.parse(module_path.read_bytes(), filename=str(module_path))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def base_names(node: ast.ClassDef) -> list[str]:
        names = []
        for base in node.bases:
            if isinstance(base, ast.Name):
                names.append(base.id)
            elif isinstance(base, ast.Attribute):
                names.append(base.attr)
        return names

    def is_plugin(node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        for name in base_names(node):
            if name == BASE_CLASS:
                return True
            if name in classes and name not in seen and is_plugin(classes[name], seen | {name}):
                return True
        return False

    def methods(node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> set[str]:
        found = {
            item.name
            for item in node.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for name in base_names(node):
            if name in classes and name not in seen:
                found |= methods(classes[name], seen | {name})
        return found

    for node in classes.values():
        if node.name != BASE_CLASS and is_plugin(node):
            return methods(node)
    return None
