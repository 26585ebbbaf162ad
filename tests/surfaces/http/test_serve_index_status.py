"""With serve.sync_on_register the caller of the registration API learns whether its change
reached the index: the response says the sync is pending, GET /api/index how it ended."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from homeclaw_cli.app.registration import index_sync_function
from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.surfaces.http.app import create_app
from tests.surfaces.http.test_serve_api import AUTH, TOKEN, descriptor


@pytest.fixture
def down_store(hc_home: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")
    monkeypatch.setenv("HOMECLAW_SERVE__CHECK_ON_REGISTER", "false")
    monkeypatch.setenv("HOMECLAW_INDEX__URI", "s3://team/index")
    monkeypatch.setenv("HOMECLAW_INDEX__ENDPOINT", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setenv("HOMECLAW_INDEX__ALLOW_HTTP", "true")
    monkeypatch.setenv("HOMECLAW_INDEX__REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    return load_settings()


def _wait_settled(client: TestClient) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status: dict[str, object] = client.get("/api/index").json()
        if status["state"] != "pending":
            return status
        time.sleep(0.1)
    raise AssertionError("the index sync did not end within 60 s")


def test_a_sync_that_fails_after_registering_is_reported_to_the_caller(
    down_store: Settings,
) -> None:
    app = create_app(down_store, token=TOKEN, monitor=False, index_sync=index_sync_function())
    with TestClient(app) as client:
        response = client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
        assert response.status_code == 200, response.text
        index = response.json()["index"]
        assert index["request"] == 1 and index["state"] in ("pending", "failed")
        status = _wait_settled(client)
    assert status["state"] == "failed" and status["synced"] == 0
    assert "cannot reach the object store of index.uri s3://team/index" in str(status["error"])
    assert "index.endpoint" in str(status["hint"])


def test_a_sync_that_succeeds_reports_synced_and_off_says_off(
    hc_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")
    monkeypatch.setenv("HOMECLAW_SERVE__CHECK_ON_REGISTER", "false")
    settings = load_settings()
    app = create_app(settings, token=TOKEN, monitor=False, index_sync=lambda _: None)
    with TestClient(app) as client:
        client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
        status = _wait_settled(client)
        assert status == {**status, "state": "synced", "synced": 1, "error": None}
        gone = client.post("/api/plugins/unregister", json={"plugin_id": "slack-bot"}, headers=AUTH)
        assert gone.json()["index"]["request"] == 2
    with TestClient(create_app(settings, token=TOKEN, monitor=False)) as client:
        response = client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
        assert response.json()["index"]["state"] == "off"
        assert client.get("/api/index").json()["state"] == "off"
