"""Re-sync the plugin index after registration changes, off the event loop."""

import asyncio
import logging
import threading

from homeclaw_cli.app.registration import IndexSync
from homeclaw_cli.settings import Settings

log = logging.getLogger("homeclaw.serve")


class IndexRefresher:
    """Re-syncs the plugin index after registrations, coalescing bursts into one sync.

    The sync runs in a daemon thread: stopping the server never waits for an embedding
    model to load, and an interrupted sync is repaired by the next one (the index
    writes whole rows under its own lock).
    """

    def __init__(self, settings: Settings, sync: IndexSync | None) -> None:
        self.settings = settings
        self.sync = sync
        self.pending = asyncio.Event()

    def request(self) -> None:
        """Ask for a sync (a no-op when syncing after registrations is turned off)."""
        if self.sync is not None:
            self.pending.set()

    async def run(self) -> None:
        """Sync whenever asked, until cancelled."""
        if self.sync is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            await self.pending.wait()
            self.pending.clear()
            done: asyncio.Future[object] = loop.create_future()
            threading.Thread(
                target=self._sync_into, args=(loop, done), name="index-sync", daemon=True
            ).start()
            try:
                report = await done
            except Exception as exc:  # the API stays up; the next registration retries
                log.warning("index sync after registration failed: %s", exc)
            else:
                log.info("index synced%s", _summary(report))

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
