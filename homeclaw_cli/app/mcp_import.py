"""Turn an MCP server's tools into capabilities of its plugin manifest (seed 001 §7).

Each tool becomes a capability (updating one of the same id, keeping the others) whose
id is the tool name made valid ([a-z0-9_-], cut so that the tool names the model sees fit 64
characters, numbered when two tools make the same id); when the two differ, `config.tools`
records the mapping so calls reach the right tool. The plugin's own dispatcher (`config.tool`,
`handle_request` by default) is not a capability and is left out unless named with --only.

Parameters keep the tool's JSON Schema: its types (integer included), enums, defaults, and
for object and array parameters the nested schema. Effects come from the server's
annotations: readOnlyHint -> read, destructiveHint -> destructive, otherwise write. The
manifest is rewritten atomically, keeping its comments and layout (ruamel.yaml round trip).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.mcp_client import McpTool
from homeclaw_cli.catalog.plugin_loader import load_plugin
from homeclaw_cli.catalog.tool_name_checks import MAX_TOOL_NAME
from homeclaw_cli.core.manifest import PARAM_NAME_RE, McpConfig, PluginManifest, value_matches_type
from homeclaw_cli.document import read_document
from homeclaw_cli.errors import ManifestError, UnavailableError, UsageError, missing_path
from homeclaw_cli.fsutil import atomic_write_text
from homeclaw_cli.runtime.runners.base import RunTarget
from homeclaw_cli.runtime.runners.mcp import McpRunner
from homeclaw_cli.settings import load_settings
from homeclaw_cli.suggest import did_you_mean

_SCHEMA_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array"})
# What an object or array parameter's own schema keeps (the rest is said by homeclaw's fields).
_NESTED_KEYS = ("properties", "required", "items", "additionalProperties", "minItems", "maxItems")
DESCRIPTION_CHARS = 160
MAX_REF_DEPTH = 5


@dataclass
class ImportReport:
    manifest_path: Path
    capabilities: list[dict[str, Any]]
    tool_map: dict[str, str]
    yaml_text: str
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "manifest_path": str(self.manifest_path),
            "capabilities": self.capabilities,
            "tools": self.tool_map,
            "warnings": self.warnings,
        }


async def import_tools(target: Path, *, only: list[str], write: bool) -> ImportReport:
    if not target.exists():
        raise missing_path(target, hint="give an mcp plugin's folder or its plugin.yaml")
    loaded = load_plugin(target.resolve())
    if loaded.manifest is None or loaded.manifest_path is None or loaded.legacy:
        problems = "; ".join(str(d) for d in loaded.diagnostics) or "no plugin manifest"
        raise ManifestError(f"{target}: cannot import MCP tools: {problems}")
    manifest = loaded.manifest
    if not isinstance(manifest.config, McpConfig):
        raise UsageError(f"{manifest.id} has type: {manifest.type}; mcp-import needs type: mcp")
    tools = await _list_tools(manifest, loaded.folder, loaded.manifest_path)
    names = [t.name for t in tools]
    for name in only:
        if name not in names:
            raise UsageError(
                f"the MCP server has no tool {name!r}{did_you_mean(name, names)}; "
                f"its tools: {', '.join(names)}"
            )
    warnings: list[str] = []
    capabilities: list[dict[str, Any]] = []
    tool_map: dict[str, str] = {}
    ids = capability_ids(names, max(8, MAX_TOOL_NAME - len(manifest.id) - 2))
    for tool in tools:
        if (only and tool.name not in only) or (not only and tool.name == manifest.config.tool):
            continue
        cap_id = ids[tool.name]
        if cap_id != tool.name:
            tool_map[cap_id] = tool.name
        capabilities.append(_capability(cap_id, tool, warnings))
    manifest_file = _ManifestFile.read(loaded.manifest_path)
    tool_map = manifest_file.merge(capabilities, tool_map)
    text = manifest_file.text()
    if write:
        atomic_write_text(loaded.manifest_path, text)
    return ImportReport(loaded.manifest_path, capabilities, tool_map, text, warnings)


def capability_id(tool_name: str) -> str:
    """A valid capability id for an MCP tool name (`getTime` -> `get-time`)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", tool_name)
    slug = re.sub(r"[^a-z0-9_-]+", "-", spaced.lower()).strip("-_")
    return slug or "tool"


def capability_ids(tool_names: list[str], max_len: int = MAX_TOOL_NAME) -> dict[str, str]:
    """Tool name -> its capability id, no two alike (`a.b` and `a-b` both make `a-b`) and none
    longer than `max_len` (the plugin's tool names must fit MAX_TOOL_NAME): a name that already
    is a valid id keeps it, the others are cut and numbered (`a-b-2`) when theirs is taken."""
    taken = {n for n in tool_names if capability_id(n) == n and len(n) <= max_len}
    ids: dict[str, str] = {}
    for name in tool_names:
        cap_id = base = capability_id(name)[:max_len].rstrip("-_") or "tool"
        number = 2
        while cap_id != name and cap_id in taken:
            suffix = f"-{number}"
            cap_id, number = f"{base[: max_len - len(suffix)].rstrip('-_')}{suffix}", number + 1
        taken.add(cap_id)
        ids[name] = cap_id
    return ids


