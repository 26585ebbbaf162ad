"""Plugin listings for the CLI and the API."""

from __future__ import annotations

from typing import Any

from homeclaw_cli.domain.health import HealthStatus, HealthStore
from homeclaw_cli.domain.registry import PluginEntry, scan
from homeclaw_cli.domain.tools import descriptor_token_cost
from homeclaw_cli.settings import Settings


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


def _health_row(entry: PluginEntry, health: HealthStatus | None) -> dict[str, Any]:
    # Only a stored failing status changes the row: no record means "not checked yet".
    status = "unhealthy" if health is not None and not health.ok else "ok"
    return _row(entry, status, health=health.to_json() if health else None)


def plugin_rows(settings: Settings, *, include_shadowed: bool = False) -> list[dict[str, Any]]:
    registry = scan(settings)
    health = HealthStore.in_state_dir(settings.state_dir).all()
    rows = [_health_row(entry, health.get(pid)) for pid, entry in registry.plugins.items()]
    if include_shadowed:
        rows += [
            _row(s.entry, "shadowed", shadowed_by=f"{s.shadowed_by.source}:{s.shadowed_by.folder}")
            for s in registry.shadowed
        ]
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
    return sorted(rows, key=lambda r: (r["status"] != "ok", r["id"]))
