from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx

from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.runtime.runners.base import PluginRequest, RunTarget
from homeclaw_cli.runtime.runners.http import HttpRunner, fill_path


def test_fill_path_substitutes_and_encodes_named_parameters() -> None:
    path, rest = fill_path("/users/{user}/todos/{id}", {"user": "a b/c", "id": 7, "q": "x"})
    assert path == "/users/a%20b%2Fc/todos/7"
    assert rest == {"q": "x"}
    assert fill_path("/todos", {"id": 1}) == ("/todos", {"id": 1})


def test_rest_capability_sends_query_or_body_and_path_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"items": [1, 2]})

    manifest = PluginManifest.model_validate(
        {
            "id": "api",
            "name": "API",
            "description": "An API.",
            "type": "http",
            "config": {"base_url": "http://plugin.test/v1/"},
            "capabilities": [
                {
                    "id": "get-item",
                    "name": "Get",
                    "description": "Get one.",
                    "method": "GET",
                    "path": "/items/{id}",
                    "parameters": [
                        {"name": "id", "type": "number"},
                        {"name": "full", "type": "boolean"},
                    ],
                },
                {
                    "id": "put-item",
                    "name": "Put",
                    "description": "Put one.",
                    "method": "PUT",
                    "path": "/items/{id}",
                    "parameters": [
                        {"name": "id", "type": "number"},
                        {"name": "tags", "type": "array"},
                    ],
                },
            ],
        }
    )

    async def scenario() -> list[str]:
        runner = HttpRunner(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        texts = []
        for cap, params in (
            (manifest.capabilities[0], {"id": 3, "full": True}),
            (manifest.capabilities[1], {"id": 4, "tags": ["a"]}),
        ):
            target = RunTarget(manifest, cap, None, Path("/tmp"))
            request = PluginRequest(plugin_id="api", capability_id=cap.id, parameters=params)
            run = await runner.run(target, request)
            texts.append(run.result.text)
        return texts

    texts = asyncio.run(scenario())
    assert str(seen[0].url) == "http://plugin.test/v1/items/3?full=true"
    assert seen[1].method == "PUT"
    assert str(seen[1].url) == "http://plugin.test/v1/items/4"
    assert json.loads(seen[1].content) == {"tags": ["a"]}
    assert json.loads(texts[0]) == {"items": [1, 2]}
