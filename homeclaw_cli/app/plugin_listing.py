"""Plugin listings for the CLI and the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.catalog.registry import PluginEntry
from homeclaw_cli.core.capability_tools import descriptor_token_cost


def _row(entry: PluginEntry, status: str, **extra: Any) -> dict[str, Any]:
    manifest = entry.manifest
    return {
        "id": manifest.id,
        "name": manifest.name,
        "type": manifest.type,
        "source": entry.source,
        "capabilities": [c.id for c in manifest.capabilities],
        "status": status,
        "tokens": descriptor_token_cost(manifest),
        "folder": str(entry.folder) if entry.folder else None,
        **extra,
    }


def plugin_rows(context: AppContext, *, include_shadowed: bool = False) -> list[dict[str, Any]]:
    """One row per plugin (ok and unhealthy first), with disabled and broken ones too."""
    registry = context.registry
    health = context.health.all()
    rows = []
    for entry in registry.plugins.values():
        status = health.get(entry.id)
        if status is not None and not status.ok:
            rows.append(_row(entry, "unhealthy", problem=status.detail))
        else:
            rows.append(_row(entry, "ok"))
    rows += [_row(entry, "disabled") for entry in registry.disabled.values()]
    if include_shadowed:
        rows += [
            _row(s.entry, "shadowed", shadowed_by=f"{s.shadowed_by.source}:{s.shadowed_by.folder}")
            for s in registry.shadowed
        ]
        rows += [_untrusted_row(folder) for folder in registry.untrusted]
    for broken in registry.broken:
        rows.append(
            {
                "id": broken.folder.name,
                "name": "",
                "type": "",
                "source": broken.source,
                "capabilities": [],
                "status": "broken",
                "tokens": 0,
                "folder": str(broken.folder),
                "problem": broken.summary,
            }
        )
    order = {"ok": 0, "unhealthy": 1}
    return sorted(rows, key=lambda r: (order.get(r["status"], 2), r["id"]))


def _untrusted_row(folder: Path) -> dict[str, Any]:
    return {
        "id": folder.name,
        "name": "",
        "type": "",
        "source": "workspace",
        "capabilities": [],
        "status": "untrusted",
        "tokens": 0,
        "folder": str(folder),
        "problem": "in ./plugins of an untrusted folder: not loaded (--trust-workspace loads it)",
    }