def short_description(text: str) -> str:
    """Whole sentences up to DESCRIPTION_CHARS: routing works best with short descriptions."""
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    out = sentences[0]
    for sentence in sentences[1:]:
        if len(out) + 1 + len(sentence) > DESCRIPTION_CHARS:
            break
        out += " " + sentence
    if len(out) > DESCRIPTION_CHARS:
        out = out[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return out


def _capability(cap_id: str, tool: McpTool, warnings: list[str]) -> dict[str, Any]:
    raw_schema = tool.input_schema or {}
    defs = {**(raw_schema.get("definitions") or {}), **(raw_schema.get("$defs") or {})}
    schema = _resolve_refs(raw_schema, defs)
    required = set(schema.get("required") or [])
    parameters = []
    for name, raw in (schema.get("properties") or {}).items():
        if not PARAM_NAME_RE.match(name):
            warnings.append(
                f"{tool.name}: parameter {name!r} has a name homeclaw cannot use; skipped"
            )
            continue
        prop = _concrete(raw if isinstance(raw, dict) else {})
        parameters.append(_parameter(name, prop, required=name in required))
    return {
        "id": cap_id,
        "name": tool.name.replace("_", " ").strip().capitalize(),
        "description": short_description(tool.description or tool.name),
        "effects": [_effect(tool)],
        "parameters": parameters,
    }


def _resolve_refs(node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """`node` with each local `$ref` (`#/$defs/Point`, as pydantic models and TypedDicts
    make) replaced by the schema it names: a parameter behind one is an object, not a string.
    A model that contains itself is cut, past MAX_REF_DEPTH, to a plain object."""
    if isinstance(node, list):
        return [_resolve_refs(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        rest = {k: v for k, v in node.items() if k != "$ref"}
        target = defs.get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/") else None
        if not isinstance(target, dict):
            return rest
        if depth >= MAX_REF_DEPTH:
            return {"type": "object", **rest}
        return _resolve_refs({**target, **rest}, defs, depth + 1)
    skip = ("$defs", "definitions")
    return {k: _resolve_refs(v, defs, depth) for k, v in node.items() if k not in skip}


def _effect(tool: McpTool) -> str:
    if tool.read_only:
        return "read"
    return "destructive" if tool.destructive else "write"


def _concrete(prop: dict[str, Any]) -> dict[str, Any]:
    """The schema of an optional value (`anyOf: [X, null]`, `type: [X, "null"]`) is X's."""
    for key in ("anyOf", "oneOf"):
        branches = [b for b in prop.get(key) or [] if isinstance(b, dict)]
        real = [b for b in branches if b.get("type") != "null"]
        if real:
            rest = {k: v for k, v in prop.items() if k != key}
            return {**_concrete(real[0]), **rest}
    kind = prop.get("type")
    if isinstance(kind, list):
        return {**prop, "type": next((k for k in kind if k != "null"), "string")}
    return prop


def _parameter(name: str, prop: dict[str, Any], *, required: bool) -> dict[str, Any]:
    kind = str(prop.get("type"))
    kind = kind if kind in _SCHEMA_TYPES else "string"
    param: dict[str, Any] = {"name": name, "type": kind, "required": required}
    text = " ".join(str(prop.get("description") or prop.get("title") or "").split())
    if text:
        param["description"] = text
    enum = prop.get("enum")
    if isinstance(enum, list) and enum and all(value_matches_type(v, kind) for v in enum):
        param["enum"] = enum
    default = prop.get("default")
    if default is not None and value_matches_type(default, kind):
        param["default"] = default
        param["required"] = False
    nested = {k: prop[k] for k in _NESTED_KEYS if k in prop}
    if kind in ("object", "array") and nested:
        param["json_schema"] = nested
    return param


async def _list_tools(manifest: PluginManifest, folder: Path, manifest_path: Path) -> list[Any]:
    from homeclaw_cli.adapters.mcp_client import McpUnavailable

    assert isinstance(manifest.config, McpConfig)
    fields = "config.command and config.args" if manifest.config.command else "config.url"

    settings = load_settings()
    runner = McpRunner()
    target = RunTarget(manifest, manifest.callable_capabilities()[0], folder, settings.data_dir)
    try:
        session = await runner.session(target)
        return list(session.tools)
    except McpUnavailable as exc:
        raise UnavailableError(
            str(exc), hint=f"check {fields} in {manifest_path}; then run mcp-import again"
        ) from None
    finally:
        await runner.aclose()


@dataclass
class _ManifestFile:
    """The manifest as its author wrote it: YAML is edited in place (comments, order and
    layout kept), JSON is rewritten."""

    path: Path
    data: Any

    @classmethod
    def read(cls, path: Path) -> _ManifestFile:
        checked = read_document(path).data  # the safe reader's limits and error messages first
        if not isinstance(checked, dict):
            raise ManifestError(f"{path}: a plugin descriptor must be a mapping")
        if path.suffix == ".json":
            return cls(path, dict(checked))
        return cls(path, _round_trip_yaml().load(path.read_text(encoding="utf-8")))

    def merge(self, capabilities: list[dict[str, Any]], tool_map: dict[str, str]) -> dict[str, str]:
        """Imported tools update the capability of the same id in place: the fields the import
        writes are replaced, the author's own (examples, comments) stay; new ones are added."""
        current = self.data.get("capabilities") or []
        by_id = {c.get("id"): c for c in current}
        added = []
        for capability in capabilities:
            mine = by_id.get(capability["id"])
            if mine is None:
                added.append(capability)
            else:
                _replace_fields(mine, capability)
        if current:
            _append(current, added)
        else:
            self.data["capabilities"] = added
        if self.data.get("config") is None:
            self.data["config"] = {}
        config = self.data["config"]
        merged = {**(config.get("tools") or {}), **tool_map}
        if merged:
            config["tools"] = merged
        # Never write a manifest homeclaw would refuse.
        PluginManifest.model_validate(json.loads(json.dumps(self.data)))
        return merged

    def text(self) -> str:
        if self.path.suffix == ".json":
            return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"
        out = io.StringIO()
        _round_trip_yaml().dump(self.data, out)
        return out.getvalue()


# ruamel hangs a comment that follows a block (the one above the next capability, or above the
# next top-level key) on the deepest last value inside it: replacing or appending after that
# value would drop the comment or leave it above the new capabilities, so it is moved.


def _replace_fields(mine: Any, imported: dict[str, Any]) -> None:
    """Update one capability with what the import writes; the author's keys stay."""
    _block_style(mine)
    trailing = _pop_trailing_comment(mine)
    mine.update(_commented(imported) if trailing is not None else imported)
    _put_trailing_comment(mine, trailing)


def _append(capabilities: Any, added: list[dict[str, Any]]) -> None:
    """Add new capabilities in place, so the comments between the old ones stay."""
    _block_style(capabilities)
    trailing = _pop_trailing_comment(capabilities) if added else None
    capabilities.extend(_commented(added) if trailing is not None else added)
    _put_trailing_comment(capabilities, trailing)


def _block_style(node: Any) -> None:
    """Imported parameters span lines: a one-line `[{...}]` holding them is unreadable."""
    if hasattr(node, "fa"):
        node.fa.set_block_style()


def _commented(value: Any) -> Any:
    """`value` as round-trip nodes, which can carry a comment."""
    loader, buffer = _round_trip_yaml(), io.StringIO()
    loader.dump({"value": value}, buffer)
    return loader.load(buffer.getvalue())["value"]


def _pop_trailing_comment(node: Any) -> Any:
    last = _deepest_last(node)
    if last is None:
        return None
    parent, key = last
    slot = _comment_slot(key)
    tokens = parent.ca.items.get(key)
    if not tokens or tokens[slot] is None:
        return None
    token = tokens[slot]
    tokens[slot] = None
    return token


def _put_trailing_comment(node: Any, token: Any) -> None:
    last = _deepest_last(node) if token is not None else None
    if last is None:
        return
    parent, key = last
    slot = _comment_slot(key)
    tokens = parent.ca.items.setdefault(key, [None, None, None, None] if slot == 2 else [None])
    tokens[slot] = token


def _comment_slot(key: str | int) -> int:
    """Where ruamel keeps the comment after an item: 2 for a map key, 0 for a list index."""
    return 2 if isinstance(key, str) else 0


def _deepest_last(node: Any) -> tuple[Any, str | int] | None:
    """The (collection, key or index) of the last scalar in a round-trip YAML tree; None in
    plain data (a JSON manifest, which has no comments)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    found = None
    while isinstance(node, CommentedMap | CommentedSeq) and node:
        key = next(reversed(node)) if isinstance(node, CommentedMap) else len(node) - 1
        found, node = (node, key), node[key]
    return found


def _round_trip_yaml() -> Any:
    from ruamel.yaml import YAML

    loader = YAML()  # round-trip mode: comments and key order survive a load + dump
    loader.preserve_quotes = True
    loader.width = 100
    loader.indent(mapping=2, sequence=4, offset=2)
    return loader
