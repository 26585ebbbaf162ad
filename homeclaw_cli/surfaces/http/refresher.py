"""Re-sync the plugin index after registration changes, off the event loop."""

import asyncio
import logging
import threading
import time
from dataclasses import dataclass

from homeclaw_cli.app.registration import IndexSync
from homeclaw_cli.errors import index_failure
from homeclaw_cli.settings import Settings

log = logging.getLogger("homeclaw.serve")


@dataclass
class SyncStatus:
    """What became of the syncs asked for: request numbers count up from 1, so a caller
    knows its change is in the index once `synced` reaches the number it was given."""

    requested: int = 0
    synced: int = 0  # the last request a finished sync covered
    failed: int = 0  # the last request a failed sync covered
    error: str | None = None
    hint: str | None = None
    finished_at: float | None = None

    def state(self, enabled: bool) -> str:
        if not enabled:
            return "off"
        if self.synced == self.requested:
            return "synced"
        return "failed" if self.failed == self.requested else "pending"


class IndexRefresher:
    """Re-syncs the plugin index after registrations, coalescing bursts into one sync.

    The sync runs in a daemon thread: stopping the server never waits for an embedding
    model to load, and an interrupted sync is repaired by the next one (the index
    writes whole rows under its own lock). `status` is what GET /api/index reports.
    """

    def __init__(self, settings: Settings, sync: IndexSync | None) -> None:
        self.settings = settings
        self.sync = sync
        self.pending = asyncio.Event()
        self.status = SyncStatus()

    def request(self) -> int | None:
        """Ask for a sync; its request number, or None when syncing after registrations
        is turned off."""
        if self.sync is None:
            return None
        self.status.requested += 1
        self.pending.set()
        return self.status.requested

    async def run(self) -> None:
        """Sync whenever asked, until cancelled."""
        if self.sync is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            await self.pending.wait()
            self.pending.clear()
            covers = self.status.requested
            done: asyncio.Future[object] = loop.create_future()
            threading.Thread(
                target=self._sync_into, args=(loop, done), name="index-sync", daemon=True
            ).start()
            try:
                report = await done
            except Exception as exc:  # the API stays up; the next registration retries
                self._failed(covers, exc)
            else:
                self.status.synced = covers
                self.status.error = self.status.hint = None
                self.status.finished_at = time.time()
                log.info("index synced%s", _summary(report))

    def _failed(self, covers: int, exc: Exception) -> None:
        error = index_failure(self.settings.index_uri, exc)
        self.status.failed = covers
        self.status.error = error.message if error else f"{type(exc).__name__}: {exc}"
        self.status.hint = error.hint if error else "run `homeclaw sync` to see why"
        self.status.finished_at = time.time()
        log.warning("index sync after registration failed: %s", self.status.error)

    def _sync_into(self, loop: asyncio.AbstractEventLoop, done: asyncio.Future[object]) -> None:
        assert self.sync is not None
        try:
            result = self.sync(self.settings)
        except Exception as exc:
            loop.call_soon_threadsafe(_settle, done, None, exc)
        else:
            loop.call_soon_threadsafe(_settle, done, result, None)


def _settle(done: asyncio.Future[object], result: object, exc: BaseException | None) -> None:
    if done.cancelled():
        return
    if exc is not None:
        done.set_exception(exc)
    else:
        done.set_result(result)


def _summary(report: object) -> str:
    parts = [
        f"{name} {len(items)}"
        for name in ("added", "updated", "removed")
        if isinstance(items := getattr(report, name, None), list) and items
    ]
    return f" ({', '.join(parts)})" if parts else ""
