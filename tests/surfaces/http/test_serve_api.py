"""The registration API in-process (FastAPI TestClient): validation, auth, limits, conflicts."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.state.external_registrations import read_external_plugins
from homeclaw_cli.state.health import HealthStore
from homeclaw_cli.surfaces.http.app import create_app

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def descriptor(plugin_id: str = "slack-bot", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "plugin_id": plugin_id,
        "name": "Slack Plugin",
        "description": "Post messages to Slack and read channel history.",
        "health_check_url": "http://127.0.0.1:3100/health",
        "type": "http",
        "config": {"base_url": "http://127.0.0.1:3100", "path": "/run", "timeout_sec": 30},
        "capabilities": [
            {
                "id": "post_message",
                "name": "Post message",
                "description": "Post a message to a Slack channel.",
                "parameters": [
                    {"name": "channel", "type": "string", "required": True},
                    {"name": "text", "type": "string", "required": True},
                ],
                "method": "POST",
                "path": "/post",
            }
        ],
    }
    body.update(overrides)
    return body


@pytest.fixture
def settings(hc_home: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")
    monkeypatch.setenv("HOMECLAW_SERVE__CHECK_ON_REGISTER", "false")
    return load_settings()


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, token=TOKEN, monitor=False)) as test_client:
        yield test_client


def stored_ids(settings: Settings) -> list[str]:
    manifests, problems = read_external_plugins(settings.external_plugins_file)
    assert problems == []
    return sorted(m.id for m in manifests)


def test_register_persists_and_lists(client: TestClient, settings: Settings) -> None:
    response = client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json()["plugin_id"] == "slack-bot"
    assert response.json()["registered"] is True
    assert response.json()["change"] == "added"
    assert stored_ids(settings) == ["slack-bot"]

    listing = client.get("/api/plugins").json()
    assert [(r["id"], r["source"], r["status"]) for r in listing] == [
        ("slack-bot", "external", "ok")
    ]
    shown = client.get("/api/plugins/slack-bot").json()
    assert shown["manifest"]["config"]["base_url"] == "http://127.0.0.1:3100"
    assert shown["tools"][0]["function"]["name"] == "slack-bot__post_message"


def test_same_descriptor_again_is_unchanged_but_a_different_one_conflicts(
    client: TestClient, settings: Settings
) -> None:
    assert client.post("/api/plugins/register", json=descriptor(), headers=AUTH).status_code == 200
    again = client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
    assert again.status_code == 200
    assert again.json()["change"] == "unchanged"

    changed = descriptor(description="Something else entirely.")
    conflict = client.post("/api/plugins/register", json=changed, headers=AUTH)
    assert conflict.status_code == 409
    assert "already registered" in conflict.json()["error"]
    assert "replace" in conflict.json()["hint"]

    replaced = client.post(
        "/api/plugins/register", params={"replace": "true"}, json=changed, headers=AUTH
    )
    assert replaced.json()["change"] == "updated"
    manifests, _ = read_external_plugins(settings.external_plugins_file)
    assert manifests[0].description == "Something else entirely."


@pytest.mark.parametrize(
    ("mutate", "field", "fragment"),
    [
        (lambda d: d.pop("plugin_id"), "plugin_id", "missing required field `plugin_id`"),
        (lambda d: d.update(plugin_id="Bad Id"), "plugin_id", "must match"),
        (lambda d: d.pop("health_check_url"), "health_check_url", "health_check_url"),
        (lambda d: d.update(type="inline"), "type", "must be one of http"),
        (lambda d: d["config"].update(base_url="ftp://x"), "config.base_url", "http(s)"),
        (lambda d: d.update(health_check_url="file:///etc/passwd"), "health_check_url", "http"),
        (lambda d: d["capabilities"][0].update(method="FETCH"), "capabilities[0].method", ""),
        (lambda d: d.update(colour="red"), "colour", "unknown field"),
    ],
)
def test_bad_payload_names_the_field(
    client: TestClient, settings: Settings, mutate: Any, field: str, fragment: str
) -> None:
    body = descriptor()
    mutate(body)
    response = client.post("/api/plugins/register", json=body, headers=AUTH)
    assert response.status_code == 422, response.text
    problems = response.json()["problems"]
    assert field in [p["field"] for p in problems], problems
    assert fragment in json.dumps(problems)
    assert field in response.json()["error"]
    assert not settings.external_plugins_file.exists()


def test_body_that_is_not_json_or_not_an_object(client: TestClient) -> None:
    broken = client.post(
        "/api/plugins/register",
        content=b'{"plugin_id": ',
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert broken.status_code == 422
    assert "not valid JSON" in broken.json()["error"]
    listed = client.post("/api/plugins/register", json=[1, 2], headers=AUTH)
    assert listed.status_code == 422
    assert "JSON object" in listed.json()["error"]
    nested = client.post(
        "/api/plugins/register", content=b"[" * 100_000 + b"]" * 100_000, headers=AUTH
    )
    assert nested.status_code == 422  # was a 500 (RecursionError in json.loads)
    assert "JSON is nested deeper than" in nested.json()["error"]


def test_a_body_with_a_byte_order_mark_is_read(client: TestClient, settings: Settings) -> None:
    body = b"\xef\xbb\xbf" + json.dumps(descriptor()).encode()
    assert client.post("/api/plugins/register", content=body, headers=AUTH).status_code == 200
    assert stored_ids(settings) == ["slack-bot"]


def test_a_key_given_twice_is_refused_as_in_a_file(client: TestClient, settings: Settings) -> None:
    # json.loads kept the last one: this registered "weather-2", not the id the body began with.
    body = json.dumps(descriptor("slack-bot"))[:-1] + ',\n"plugin_id": "weather-2"}'
    twice = client.post("/api/plugins/register", content=body.encode(), headers=AUTH)
    assert twice.status_code == 422
    assert "line 2 column 1: duplicate key 'plugin_id' (first on line 1)" in twice.json()["error"]
    assert stored_ids(settings) == []


def test_token_missing_or_wrong_is_refused(client: TestClient, settings: Settings) -> None:
    missing = client.post("/api/plugins/register", json=descriptor())
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = client.post(
        "/api/plugins/register", json=descriptor(), headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 403
    basic = client.post(
        "/api/plugins/register", json=descriptor(), headers={"Authorization": f"Basic {TOKEN}"}
    )
    assert basic.status_code == 403
    unregister = client.post("/api/plugins/unregister", json={"plugin_id": "x"})
    assert unregister.status_code == 401
    assert not settings.external_plugins_file.exists()


def test_token_turned_off_accepts_anyone(settings: Settings) -> None:
    with TestClient(create_app(settings, token=None, monitor=False)) as open_client:
        assert open_client.post("/api/plugins/register", json=descriptor()).status_code == 200


def test_oversized_body_is_refused(client: TestClient, settings: Settings) -> None:
    limit = settings.serve.max_body_bytes
    body = descriptor(description_long="x" * (limit + 10))
    response = client.post("/api/plugins/register", json=body, headers=AUTH)
    assert response.status_code == 413
    assert str(limit) in response.json()["error"]

    def chunked() -> Any:  # no Content-Length: the streamed size is counted
        for _ in range(limit // 1024 + 2):
            yield b" " * 1024

    streamed = client.post(
        "/api/plugins/register", content=chunked(), headers={**AUTH, "Content-Type": "x"}
    )
    assert streamed.status_code == 413
    assert not settings.external_plugins_file.exists()


def test_folder_plugin_id_is_refused(client: TestClient, settings: Settings) -> None:
    folder = settings.user_plugins_dir / "weather"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "id: weather\nname: Weather\ndescription: Weather forecasts.\ntype: subprocess\n"
        "config: {command: python3}\n"
    )
    response = client.post("/api/plugins/register", json=descriptor("weather"), headers=AUTH)
    assert response.status_code == 409
    assert "user plugin" in response.json()["error"]
    assert "never replace" in response.json()["error"]
    gone = client.post("/api/plugins/unregister", json={"plugin_id": "weather"}, headers=AUTH)
    assert gone.status_code == 404
    assert "homeclaw plugin disable weather" in gone.json()["hint"]
    assert "homeclaw plugin remove weather" in gone.json()["hint"]  # a user plugin


def test_unregister(client: TestClient, settings: Settings) -> None:
    client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
    done = client.post("/api/plugins/unregister", json={"plugin_id": "slack-bot"}, headers=AUTH)
    assert done.json() == {
        "plugin_id": "slack-bot",
        "unregistered": True,
        "index": {"state": "off", "request": None, "requested": 0, "synced": 0}
        | {"error": None, "hint": None},
    }
    assert stored_ids(settings) == []
    again = client.post("/api/plugins/unregister", json={"plugin_id": "slack-bot"}, headers=AUTH)
    assert again.status_code == 404
    no_id = client.post("/api/plugins/unregister", json={}, headers=AUTH)
    assert no_id.status_code == 422
    assert no_id.json()["problems"][0]["field"] == "plugin_id"


def test_unregister_errors_describe_the_unregister_body(client: TestClient) -> None:
    number = client.post("/api/plugins/unregister", json={"plugin_id": 5}, headers=AUTH)
    assert number.status_code == 422
    assert "`plugin_id` must be a string, got int" in number.json()["error"]
    broken = client.post("/api/plugins/unregister", content=b"{", headers=AUTH)
    assert broken.status_code == 422
    for response in (number, broken):  # not the registration descriptor's hint
        assert response.json()["hint"] == 'the body is {"plugin_id": "<id>"}'


def test_unknown_plugin_is_404_with_suggestion(client: TestClient) -> None:
    client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
    response = client.get("/api/plugins/slack-bt")
    assert response.status_code == 404
    assert "slack-bot" in response.json()["error"]


def test_health_proxy_reports_a_dead_plugin(client: TestClient, settings: Settings) -> None:
    # 127.0.0.1:9 (discard) is closed on test machines: the proxy reports, never raises.
    body = descriptor(health_check_url="http://127.0.0.1:9/health")
    client.post("/api/plugins/register", json=body, headers=AUTH)
    response = client.get("/api/plugins/health/slack-bot")
    assert response.status_code == 200
    assert response.json()["ok"] is False
    assert "connection refused" in response.json()["detail"]
    stored = HealthStore(settings.state_dir).get("slack-bot")
    assert stored is not None
    assert stored.failures == 1


def test_check_on_register_refuses_an_unreachable_plugin(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = settings.model_copy(
        update={"serve": settings.serve.model_copy(update={"check_on_register": True})}
    )
    with TestClient(create_app(checked, token=TOKEN, monitor=False)) as test_client:
        body = descriptor(health_check_url="http://127.0.0.1:9/health")
        response = test_client.post("/api/plugins/register", json=body, headers=AUTH)
    assert response.status_code == 502
    assert "not reachable" in response.json()["error"]
    assert not settings.external_plugins_file.exists()


def test_a_taken_id_is_a_409_before_the_health_check(
    client: TestClient, settings: Settings
) -> None:
    # It was a 502 (the check ran first): fixing that only led to the 409.
    assert client.post("/api/plugins/register", json=descriptor(), headers=AUTH).is_success
    checked = settings.model_copy(
        update={"serve": settings.serve.model_copy(update={"check_on_register": True})}
    )
    body = descriptor(description="Something else.")
    with TestClient(create_app(checked, token=TOKEN, monitor=False)) as test_client:
        response = test_client.post("/api/plugins/register", json=body, headers=AUTH)
        assert response.status_code == 409
        assert "?replace=true" in response.json()["hint"]
        replaced = test_client.post("/api/plugins/register?replace=true", json=body, headers=AUTH)
        assert replaced.status_code == 502  # with replace, the check decides


def test_openapi_documents_the_registration_body(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    schema = document["components"]["schemas"]["ExternalPluginRegistration"]
    assert "plugin_id" in schema["properties"]
    assert "id" not in schema["properties"]
    assert {"plugin_id", "name", "description"} <= set(schema["required"])
    assert "Capability" in document["components"]["schemas"]
    register = document["paths"]["/api/plugins/register"]["post"]
    assert "409" in register["responses"]
    assert "/api/plugins/health/{plugin_id}" in document["paths"]


def test_openapi_declares_the_bearer_token_of_the_post_routes(
    client: TestClient, settings: Settings
) -> None:
    # Without it /docs had no Authorize button: "Try it out" could only get a 401.
    document = client.get("/openapi.json").json()
    assert document["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
    }
    paths = document["paths"]
    for path in ("/api/plugins/register", "/api/plugins/unregister"):
        assert paths[path]["post"]["security"] == [{"bearer": []}]
    assert "security" not in paths["/api/plugins"]["get"]
    with TestClient(create_app(settings, token=None, monitor=False)) as open_client:
        assert "securitySchemes" not in open_client.get("/openapi.json").json()["components"]


def test_fifty_concurrent_registrations_none_lost(settings: Settings) -> None:
    app = create_app(settings, token=TOKEN, monitor=False)

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            responses = await asyncio.gather(
                *(
                    client.post("/api/plugins/register", json=descriptor(f"p{i}"), headers=AUTH)
                    for i in range(50)
                )
            )
        return [r.status_code for r in responses]

    assert asyncio.run(run()) == [200] * 50
    assert stored_ids(settings) == sorted(f"p{i}" for i in range(50))


@pytest.mark.parametrize(
    "body",
    [
        {"type": "subprocess", "config": {"command": "sh", "args": ["-c", "rm -rf ~"]}},
        {"type": "mcp", "config": {"transport": "stdio", "command": "evil-server"}},
        {
            "type": "http",
            "config": {
                "base_url": "http://127.0.0.1:3999",
                "start": {
                    "command": "sh",
                    "args": ["-c", "rm -rf ~"],
                    "ready": "http://127.0.0.1:3999/",
                },
            },
        },
    ],
    ids=["subprocess", "mcp-stdio", "http-managed"],
)
def test_command_plugins_are_refused_over_http(
    client: TestClient, settings: Settings, body: dict[str, Any]
) -> None:
    payload = descriptor(**body)
    del payload["capabilities"]
    response = client.post("/api/plugins/register", json=payload, headers=AUTH)
    assert response.status_code == 422, response.text
    assert response.json()["problems"][0]["field"] == "type"
    assert "homeclaw plugin register" in response.json()["error"]
    assert not settings.external_plugins_file.exists()


def test_command_plugins_allowed_when_configured(settings: Settings) -> None:
    allowed = settings.model_copy(
        update={"serve": settings.serve.model_copy(update={"allow_command_plugins": True})}
    )
    payload = descriptor(type="subprocess", config={"command": "python3"})
    del payload["capabilities"]
    with TestClient(create_app(allowed, token=TOKEN, monitor=False)) as test_client:
        response = test_client.post("/api/plugins/register", json=payload, headers=AUTH)
    assert response.status_code == 200, response.text


def test_registrations_trigger_an_index_sync(settings: Settings) -> None:
    synced = threading.Event()
    calls: list[Settings] = []

    def fake_sync(s: Settings) -> None:
        calls.append(s)
        synced.set()

    app = create_app(settings, token=TOKEN, monitor=False, index_sync=fake_sync)
    with TestClient(app) as test_client:
        test_client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
        assert synced.wait(10)
        synced.clear()
        again = test_client.post("/api/plugins/register", json=descriptor(), headers=AUTH)
        assert again.json()["change"] == "unchanged"
        test_client.post("/api/plugins/unregister", json={"plugin_id": "slack-bot"}, headers=AUTH)
        assert synced.wait(10)
    assert calls[0] is settings
    assert len(calls) == 2  # the unchanged re-registration did not sync


def test_bad_query_parameter_has_the_same_error_shape(client: TestClient) -> None:
    response = client.post(
        "/api/plugins/register", params={"replace": "maybe"}, json=descriptor(), headers=AUTH
    )
    assert response.status_code == 422
    assert response.json()["problems"][0]["field"] == "replace"
    assert "replace" in response.json()["error"]


def test_health_proxy_needs_a_health_url(client: TestClient, settings: Settings) -> None:
    folder = settings.user_plugins_dir / "local"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "id: local\nname: Local\ndescription: A local tool.\ntype: subprocess\n"
        "config: {command: python3}\n"
    )
    response = client.get("/api/plugins/health/local")
    assert response.status_code == 422
    assert "no health_check_url" in response.json()["error"]
    assert client.get("/api/plugins/health/nope").status_code == 404
