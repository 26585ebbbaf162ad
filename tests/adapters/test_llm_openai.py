"""The OpenAI-compatible adapter, unit and end to end through `homeclaw chat -q`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.llm_openai import to_openai_messages
from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import unused_port_host
from tests.fakes.openai_server import FakeOpenAI

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
        data = json.loads(result.stdout)
        assert data["answer"] == "Ada met a cat!"
        assert data["trace"][3]["arguments"] == {"name": "Ada"}
        first = fake.requests[0]
        assert first["stream"] is True and "greeter__story" in [
            t["function"]["name"] for t in first["tools"]
        ]
        assert fake.requests[1]["messages"][0]["content"].startswith("Retell this story")
        assert fake.headers[0]["Authorization"] == "Bearer sekret"


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
        assert result.exit_code == 4 and "has no model local-model" in result.stderr


def test_single_model_server_answers_any_name(
    cli: Callable[..., Any], tmp_path: Path, fast_retrieval: object
) -> None:
    with FakeOpenAI(models=("models/qwen2.5-3b.gguf",)) as fake:
        fake.replies.append("hello")
        pre, env = chat_env(tmp_path, fake.host)
        result = cli(*pre, "chat", "-q", "hi", env=env)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == "hello\n"
