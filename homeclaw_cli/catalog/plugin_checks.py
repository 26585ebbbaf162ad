"""Checks on a plugin that need its folder or more than one manifest field.

The schema (pydantic) catches what one field can get wrong; these catch what only the whole
plugin shows: capability methods missing from an inline plugin's class, a subprocess command
that does not exist, descriptions too long for the embedding model, and the like.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from homeclaw_cli.core.diagnostics import Diagnostic
from homeclaw_cli.core.manifest import InlineConfig, McpConfig, PluginManifest, SubprocessConfig
from homeclaw_cli.core.server_start import LOOPBACK_HOSTS, same_server
from homeclaw_cli.core.tokens import estimate_tokens
from homeclaw_cli.document import Document, FieldPath
from homeclaw_cli.suggest import did_you_mean

BASE_CLASS = "BasePlugin"
MAX_SOURCE_BYTES = 2 * 1024 * 1024
DESCRIPTION_TOKEN_LIMIT = 60
EMBEDDING_TOKEN_LIMIT = 256  # all-MiniLM-L6-v2 reads at most 256 word pieces


Add = Callable[..., None]
"""add(severity, code, field path, message, hint=None): record one finding."""


def semantic_checks(manifest: PluginManifest, folder: Path, document: Document) -> list[Diagnostic]:
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
    elif isinstance(config, SubprocessConfig | McpConfig):
        _check_command(config.command, folder, add)
    _check_start(manifest, folder, add)
    _check_capabilities(manifest, add)
    _check_description_sizes(manifest, add)
    return out


def _check_command(command: str | None, folder: Path, add: Add) -> None:
    if command and not command_exists(command, folder):
        add(
            "warning",
            "command-not-found",
            ("config", "command"),
            f"command {command!r} is not on PATH (or in the plugin folder)",
            "install it, or use an absolute path",
        )


def _check_start(manifest: PluginManifest, folder: Path, add: Add) -> None:
    """A managed server (`config.start`): its command exists and `ready` is a URL of the
    server homeclaw starts, on this machine."""
    start = manifest.managed_start()
    if start is None:
        return
    if not command_exists(start.command, folder):
        add(
            "warning",
            "command-not-found",
            ("config", "start", "command"),
            f"start command {start.command!r} is not on PATH (or in the plugin folder)",
            "install it, or use an absolute path",
        )
    if start.ready_host() not in LOOPBACK_HOSTS:
        add(
            "error",
            "start-ready-remote",
            ("config", "start", "ready"),
            f"ready {start.ready!r} is not on this machine, but homeclaw starts the server here",
            "use http://127.0.0.1:<port>/<health path> of the server the command starts",
        )
    server = getattr(manifest.config, "base_url", None) or getattr(manifest.config, "url", None)
    if server and not same_server(start.ready, server):
        add(
            "warning",
            "start-ready-elsewhere",
            ("config", "start", "ready"),
            f"ready {start.ready!r} and {server!r} are different servers: homeclaw waits "
            "for one and calls the other",
            "point ready at a health path of the same host and port",
        )


def _check_capabilities(manifest: PluginManifest, add: Add) -> None:
    for index, cap in enumerate(manifest.capabilities):
        verb = _changing_verb(cap.id, cap.name)
        if verb and not (cap.effects or manifest.effects):
            add(
                "warning",
                "effects-undeclared",
                ("capabilities", index, "id"),
                f"capability {cap.id!r} sounds like it {verb}s but declares no `effects`",
                "declare `effects: write` (or destructive / network / read) so homeclaw knows "
                "whether the model may run it without asking",
            )
        if cap.post_process_prompt and not cap.post_process:
            add(
                "warning",
                "post-process-prompt-unused",
                ("capabilities", index, "post_process_prompt"),
                "post_process_prompt is set but post_process is false, so the prompt is not used",
                "set `post_process: true`, or remove the prompt",
            )


def _check_description_sizes(manifest: PluginManifest, add: Add) -> None:
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


_CHANGING_VERBS = (
    "delete", "remove", "erase", "drop", "purge", "clear", "send", "post", "publish", "email",
    "write", "create", "add", "update", "edit", "set", "save", "move", "rename", "pay", "buy",
    "order", "book", "cancel", "kill", "stop",
)  # fmt: skip


def _changing_verb(*names: str) -> str | None:
    """The verb in a capability's id or name that says it changes something, if any."""
    words = {w for name in names for w in re.split(r"[^a-z]+", name.lower()) if w}
    return next((verb for verb in _CHANGING_VERBS if verb in words), None)


