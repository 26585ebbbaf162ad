"""Checks on a plugin that need its folder or more than one manifest field.

The schema (pydantic) catches what one field can get wrong; these catch what only the whole
plugin shows: capability methods missing from an inline plugin's class, a subprocess command
that does not exist, descriptions too long for the embedding model, and the like.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from homeclaw_cli.catalog.tool_name_checks import check_tool_names
from homeclaw_cli.core.diagnostics import Diagnostic
from homeclaw_cli.core.embedded_text import plugin_text
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
"""add(severity, code, field path, message, hint=None, at=None): record one finding, in
plugin.yaml at the field, or at `at` = (file, line, column) when it lies in another file."""
Place = tuple[Path, int | None, int | None]


def semantic_checks(manifest: PluginManifest, folder: Path, document: Document) -> list[Diagnostic]:
    out: list[Diagnostic] = []

    def add(
        severity: str,
        code: str,
        loc: FieldPath,
        message: str,
        hint: str | None = None,
        *,
        at: Place | None = None,
    ) -> None:
        position = document.position(loc)
        path, line, column = at or (document.path, *(position or (None, None)))
        out.append(
            Diagnostic(
                severity,  # type: ignore[arg-type]
                code,
                path,
                message,
                field=None if at else format_loc(loc) or None,
                line=line,
                column=column,
                hint=hint,
            )
        )

    config = manifest.config
    if isinstance(config, InlineConfig):
        _check_inline(manifest, config, folder, add)
        _check_method_clashes(manifest, add)
    elif isinstance(config, SubprocessConfig | McpConfig):
        _check_command(config.command, folder, add)
        _check_script_args(config.args, folder, add)
    _check_start(manifest, folder, add)
    _check_capabilities(manifest, add)
    check_tool_names(manifest, add)
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


RUN_TIME_MARKS = ("$", "{data_dir}", "{plugin_data}")
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".pl", ".php", ".jar")


def _check_script_args(args: list[str], folder: Path, add: Add) -> None:
    """An argument naming a script file (main.py, dist/server.js) must exist: a typo or a
    missing build step otherwise fails only when the model first calls the plugin.

    `{plugin_dir}` is filled as the runner fills it (runtime/process_env.expand_args); an
    argument under the data folder (`{data_dir}`, `{plugin_data}`) or with a $VAR is only
    known at run time, so it is not checked."""
    for index, arg in enumerate(args):
        if arg.startswith("-") or not arg.endswith(SCRIPT_SUFFIXES):
            continue
        if any(mark in arg for mark in RUN_TIME_MARKS):
            continue
        path = Path(arg.replace("{plugin_dir}", str(folder.absolute()))).expanduser()
        path = path if path.is_absolute() else folder / path
        if not path.is_file():
            add(
                "warning",
                "script-not-found",
                ("config", "args", index),
                f"script {arg!r} does not exist in {folder}",
                "fix the path, or build the plugin first (e.g. `npm run build`)",
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
    embed_tokens = estimate_tokens(plugin_text(manifest))
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
        at = (module_path, exc.lineno, exc.offset if exc.lineno else None)
        add("error", "inline-module", where, f"syntax error: {exc.msg}", at=at)
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
        elif manifest.capabilities and name in found.signatures:
            declared_names = [p.name for p in cap.parameters]
            _check_signature(
                found.signatures[name], declared_names, ("capabilities", index, "parameters"), add
            )


def _check_method_clashes(manifest: PluginManifest, add: Add) -> None:
    """`run-x` and `run_x` both call method run_x: one of them can never do anything else."""
    first: dict[str, str] = {}
    for index, cap in enumerate(manifest.capabilities):
        name = method_name(cap.id)
        other = first.setdefault(name, cap.id)
        if other != cap.id:
            add(
                "warning",
                "inline-method-clash",
                ("capabilities", index, "id"),
                f"capabilities {other!r} and {cap.id!r} both call method `{name}` ('-' becomes "
                "'_'), so they always do the same thing",
                f"rename one of them (and its method), or remove {cap.id!r}",
            )


@dataclass(frozen=True)
class PluginClass:
    """The class an inline plugin's module provides, as read from its source."""

    name: str
    methods: frozenset[str]
    is_base_plugin: bool
    signatures: dict[str, Signature] = field(default_factory=dict)


@dataclass(frozen=True)
class Signature:
    """What a method accepts, read from its `def` line (self left out)."""

    text: str
    accepted: frozenset[str]
    required: tuple[str, ...]
    takes_any: bool  # **kwargs


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Signature:
    args = node.args
    positional = [*args.posonlyargs, *args.args][1:]  # without self
    defaults = len(args.defaults)
    required = [a.arg for a in positional[: len(positional) - defaults]]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    return Signature(
        text=f"def {node.name}({ast.unparse(args)})",
        accepted=frozenset(a.arg for a in [*positional, *args.kwonlyargs]),
        required=tuple(required),
        takes_any=args.kwarg is not None,
    )


def _check_signature(sig: Signature, declared: list[str], where: FieldPath, add: Add) -> None:
    """Parameters the method would never receive, and arguments no call would pass."""
    dropped = [] if sig.takes_any else [n for n in declared if n not in sig.accepted]
    if dropped:
        add(
            "warning",
            "inline-signature",
            where,
            f"`{sig.text}` does not accept declared parameter(s) {', '.join(dropped)}: "
            "their values would be dropped",
            "add them to the method (or **kwargs), or remove them from `parameters`",
        )
    missing = [n for n in sig.required if n not in declared]
    if missing:
        add(
            "warning",
            "inline-signature",
            where,
            f"`{sig.text}` requires {', '.join(missing)}, which the capability does not declare: "
            "every call would fail",
            "declare them under `parameters`, or give them defaults",
        )


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
        defs = _methods(node, classes)
        methods = frozenset(defs)
        signatures = {name: _signature(d) for name, d in defs.items()}
        if _is_plugin(node, classes):
            return PluginClass(node.name, methods, True, signatures)
        if not node.name.startswith("_") and methods & wanted:
            plain.append(PluginClass(node.name, methods, False, signatures))
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
) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The class's methods by name, its own over those of its bases in the module."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for name in _base_names(node):
        if name in classes and name not in seen:
            found.update(_methods(classes[name], classes, seen | {name}))
    found.update(
        (item.name, item)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    )
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
