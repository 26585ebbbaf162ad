"""OllamaLLM against the fake Ollama server with the real client."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from homeclaw_cli.adapters.llm_ollama import ContextTooLongError, OllamaLLM
from homeclaw_cli.errors import NotFoundError, UnavailableError
from tests.fakes.ollama_server import (
    FakeOllama,
    Reply,
    error,
    fake_ollama,
    text,
    tool_call,
    unused_port_host,
)

__all__ = ["fake_ollama"]
MSGS = [{"role": "user", "content": "hi"}]


def using(host: str, model: str, fn: Callable[[OllamaLLM], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        llm = OllamaLLM(host, model)
        try:
            return await fn(llm)
        finally:
            await llm.aclose()

    return asyncio.run(go())


def test_streams_text_and_reports_token_counts(fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(text("hello there world"))
    pieces: list[str] = []
    reply = using(fake_ollama.host, "llama3.2", lambda llm: llm.chat(MSGS, on_text=pieces.append))
    assert reply.content == "hello there world" and len(pieces) == 3
    assert reply.prompt_tokens and reply.eval_tokens == 3
    assert fake_ollama.last_chat["stream"] is True


def test_native_tool_calls_and_tools_sent(fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("qwen2.5")
    fake_ollama.script(tool_call("weather__now", {"city": "Paris"}))
    tool = {
        "type": "function",
        "function": {
            "name": "weather__now",
            "description": "d",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    reply = using(fake_ollama.host, "qwen2.5", lambda llm: llm.chat(MSGS, tools=[tool]))
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("weather__now", {"city": "Paris"})
    ]
    assert fake_ollama.last_chat["tools"][0]["function"]["name"] == "weather__now"


def test_tools_capability_detection(fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("llama3.2")
    fake_ollama.add_model("gemma2", tools=False)
    assert using(fake_ollama.host, "llama3.2", lambda llm: llm.supports_tools()) is True
    assert using(fake_ollama.host, "gemma2", lambda llm: llm.supports_tools()) is False
    assert using(fake_ollama.host, "gemma2", lambda llm: llm.context_window()) == 131072


def test_format_is_passed_through(fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("gemma2", tools=False)
    fake_ollama.script(text('{"tool": "answer", "answer": "hi"}'))
    schema = {"type": "object", "properties": {"tool": {"type": "string"}}}
    using(fake_ollama.host, "gemma2", lambda llm: llm.chat(MSGS, format=schema))
    assert fake_ollama.last_chat["format"] == schema


@pytest.mark.parametrize("call", ["chat", "show", "version", "list_models"])
def test_not_running(call: str) -> None:
    host = unused_port_host()
    with pytest.raises(UnavailableError) as info:
        using(
            host, "llama3.2", lambda llm: llm.chat(MSGS) if call == "chat" else getattr(llm, call)()
        )
    assert info.value.message == f"Ollama is not running at {host}"
    assert info.value.hint == "start it with `ollama serve`"


@pytest.mark.parametrize("call", ["chat", "show"])
def test_model_not_pulled(call: str) -> None:
    with FakeOllama(strict_models=True) as fake, pytest.raises(NotFoundError) as info:
        using(fake.host, "mistral", lambda llm: llm.chat(MSGS) if call == "chat" else llm.show())
    assert info.value.message == "model mistral is not pulled"
    assert info.value.hint == "run `ollama pull mistral`"


@pytest.mark.parametrize(
    ("reply", "exc", "match"),
    [
        (
            error(400, '"llama3.2" does not support tools'),
            UnavailableError,
            "does not support tool",
        ),
        (error(500, "input length exceeds the context length"), ContextTooLongError, "context"),
        (
            Reply(content="partial", stream_error="model runner crashed"),
            UnavailableError,
            "model runner crashed",
        ),
    ],
)
def test_server_errors_become_sentences(
    fake_ollama: FakeOllama, reply: Reply, exc: type[Exception], match: str
) -> None:
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(reply)
    with pytest.raises(exc, match=match):
        using(fake_ollama.host, "llama3.2", lambda llm: llm.chat(MSGS))