def _descriptions(manifest: PluginManifest) -> list[tuple[FieldPath, str]]:
    found: list[tuple[FieldPath, str]] = [(("description",), manifest.description)]
    for index, cap in enumerate(manifest.capabilities):
        found.append((("capabilities", index, "description"), cap.description))
    return found


def command_exists(command: str, folder: Path) -> bool:
    """True when the runners would find `command` (see catalog/plugin_files.py)."""
    from homeclaw_cli.catalog.plugin_files import resolve_command

    return resolve_command(command, folder) is not None


def _check_inline(manifest: PluginManifest, config: InlineConfig, folder: Path, add: Add) -> None:
    module_path = inline_module_path(folder, config)
    where = ("config", "plugin_module") if config.plugin_module else ("type",)
    if not module_path.is_file():
        add(
            "error",
            "inline-module",
            where,
            f"inline plugin code {module_path.name} not found in {folder}",
            "create plugin.py with a BasePlugin subclass, or set config.plugin_module",
        )
        return
    declared = manifest.capabilities or manifest.callable_capabilities()
    wanted = [method_name(cap.id) for cap in declared]
    try:
        found = find_plugin_class(module_path, set(wanted))
    except SyntaxError as exc:
        add(
            "error",
            "inline-module",
            where,
            f"{module_path.name}:{exc.lineno}: Python syntax error: {exc.msg}",
        )
        return
    if found is None:
        add(
            "error",
            "inline-module",
            ("type",),
            f"{module_path.name} defines no {BASE_CLASS} subclass and no class with the "
            f"capability methods ({', '.join(wanted)})",
            f"add `class MyPlugin({BASE_CLASS})` (from homeclaw_cli.sdk import {BASE_CLASS})",
        )
        return
    if not found.is_base_plugin:
        add(
            "warning",
            "inline-plain-class",
            ("type",),
            f"class {found.name} in {module_path.name} is not a {BASE_CLASS} subclass: it runs, "
            "but without the SDK helpers that enforce permissions (data_dir, fetch, getenv)",
            f"subclass {BASE_CLASS} (from homeclaw_cli.sdk import {BASE_CLASS})",
        )
    for index, (cap, name) in enumerate(zip(declared, wanted, strict=True)):
        if name not in found.methods and not (not manifest.capabilities and "run" in found.methods):
            add(
                "error",
                "inline-method",
                ("capabilities", index, "id") if manifest.capabilities else ("type",),
                f"capability {cap.id!r} has no method `{name}` in {module_path.name}"
                + did_you_mean(name, sorted(found.methods)),
                f"define `def {name}(self, ...)` on the plugin class",
            )


@dataclass(frozen=True)
class PluginClass:
    """The class an inline plugin's module provides, as read from its source."""

    name: str
    methods: frozenset[str]
    is_base_plugin: bool


def safe_plugin_class(module_path: Path) -> set[str] | None:
    """Method names of the module's BasePlugin subclass, or None (also for unreadable code)."""
    try:
        found = find_plugin_class(module_path, set())
    except (SyntaxError, ValueError, OSError):
        return None
    return set(found.methods) if found is not None and found.is_base_plugin else None


def find_plugin_class(module_path: Path, wanted: set[str]) -> PluginClass | None:
    """The module's BasePlugin subclass; failing that, the plain class that defines the most
    of the `wanted` capability methods (at least one). None when there is neither."""
    if module_path.stat().st_size > MAX_SOURCE_BYTES:
        return None
    tree = ast.parse(module_path.read_bytes(), filename=str(module_path))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    plain: list[PluginClass] = []
    for node in classes.values():
        if node.name == BASE_CLASS:
            continue
        methods = frozenset(_methods(node, classes))
        if _is_plugin(node, classes):
            return PluginClass(node.name, methods, is_base_plugin=True)
        if not node.name.startswith("_") and methods & wanted:
            plain.append(PluginClass(node.name, methods, is_base_plugin=False))
    return max(plain, key=lambda c: len(c.methods & wanted), default=None)


def _base_names(node: ast.ClassDef) -> list[str]:
    names = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def _is_plugin(
    node: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset[str] = frozenset()
) -> bool:
    for name in _base_names(node):
        if name == BASE_CLASS:
            return True
        if (
            name in classes
            and name not in seen
            and _is_plugin(classes[name], classes, seen | {name})
        ):
            return True
    return False


def _methods(
    node: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset[str] = frozenset()
) -> set[str]:
    found = {
        item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for name in _base_names(node):
        if name in classes and name not in seen:
            found |= _methods(classes[name], classes, seen | {name})
    return found


def format_loc(loc: FieldPath) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


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
