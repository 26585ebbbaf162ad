"""The OpenAI-compatible adapter, unit and end to end through `homeclaw chat -q`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from homeclaw_cli.adapters.llm_openai import OpenAICompatLLM, to_openai_messages
from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import unused_port_host
from tests.fakes.openai_server import FakeOpenAI
from tests.json_output import payload

__all__ = ["fast_retrieval"]


def test_message_conversion_pairs_tool_results_with_call_ids() -> None:
    converted = to_openai_messages(
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "a", "arguments": {"x": 1}}},
                    {"function": {"name": "b", "arguments": {}}},
                ],
            },
            {"role": "tool", "content": "A", "tool_name": "a"},
            {"role": "tool", "content": "B", "tool_name": "b"},
        ]
    )
    assert converted[1]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'
    ids = [c["id"] for c in converted[1]["tool_calls"]]
    assert [m["tool_call_id"] for m in converted[2:]] == ids


def chat_env(tmp_path: Path, host: str) -> tuple[list[str], dict[str, str]]:
    plugins = write_test_plugins(tmp_path / "plugins")
    config = tmp_path / "config.yaml"
    config.write_text(
        f"llm:\n  provider: openai\n  host: {host}\n  model: local-model\n  api_key: sekret\n"
    )
    return ["--config", str(config), "--plugins-dir", str(plugins)], {"HOMECLAW_NO_BUNDLED": "1"}


def test_tool_call_and_text_through_the_cli(
    cli: Callable[..., Any], tmp_path: Path, fast_retrieval: object
) -> None:
    with FakeOpenAI() as fake:
        fake.replies.extend([("tool", "greeter__story", '{"name": "Ada"}'), "Ada met a cat!"])
        pre, env = chat_env(tmp_path, fake.host)
        result = cli(*pre, "chat", "-q", "tell a greet story about Ada", "--json", env=env)
        assert result.exit_code == 0, result.stderr
        data = payload(result)
        assert data["answer"] == "Ada met a cat!"
        assert data["trace"][3]["arguments"] == {"name": "Ada"}
        first = fake.requests[0]
        assert first["stream"] is True and "greeter__story" in [
            t["function"]["name"] for t in first["tools"]
        ]
        # A low temperature for steady routing, and usage so the trace counts prompt tokens.
        assert first["temperature"] == 0.2
        assert first["stream_options"] == {"include_usage": True}
        assert fake.requests[1]["messages"][0]["content"].startswith("Retell this story")
        assert fake.headers[0]["Authorization"] == "Bearer sekret"
        assert first["max_tokens"] == 2048  # llm.max_reply_tokens: servers may never stop
        fake.replies.append("Hi Ada.")
        env["HOMECLAW_LLM__MAX_REPLY_TOKENS"] = "300"
        assert cli(*pre, "chat", "-q", "hello", env=env).exit_code == 0
        assert fake.requests[-1]["max_tokens"] == 300


def test_server_down_and_unknown_model(
    cli: Callable[..., Any], tmp_path: Path, fast_retrieval: object
) -> None:
    host = unused_port_host()
    pre, env = chat_env(tmp_path, host)
    result = cli(*pre, "chat", "-q", "hi", env=env)
    assert (
        result.exit_code == 5
        and f"no OpenAI-compatible server is running at {host}" in result.stderr
    )
    with FakeOpenAI(models=("other", "another")) as fake:
        pre, env = chat_env(tmp_path, fake.host)
        result = cli(*pre, "chat", "-q", "hi", env=env)
        assert result.exit_code == 4 and "model local-model is not installed" in result.stderr
        assert "installed: other, another" in result.stderr and "llm.model" in result.stderr


def test_single_model_server_answers_any_name(
    cli: Callable[..., Any], tmp_path: Path, fast_retrieval: object
) -> None:
    with FakeOpenAI(models=("models/qwen2.5-3b.gguf",)) as fake:
        fake.replies.append("hello")
        pre, env = chat_env(tmp_path, fake.host)
        result = cli(*pre, "chat", "-q", "hi", env=env)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == "hello\n"


def test_streamed_text_tool_call_parts_and_usage_are_assembled() -> None:
    chunks = [
        {"choices": [{"delta": {"content": "Let me "}}]},
        {"choices": [{"delta": {"content": "check."}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "weather"}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "__now"}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"ci'}}]}}]},
        {
            "choices": [
                {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'ty": 1}'}}]}}
            ]
        },
        {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5}},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    sent: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    async def go() -> Any:
        llm = OpenAICompatLLM("http://llm.test", "m")
        llm._client = httpx.AsyncClient(transport=httpx.MockTransport(handle))
        pieces: list[str] = []
        try:
            reply = await llm.chat(
                [{"role": "user", "content": "hi"}],
                format={"type": "object"},
                on_text=pieces.append,
            )
        finally:
            await llm.aclose()
        return reply, pieces

    reply, pieces = asyncio.run(go())
    assert pieces == ["Let me ", "check."] and reply.content == "Let me check."
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("weather__now", {"city": 1})]
    assert (reply.prompt_tokens, reply.eval_tokens) == (12, 5)
    assert sent[0]["response_format"]["json_schema"]["schema"] == {"type": "object"}
    assert sent[0]["stream"] is True and "tools" not in sent[0]


def test_context_window_from_props_then_models_then_unknown() -> None:
    from homeclaw_cli.adapters.llm_openai import OpenAICompatLLM

    async def window(host: str) -> int | None:
        llm = OpenAICompatLLM(host, "local-model")
        try:
            return await llm.context_window()
        finally:
            await llm.aclose()

    props = {"default_generation_settings": {"n_ctx": 8192}}
    with FakeOpenAI(props=props) as fake:
        assert asyncio.run(window(fake.host)) == 8192
    with FakeOpenAI() as fake:
        fake.model_fields = {"max_model_len": 32768}
        assert asyncio.run(window(fake.host)) == 32768
    with FakeOpenAI() as fake:  # llama.cpp: the window it runs with, not the trained one
        fake.model_fields = {"meta": {"n_ctx": 8192, "n_ctx_train": 32768}}
        assert asyncio.run(window(fake.host)) == 8192
    with FakeOpenAI() as fake:
        assert asyncio.run(window(fake.host)) is None
