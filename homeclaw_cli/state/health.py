"""Plugin health, stored in <state_dir>/health.json so retrieval and listings can use it.

`homeclaw plugin health` writes a status per plugin it checks; a call that finds a plugin
unreachable marks it unhealthy and the next successful call clears the mark. Retrieval
skips plugins whose stored status is not ok. Writes are atomic and locked.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from homeclaw_cli.fsutil import atomic_write_text, file_lock

HEALTH_FILE = "health.json"


@dataclass(frozen=True)
class HealthStatus:
    ok: bool
    checked_at: str  # ISO 8601, UTC
    detail: str
    failures: int = 0  # consecutive failed checks or calls

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class HealthStore:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / HEALTH_FILE
        self._lock_path = state_dir / "health.lock"

    def all(self) -> dict[str, HealthStatus]:
        """Every stored status; an unreadable file reads as empty (health is advisory)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        plugins = raw.get("plugins") if isinstance(raw, dict) else None
        out: dict[str, HealthStatus] = {}
        if not isinstance(plugins, dict):
            return out
        for plugin_id, value in plugins.items():
            try:
                out[plugin_id] = HealthStatus(
                    ok=bool(value["ok"]),
                    checked_at=str(value.get("checked_at", "")),
                    detail=str(value.get("detail", "")),
                    failures=int(value.get("failures", 0)),
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
        return out

    def get(self, plugin_id: str) -> HealthStatus | None:
        return self.all().get(plugin_id)

    def set(self, plugin_id: str, ok: bool, detail: str = "") -> HealthStatus:
        """Record a check result; failures counts consecutive failures."""
        with file_lock(self._lock_path, timeout=10, what="plugin health"):
            statuses = self.all()
            previous = statuses.get(plugin_id)
            failures = 0 if ok else (previous.failures if previous else 0) + 1
            status = HealthStatus(ok, _now(), detail, failures)
            statuses[plugin_id] = status
            self._write(statuses)
        return status

    def forget(self, plugin_ids: list[str]) -> None:
        with file_lock(self._lock_path, timeout=10, what="plugin health"):
            statuses = self.all()
            # A list, not any(): any() would stop after the first id it removes.
            removed = [statuses.pop(pid) for pid in plugin_ids if pid in statuses]
            if removed:
                self._write(statuses)

    def record(
        self, plugin_id: str, ok: bool, detail: str = "", *, unhealthy_after: int = 1
    ) -> HealthStatus:
        """Like set(), but a failing plugin stays ok until `unhealthy_after` failures in a row.

        `homeclaw serve` checks on an interval: one slow answer must not hide a plugin.
        """
        return self.record_many({plugin_id: (ok, detail)}, unhealthy_after=unhealthy_after)[
            plugin_id
        ]

    def record_many(
        self, results: dict[str, tuple[bool, str]], *, unhealthy_after: int = 1
    ) -> dict[str, HealthStatus]:
        """record() for a round of checks (id -> (ok, detail)) in one locked write."""
        checked_at = _now()
        with file_lock(self._lock_path, timeout=10, what="plugin health"):
            statuses = self.all()
            updated: dict[str, HealthStatus] = {}
            for plugin_id, (ok, detail) in results.items():
                previous = statuses.get(plugin_id)
                failures = 0 if ok else (previous.failures if previous else 0) + 1
                # Only a good check heals: a plugin already marked unhealthy (by a failed
                # call, say) stays so while its checks fail.
                stays_ok = failures < unhealthy_after and (previous is None or previous.ok)
                status = HealthStatus(ok or stays_ok, checked_at, detail, failures)
                statuses[plugin_id] = updated[plugin_id] = status
            self._write(statuses)
        return updated

    def unhealthy(self) -> frozenset[str]:
        return frozenset(pid for pid, status in self.all().items() if not status.ok)

    def _write(self, statuses: dict[str, HealthStatus]) -> None:
        data: dict[str, Any] = {
            "version": 1,
            "plugins": {pid: asdict(s) for pid, s in sorted(statuses.items())},
        }
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
