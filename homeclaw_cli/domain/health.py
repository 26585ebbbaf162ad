"""Last known health of plugins that have a health_check_url, in <state_dir>/health.json.

Written by `homeclaw serve` (at registration and on its interval) and read by `plugin list`,
the API and retrieval (which leaves unhealthy plugins out). A plugin becomes unhealthy only
after `unhealthy_after` consecutive failed checks, so one slow answer does not hide it, and it
is healthy again after its next good check.
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
    detail: str = ""
    failures: int = 0  # consecutive failed checks

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class HealthStore:
    """A small JSON map plugin id -> HealthStatus; every update is locked and atomic."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = path.with_name(path.name + ".lock")

    @classmethod
    def in_state_dir(cls, state_dir: Path) -> HealthStore:
        return cls(state_dir / HEALTH_FILE)

    def all(self) -> dict[str, HealthStatus]:
        """Every stored status; an unreadable file counts as no information (never raises)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict):
            return {}
        statuses: dict[str, HealthStatus] = {}
        for plugin_id, value in raw.items():
            try:
                statuses[plugin_id] = HealthStatus(**value)
            except TypeError:
                continue
        return statuses

    def get(self, plugin_id: str) -> HealthStatus | None:
        return self.all().get(plugin_id)

    def set(self, plugin_id: str, status: HealthStatus) -> None:
        with file_lock(self._lock, what="the health file"):
            statuses = self.all()
            statuses[plugin_id] = status
            self._write(statuses)

    def record(
        self, plugin_id: str, ok: bool, detail: str = "", *, unhealthy_after: int = 1
    ) -> HealthStatus:
        """Store one check's outcome; unhealthy once `unhealthy_after` checks failed in a row."""
        return self.record_many({plugin_id: (ok, detail)}, unhealthy_after=unhealthy_after)[
            plugin_id
        ]

    def record_many(
        self, results: dict[str, tuple[bool, str]], *, unhealthy_after: int = 1
    ) -> dict[str, HealthStatus]:
        """Store a round of checks (id -> (ok, detail)) in one locked write."""
        checked_at = now_iso()
        with file_lock(self._lock, what="the health file"):
            statuses = self.all()
            updated: dict[str, HealthStatus] = {}
            for plugin_id, (ok, detail) in results.items():
                previous = statuses.get(plugin_id)
                if ok:
                    status = HealthStatus(True, checked_at, detail, 0)
                else:
                    failures = (previous.failures if previous else 0) + 1
                    status = HealthStatus(failures < unhealthy_after, checked_at, detail, failures)
                statuses[plugin_id] = updated[plugin_id] = status
            self._write(statuses)
        return updated

    def remove(self, plugin_id: str) -> None:
        with file_lock(self._lock, what="the health file"):
            statuses = self.all()
            if statuses.pop(plugin_id, None) is not None:
                self._write(statuses)

    def _write(self, statuses: dict[str, HealthStatus]) -> None:
        body = {pid: s.to_json() for pid, s in sorted(statuses.items())}
        atomic_write_text(self.path, json.dumps(body, indent=2) + "\n")
