"""benchmarks/llm/ollama_shim.py, fast: homeclaw's unchanged ollama provider (`chat -q`) and the
official ollama client talk to a scripted OpenAI-compatible server through the shim."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.llm.ollama_shim import Shim, ollama_shim
from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.openai_server import FakeOpenAI
from tests.json_output import payload

__all__ = ["fast_retrieval"]


@pytest.fixture
def upstream() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=("qwen",)) as fake:
        yield fake


@pytest.fixture
def shim(upstream: FakeOpenAI) -> Iterator[Shim]:
    with ollama_shim(upstream.host + "/v1", "qwen") as running:
        yield running


def test_chat_through_the_shim_streams_tool_calls_and_counts(
    cli: Callable[..., Any],
    fast_retrieval: object,
    upstream: FakeOpenAI,
    shim: Shim,
    tmp_path: Path,
) -> None:
    plugins = write_test_plugins(tmp_path / "plugins")
    upstream.replies.extend([("tool", "greeter__hello", '{"name": "Ada"}')])
    # the test embedder scores weakly: its best hit is offered as it is, and not questioned
    env = {
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_LLM__DECIDE": "never",
        "HOMECLAW_PLUGINS__BEST_OVER_THRESHOLD": "0",
        **shim.homeclaw_env(),
    }
    result = cli("--plugins-dir", str(plugins), "chat", "-q", "please greet Ada", "--json", env=env)
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Hello, Ada!" and data["native_tools"] is True
    llm = next(s for s in data["trace"] if s["kind"] == "llm")
    assert llm["tool_calls"] == ["greeter__hello"] and llm["call_source"] == "native"
    assert llm["prompt_tokens"] == 11 and llm["eval_tokens"] == 3  # the upstream's usage
    sent = upstream.requests[0]
    assert sent["model"] == "qwen" and sent["stream"] is True
    assert "greeter__hello" in [t["function"]["name"] for t in sent["tools"]]
    assert sent["temperature"] == 0.2  # homeclaw's options.temperature, as OpenAI's field


def test_history_with_tool_calls_gets_openai_ids(upstream: FakeOpenAI, shim: Shim) -> None:
    import ollama

    upstream.replies.extend(["It is sunny.", "plain"])
    client = ollama.Client(host=shim.host)
    messages: list[Any] = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "weather__now", "arguments": {"city": "Oslo"}}}],
        },
        {"role": "tool", "content": "sunny"},
    ]
    reply = client.chat(model="qwen", messages=messages, stream=False, format="json")
    assert reply.message.content == "It is sunny." and reply.done
    assert reply.prompt_eval_count == 11
    sent = upstream.requests[0]
    call = sent["messages"][1]["tool_calls"][0]
    assert call["id"] == "call_1" and json.loads(call["function"]["arguments"]) == {"city": "Oslo"}
    assert sent["messages"][2] == {"role": "tool", "content": "sunny", "tool_call_id": "call_1"}
    assert sent["response_format"] == {"type": "json_object"}
    assert client.show("qwen").capabilities == ["completion", "tools"]
    assert [m.model for m in client.list().models] == ["qwen"]
