"""External plugin registrations (seed 000 §7, seed 001 §3), persisted in external_plugins.json.

File format: {"version": 1, "plugins": [<registration payload>, ...]} where a payload is the
seed's register body (`plugin_id` instead of `id`). Writers (the API server, `plugin
register`) go through `write_external_plugins` under a lock; readers never see a half file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from homeclaw_cli.domain.diagnostics import Diagnostic
from homeclaw_cli.domain.document import DocumentError, read_text_file
from homeclaw_cli.domain.manifest import PluginManifest
from homeclaw_cli.fsutil import atomic_write_text

FORMAT_VERSION = 1
MAX_FILE_BYTES = 16 * 1024 * 1024


def payload_to_descriptor(payload: dict[str, Any]) -> dict[str, Any]:
    """A registration body uses `plugin_id`; manifests use `id`."""
    data = dict(payload)
    if "plugin_id" in data and "id" not in data:
        data["id"] = data.pop("plugin_id")
    data.pop("tools", None)  # seed 001 §3.2: optional metadata for future use
    return data


def manifest_to_payload(manifest: PluginManifest) -> dict[str, Any]:
    data = manifest.model_dump(mode="json", exclude_none=True, exclude={"config": {"type"}})
    data["plugin_id"] = data.pop("id")
    return data


def read_external_plugins(path: Path) -> tuple[list[PluginManifest], list[Diagnostic]]:
    """Valid registrations, plus a diagnostic per problem (never raises for bad content)."""
    if not path.is_file():
        return [], []
    try:
        raw = json.loads(read_text_file(path, MAX_FILE_BYTES))
    except (DocumentError, json.JSONDecodeError) as exc:
        message = exc.message if isinstance(exc, DocumentError) else f"invalid JSON: {exc.msg}"
        return [], [
            Diagnostic(
                "error",
                "external-file",
                path,
                message,
                hint="restore it from the .bak copy next to it, or delete it and re-register",
            )
        ]
    entries = raw.get("plugins", []) if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        return [], [Diagnostic("error", "external-file", path, "`plugins` must be a list")]
    manifests: list[PluginManifest] = []
    problems: list[Diagnostic] = []
    for index, payload in enumerate(entries):
        try:
            manifests.append(PluginManifest.model_validate(payload_to_descriptor(payload)))
        except ValueError as exc:  # one bad entry must not hide the others
            problems.append(
                Diagnostic("error", "external-entry", path, str(exc), field=f"plugins[{index}]")
            )
    return manifests, problems


def write_external_plugins(path: Path, manifests: list[PluginManifest]) -> None:
    body = {
        "version": FORMAT_VERSION,
        "plugins": [manifest_to_payload(m) for m in sorted(manifests, key=lambda m: m.id)],
    }
    atomic_write_text(path, json.dumps(body, indent=2) + "\n")
