"""Whether a retrieved plugin can be offered to the model right now.

A plugin whose manifest `requires` a key or setting that is not set (core/plugin_needs.py)
is not offered: the model would call it and read "needs a key" instead of answering.
A plugin served by a server someone else starts (http, external, MCP over a URL) is offered
only when that server answers: the health store's recent good status, or else a TCP connect
with a short timeout, remembered for a while. Without this a small model calls a plugin whose
server is down, reads "connection refused" and flounders. Plugins homeclaw starts itself
(inline, subprocess, stdio MCP, servers with `config.start`) are always available.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from homeclaw_cli.catalog.plugin_files import unmet_requirements
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.state.health import HealthStore

RECENT_SEC = 30.0  # a health status or probe this fresh is trusted
CONNECT_TIMEOUT_SEC = 0.3


class PluginAvailability:
    """`unavailable(manifest)` for the agent: why a retrieved plugin cannot be offered now (a
    requirement not set, its server down; a cheap, cached check), None when it can.
    `folder_of` finds a plugin's folder, where its config file is."""

    def __init__(
        self,
        health: HealthStore,
        *,
        folder_of: Callable[[str], Path | None] = lambda _plugin_id: None,
        recent_sec: float = RECENT_SEC,
        timeout_sec: float = CONNECT_TIMEOUT_SEC,
    ) -> None:
        self.health = health
        self.folder_of = folder_of
        self.recent_sec = recent_sec
        self.timeout_sec = timeout_sec
        self._seen: dict[str, tuple[float, bool]] = {}

    def __call__(self, manifest: PluginManifest) -> str | None:
        if needs := requirements_unmet(self.folder_of(manifest.id), manifest):
            return needs
        url = server_url(manifest)
        if url is None or manifest.managed_start() is not None:
            return None  # homeclaw starts a `config.start` server on first use
        now = time.monotonic()
        cached = self._seen.get(manifest.id)
        if cached is not None and now - cached[0] < self.recent_sec:
            up = cached[1]
        else:
            up = self._recently_ok(manifest.id) or reachable(url, self.timeout_sec)
            self._seen[manifest.id] = (now, up)
        return None if up else f"its server at {url} does not answer"

    def _recently_ok(self, plugin_id: str) -> bool:
        status = self.health.get(plugin_id)
        if status is None or not status.ok:
            return False
        try:
            checked = datetime.fromisoformat(status.checked_at)
        except ValueError:
            return False
        return (datetime.now(UTC) - checked).total_seconds() < self.recent_sec


NEEDS = "it needs"


def requirements_unmet(folder: Path | None, manifest: PluginManifest) -> str | None:
    """Why chat holds the plugin back when a requirement is not set, or None: "it needs
    NEWSAPI_KEY (or api_key in config.yml)"."""
    missing = unmet_requirements(folder, manifest)
    return f"{NEEDS} {' and '.join(missing)}" if missing else None


def how_to_mend(reason: str) -> str:
    """What the user does about a reason this module gave: set the key, or start the server."""
    return "`homeclaw doctor` says where" if reason.startswith(NEEDS) else "start it"


def indexed_requirements_unmet(descriptor: dict[str, Any]) -> str | None:
    """The same for a plugin as the index stores it (`plugin search` reads no manifests)."""
    manifest, folder = descriptor.get("manifest"), descriptor.get("folder")
    if not isinstance(manifest, dict) or not manifest.get("requires"):
        return None
    try:
        parsed = PluginManifest.model_validate(manifest)
    except ValueError:  # an index written by another version: `sync` rewrites it
        return None
    return requirements_unmet(Path(folder) if isinstance(folder, str) else None, parsed)


def server_url(manifest: PluginManifest) -> str | None:
    """The URL of the server a plugin needs running, or None when homeclaw runs it."""
    config = manifest.config
    for key in ("base_url", "url"):
        value = getattr(config, key, None)
        if isinstance(value, str) and value:
            return value
    return None


def reachable(url: str, timeout_sec: float) -> bool:
    """True when something accepts a TCP connection at the URL's host and port."""
    parsed = urlparse(url)
    if not parsed.hostname:
        return True  # nothing to probe: let the call report what is wrong
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout_sec):
            return True
    except OSError:
        return False
