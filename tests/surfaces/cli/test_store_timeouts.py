"""A dead object-store endpoint fails within what index.connect_timeout_sec and
index.max_retries say (docs/team.md), not several times that."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def silent_endpoint() -> Iterator[str]:
    """A loopback port whose accept queue is full: the kernel drops further connection
    attempts, as a firewalled or powered-off host does, so a client waits out its timeout."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    queued = []
    for _ in range(4):
        client = socket.socket()
        client.setblocking(False)
        client.connect_ex(("127.0.0.1", port))
        queued.append(client)
    time.sleep(0.2)
    probe = socket.socket()
    probe.settimeout(0.5)
    if probe.connect_ex(("127.0.0.1", port)) == 0:  # pragma: no cover - kernel-dependent
        pytest.skip("this kernel accepts connections past a full listen queue")
    probe.close()
    yield f"http://127.0.0.1:{port}"
    for client in queued:
        client.close()
    server.close()


def test_sync_check_on_a_silent_endpoint_fails_within_the_connect_settings(
    cli: Any, index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch, silent_endpoint: str
) -> None:
    settings = {
        "URI": "s3://team/index",
        "ENDPOINT": silent_endpoint,
        "REGION": "us-east-1",
        "ALLOW_HTTP": "true",
        "CONNECT_TIMEOUT_SEC": "1",
        "MAX_RETRIES": "1",
    }
    for key, value in settings.items():
        monkeypatch.setenv(f"HOMECLAW_INDEX__{key}", value)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    started = time.monotonic()
    result = cli("sync", "--check")
    elapsed = time.monotonic() - started
    assert elapsed < 6, f"{elapsed:.1f} s for 2 tries of 1 s"  # it took 7 times the settings
    assert result.exit_code == 5, result.output
    assert "cannot reach the object store of index.uri s3://team/index" in result.stderr
    assert "did not answer within 1 s" in result.stderr and "index.endpoint" in result.stderr
