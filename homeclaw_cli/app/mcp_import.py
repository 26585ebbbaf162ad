"""Turn an MCP server's tools into capabilities of its plugin manifest (seed 001 §7).

Each tool becomes a capability (replacing one of the same id, keeping the others) whose
id is the tool name made valid ([a-z0-9_-]); when the two differ, `config.tools` records
the mapping so calls reach the right tool. Parameters come from the tool's JSON Schema
(integer -> number; other schema types as declared; anything else as string). The
manifest is rewritten atomically; YAML comments are lost.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.catalog.plugin_loader import load_plugin
from homeclaw_cli.core.manifest import PARAM_NAME_RE, McpConfig, PluginManifest
from homeclaw_cli.document import read_document
from homeclaw_cli.errors import ManifestError, UnavailableError, UsageError
from homeclaw_cli.fsutil import atomic_write_text
from homeclaw_cli.runtime.runners.base import RunTarget
from homeclaw_cli.runtime.runners.mcp import McpRunner
from homeclaw_cli.settings import load_settings
from homeclaw_cli.suggest import did_you_mean

_SCHEMA_TYPES = {
    "string": "string",
    "number": "number",
    "integer": "number",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
}
DESCRIPTION_CHARS = 160


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
    loaded = load_plugin(target.resolve())
    if loaded.manifest is None or loaded.manifest_path is None or loaded.legacy:
        problems = "; ".join(str(d) for d in loaded.diagnostics) or "no plugin manifest"
        raise ManifestError(f"{target}: cannot import MCP tools: {problems}")
    manifest = loaded.manifest
    if not isinstance(manifest.config, McpConfig):
        raise UsageError(f"{manifest.id} is a {manifest.type} plugin; mcp-import needs type: mcp")
    tools = await _list_tools(manifest, loaded.folder)
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
    for tool in tools:
        if only and tool.name not in only:
            continue
        cap_id = capability_id(tool.name)
        if cap_id != tool.name:
            tool_map[cap_id] = tool.name
        capabilities.append(_capability(cap_id, tool, warnings))
    data = _manifest_data(loaded.manifest_path)
    # Imported tools replace capabilities of the same id; the others are kept.
    imported = {c["id"] for c in capabilities}
    kept = [c for c in data.get("capabilities") or [] if c.get("id") not in imported]
    data["capabilities"] = [*kept, *capabilities]
    config = dict(data.get("config") or {})
    tool_map = {**(config.get("tools") or {}), **tool_map}
    if tool_map:
        config["tools"] = tool_map
    data["config"] = config
    PluginManifest.model_validate(data)  # never write a manifest homeclaw would refuse
    if loaded.manifest_path.suffix == ".json":
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    if write:
        atomic_write_text(loaded.manifest_path, text)
    return ImportReport(loaded.manifest_path, capabilities, tool_map, text, warnings)


def capability_id(tool_name: str) -> str:
    """A valid capability id for an MCP tool name (`getTime` -> `get-time`)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", tool_name)
    slug = re.sub(r"[^a-z0-9_-]+", "-", spaced.lower()).strip("-_")
    return slug or "tool"


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


def _capability(cap_id: str, tool: Any, warnings: list[str]) -> dict[str, Any]:
    description = short_description(tool.description or tool.name)
    schema = tool.input_schema or {}
    required = set(schema.get("required") or [])
    parameters = []
    for name, raw in (schema.get("properties") or {}).items():
        if not PARAM_NAME_RE.match(name):
            warnings.append(
                f"{tool.name}: parameter {name!r} has a name homeclaw cannot use; skipped"
            )
            continue
        prop = raw if isinstance(raw, dict) else {}
        kind = prop.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "string")
        param: dict[str, Any] = {
            "name": name,
            "type": _SCHEMA_TYPES.get(str(kind), "string"),
            "required": name in required,
        }
        text = " ".join(str(prop.get("description") or prop.get("title") or "").split())
        if text:
            param["description"] = text
        parameters.append(param)
    return {
        "id": cap_id,
        "name": tool.name.replace("_", " ").strip().capitalize(),
        "description": description,
        "parameters": parameters,
    }


async def _list_tools(manifest: PluginManifest, folder: Path) -> list[Any]:
    from homeclaw_cli.adapters.mcp_client import McpUnavailable

    settings = load_settings()
    runner = McpRunner()
    target = RunTarget(manifest, manifest.callable_capabilities()[0], folder, settings.data_dir)
    try:
        session = await runner.session(target)
        return list(session.tools)
    except McpUnavailable as exc:
        raise UnavailableError(str(exc)) from None
    finally:
        await runner.aclose()


def _manifest_data(path: Path) -> dict[str, Any]:
    data = read_document(path).data
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: a plugin descriptor must be a mapping")
    return dict(data)
