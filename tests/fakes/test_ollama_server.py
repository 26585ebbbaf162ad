"""The fake Ollama server, exercised with the real, unmodified ``ollama`` client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import ollama
import pytest

from tests.fakes.ollama_server import (
    NO_REPLY_LEFT,
    FakeOllama,
    Reply,
    ToolCall,
    error,
    fake_ollama,
    model_not_found,
    text,
    text_tool_call,
    tool_call,
    tool_calls,
    unused_port_host,
)

fake = fake_ollama  # the fixture, under a shorter name

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
USER = [{"role": "user", "content": "hello there"}]


def test_version_tags_and_root_over_plain_http(fake: FakeOllama) -> None:
    fake.add_model("llama3.2")
    with httpx.Client(base_url=fake.host) as http:
        assert http.get("/api/version").json() == {"version": "0.12.0"}
        assert http.get("/").text == "Ollama is running"
        assert http.get("/api/nope").status_code == 404
        entry = http.get("/api/tags").json()["models"][0]
    assert set(entry) == {"name", "model", "modified_at", "size", "digest", "details"}
    assert entry["name"] == entry["model"] == "llama3.2:latest"
    assert set(entry["details"]) >= {"format", "family", "parameter_size", "quantization_level"}


def test_list(fake: FakeOllama) -> None:
    fake.add_model("llama3.2")
    fake.add_model("qwen2.5:0.5b", tools=False, family="qwen2", parameter_size="494M")
    with ollama.Client(host=fake.host) as client:
        models = client.list().models
    assert [m.model for m in models] == ["llama3.2:latest", "qwen2.5:0.5b"]
    assert models[1].details is not None
    assert models[1].details.family == "qwen2"
    assert models[1].details.parameter_size == "494M"
    assert models[0].modified_at is not None
    assert models[0].size is not None


def test_show_capabilities_and_404(fake: FakeOllama) -> None:
    fake.add_model("llama3.2")
    fake.add_model("gemma3:1b", tools=False)
    fake.add_model("qwen3", capabilities=["completion", "tools", "thinking"])
    with ollama.Client(host=fake.host) as client:
        shown = client.show("llama3.2")
        assert shown.capabilities == ["completion", "tools"]
        assert shown.details is not None
        assert shown.details.format == "gguf"
        assert shown.modelinfo is not None
        assert shown.modelinfo["llama.context_length"] == 131072
        assert shown.template
        assert client.show("gemma3:1b").capabilities == ["completion"]
        assert client.show("qwen3:latest").capabilities == ["completion", "tools", "thinking"]
        with pytest.raises(ollama.ResponseError) as info:
            client.show("missing")
    assert info.value.status_code == 404
    assert info.value.error == "model 'missing' not found"
    assert fake.requests_for("/api/show")[-1] == {"model": "missing"}


def test_chat_non_streaming(fake: FakeOllama) -> None:
    fake.script(text("Hello, world!"), "plain string reply")
    with ollama.Client(host=fake.host) as client:
        resp = client.chat(model="llama3.2", messages=USER)
        second = client.chat(model="llama3.2", messages=USER)
    assert resp.message.role == "assistant"
    assert resp.message.content == "Hello, world!"
    assert resp.message.tool_calls is None
    assert resp.done is True
    assert resp.done_reason == "stop"
    assert resp.model == "llama3.2"
    for name in ("total_duration", "load_duration", "prompt_eval_count", "eval_count"):
        assert isinstance(getattr(resp, name), int)
    assert second.message.content == "plain string reply"
    assert fake.pending == 0


def test_chat_streaming_text(fake: FakeOllama) -> None:
    reply = "The weather in Paris is sunny,\nwith 21 degrees."
    fake.script(text(reply))
    with ollama.Client(host=fake.host) as client:
        chunks = list(client.chat(model="llama3.2", messages=USER, stream=True))
    assert len(chunks) > 3
    assert "".join(c.message.content or "" for c in chunks) == reply
    assert all(c.done is False for c in chunks[:-1])
    last = chunks[-1]
    assert last.done is True
    assert last.done_reason == "stop"
    assert last.eval_count is not None
    assert last.eval_duration is not None
    assert last.prompt_eval_duration is not None


def test_streaming_tool_calls(fake: FakeOllama) -> None:
    fake.script(tool_calls(("get_weather", {"city": "Paris"}), ToolCall("get_time", {"tz": "CET"})))
    with ollama.Client(host=fake.host) as client:
        chunks = list(
            client.chat(model="llama3.2", messages=USER, tools=[WEATHER_TOOL], stream=True)
        )
    calls = [tc for c in chunks for tc in (c.message.tool_calls or [])]
    assert [(tc.function.name, dict(tc.function.arguments)) for tc in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"tz": "CET"}),
    ]
    assert isinstance(calls[0].function.arguments, dict)
    assert chunks[-1].done is True


def test_non_streaming_tool_call_with_content(fake: FakeOllama) -> None:
    fake.script(tool_call("get_weather", {"city": "Oslo"}, content="Let me check."))
    with ollama.Client(host=fake.host) as client:
        resp = client.chat(model="llama3.2", messages=USER, tools=[WEATHER_TOOL])
    assert resp.message.content == "Let me check."
    assert resp.message.tool_calls is not None
    assert resp.message.tool_calls[0].function.name == "get_weather"
    assert resp.message.tool_calls[0].function.arguments == {"city": "Oslo"}


@pytest.mark.parametrize("fenced", [False, True])
def test_json_tool_call_in_content_passes_through(fake: FakeOllama, fenced: bool) -> None:
    args = {"plugin": "weather", "query": "rain?"}
    fake.script(text_tool_call("route_to_plugin", args, fenced=fenced))
    fake.script(text_tool_call("route_to_plugin", args, fenced=fenced))
    with ollama.Client(host=fake.host) as client:
        resp = client.chat(model="llama3.2", messages=USER)
        streamed = "".join(
            c.message.content or "" for c in client.chat(model="m", messages=USER, stream=True)
        )
    assert resp.message.tool_calls is None
    assert resp.message.content == streamed
    payload = resp.message.content.strip("`\n").removeprefix("json\n")
    assert json.loads(payload) == {"name": "route_to_plugin", "arguments": args}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("reply", "status", "message"),
    [
        (model_not_found("llama9"), 404, "model 'llama9' not found"),
        (error(500, "llama runner process has terminated"), 500, None),
    ],
)
def test_error_replies_raise(
    fake: FakeOllama, stream: bool, reply: Reply, status: int, message: str | None
) -> None:
    fake.script(reply)
    with ollama.Client(host=fake.host) as client, pytest.raises(ollama.ResponseError) as info:
        resp = client.chat(model="llama9", messages=USER, stream=stream)
        if stream:
            list(resp)
    assert info.value.status_code == status
    assert info.value.error == (message or reply.error)


def test_script_exhausted_is_loud_500(fake: FakeOllama) -> None:
    with ollama.Client(host=fake.host) as client, pytest.raises(ollama.ResponseError) as info:
        client.chat(model="llama3.2", messages=USER)
    assert info.value.status_code == 500
    assert info.value.error == NO_REPLY_LEFT


def test_error_mid_stream(fake: FakeOllama) -> None:
    fake.script(Reply(content="partial answer", stream_error="model runner crashed"))
    with ollama.Client(host=fake.host) as client:
        stream = client.chat(model="llama3.2", messages=USER, stream=True)
        first = next(stream)
        with pytest.raises(ollama.ResponseError, match="model runner crashed"):
            list(stream)
    assert first.message.content == "partial"


def test_thinking(fake: FakeOllama) -> None:
    fake.script(text("42", thinking="Let me think about it."), text("42", thinking="Hmm."))
    with ollama.Client(host=fake.host) as client:
        resp = client.chat(model="qwen3", messages=USER, think=True)
        chunks = list(client.chat(model="qwen3", messages=USER, think=True, stream=True))
    assert resp.message.thinking == "Let me think about it."
    assert "".join(c.message.thinking or "" for c in chunks) == "Hmm."
    assert "".join(c.message.content or "" for c in chunks) == "42"


def test_requests_recorded_and_callable_reply(fake: FakeOllama) -> None:
    schema = {"type": "object", "properties": {"plugin": {"type": "string"}}}

    def echo(body: dict[str, Any]) -> str:
        return f"{len(body['messages'])} messages, tools={len(body.get('tools', []))}"

    fake.script(echo, lambda body: text(body["messages"][-1]["content"].upper()))
    with ollama.Client(host=fake.host) as client:
        first = client.chat(
            model="llama3.2",
            messages=[{"role": "system", "content": "be brief"}, *USER],
            tools=[WEATHER_TOOL],
            format=schema,
            options={"temperature": 0, "num_ctx": 4096},
        )
        second = client.chat(model="llama3.2", messages=USER, format="json", stream=True)
        assert "".join(c.message.content or "" for c in second) == "HELLO THERE"
    assert first.message.content == "2 messages, tools=1"
    req = fake.chat_requests[0]
    assert req["model"] == "llama3.2"
    assert req["stream"] is False
    assert [m["role"] for m in req["messages"]] == ["system", "user"]
    assert req["tools"][0]["function"]["name"] == "get_weather"
    assert req["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert req["format"] == schema
    assert req["options"] == {"temperature": 0, "num_ctx": 4096}
    assert fake.last_chat["format"] == "json"
    assert fake.last_chat["stream"] is True
    assert [(r.method, r.path) for r in fake.requests] == [("POST", "/api/chat")] * 2


def test_callable_that_raises_becomes_500(fake: FakeOllama) -> None:
    def broken(body: dict[str, Any]) -> str:
        raise KeyError("oops")

    fake.script(broken)
    with ollama.Client(host=fake.host) as client, pytest.raises(ollama.ResponseError) as info:
        client.chat(model="llama3.2", messages=USER)
    assert info.value.status_code == 500
    assert "KeyError" in info.value.error


def test_stop_with_client_connection_still_open() -> None:
    with ollama.Client(host=(srv := FakeOllama().start()).host) as client:
        client.list()  # leaves an idle keep-alive connection behind
        srv.stop()  # must not hang on it
        with pytest.raises(ConnectionError):
            client.list()


def test_raw_wire_format_and_stream_default() -> None:
    with FakeOllama() as srv:
        srv.script(text("a b"))
        with httpx.stream(
            "POST", f"{srv.host}/api/chat", json={"model": "m", "messages": USER}
        ) as r:  # no "stream" key: Ollama streams by default
            assert r.headers["content-type"] == "application/x-ndjson"
            lines = [json.loads(line) for line in r.iter_lines()]
    assert [line["message"]["content"] for line in lines] == ["a", " b", ""]
    assert lines[0]["done"] is False
    assert lines[-1]["done"] is True
    assert {"total_duration", "load_duration", "prompt_eval_count"} <= set(lines[-1])


def test_strict_models() -> None:
    with FakeOllama(strict_models=True) as srv, ollama.Client(host=srv.host) as client:
        srv.add_model("gemma3:1b", tools=False)
        srv.script(text("ok"))
        with pytest.raises(ollama.ResponseError) as info:
            client.chat(model="nope", messages=USER)
        assert (info.value.status_code, info.value.error) == (404, "model 'nope' not found")
        with pytest.raises(ollama.ResponseError) as info:
            client.chat(model="gemma3:1b", messages=USER, tools=[WEATHER_TOOL])
        assert info.value.status_code == 400
        assert info.value.error == '"gemma3:1b" does not support tools'
        assert client.chat(model="gemma3:1b", messages=USER).message.content == "ok"


def test_connection_refused() -> None:
    with ollama.Client(host=unused_port_host()) as client:
        with pytest.raises(ConnectionError):
            client.list()
        # NB: the client only maps ConnectError for non-streaming calls.
        with pytest.raises(httpx.ConnectError):
            list(client.chat(model="m", messages=USER, stream=True))


def test_async_client(fake: FakeOllama) -> None:
    fake.add_model("llama3.2")
    fake.script(text("async hello world"), tool_call("get_weather", {"city": "Rome"}))
    fake.script(error(503, "server busy"))

    async def run() -> None:
        async with ollama.AsyncClient(host=fake.host) as client:
            assert [m.model for m in (await client.list()).models] == ["llama3.2:latest"]
            assert (await client.show("llama3.2")).capabilities == ["completion", "tools"]
            stream = await client.chat(model="llama3.2", messages=USER, stream=True)
            assert "".join([c.message.content or "" async for c in stream]) == "async hello world"
            resp = await client.chat(model="llama3.2", messages=USER, tools=[WEATHER_TOOL])
            assert resp.message.tool_calls is not None
            assert resp.message.tool_calls[0].function.arguments == {"city": "Rome"}
            with pytest.raises(ollama.ResponseError) as info:
                await client.chat(model="llama3.2", messages=USER)
            assert info.value.status_code == 503
            with pytest.raises(ollama.ResponseError) as info:
                await client.show("ghost")
            assert info.value.status_code == 404

    asyncio.run(run())
    assert fake.chat_requests[1]["tools"][0]["function"]["name"] == "get_weather"
