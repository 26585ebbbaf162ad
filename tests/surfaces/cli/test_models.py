"""`homeclaw models` against FakeOllama and an OpenAI-compatible fake; chat names the installed
models when the configured one is missing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama, unused_port_host
from tests.fakes.openai_server import FakeOpenAI
from tests.json_output import payload


@pytest.fixture
def fake(hc_home: Path) -> Iterator[FakeOllama]:
    with FakeOllama(strict_models=True) as fake:
        fake.add_model("llama3.2", context_length=131072, size=2_019_393_189)
        fake.add_model("tiny", tools=False, family="gemma", context_length=8192)
        yield fake


def test_models_lists_tools_context_and_the_configured_one(
    cli: Callable[..., Any], fake: FakeOllama
) -> None:
    result = cli("models", "--host", fake.host, "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["configured"] == "llama3.2" and data["configured_installed"] is True
    by_name = {m["name"]: m for m in data["models"]}
    assert by_name["llama3.2:latest"]["tools"] is True
    assert by_name["llama3.2:latest"]["configured"] is True
    assert by_name["llama3.2:latest"]["context_length"] == 131072
    assert by_name["tiny:latest"] == {
        "name": "tiny:latest",
        "tools": False,
        "context_length": 8192,
        "size": 2019393189,
        "details": "gemma 3.2B Q4_K_M",
        "configured": False,
    }
    plain = cli("models", "--host", fake.host)
    assert plain.stdout.splitlines() == [
        "*\tllama3.2:latest\tyes\t131072\t2.0 GB\tllama 3.2B Q4_K_M",
        "\ttiny:latest\tno\t8192\t2.0 GB\tgemma 3.2B Q4_K_M",
    ]
    assert "configured: llm.model = llama3.2" in plain.stderr


def test_models_warns_when_the_configured_model_is_missing(
    cli: Callable[..., Any], fake: FakeOllama
) -> None:
    result = cli("models", "--host", fake.host, env={"HOMECLAW_MODEL": "mistral"})
    assert result.exit_code == 0
    assert "*" not in result.stdout
    assert "llm.model = mistral is not installed here" in result.stderr
    assert "HOMECLAW_MODEL; e.g. llama3.2:latest (tools)" in result.stderr


def test_models_when_the_server_is_down(cli: Callable[..., Any], hc_home: Path) -> None:
    result = cli("models", "--host", unused_port_host())
    assert result.exit_code == 5 and "Ollama is not running" in result.stderr


def test_models_of_an_openai_compatible_server_say_tools_unknown(
    cli: Callable[..., Any], hc_home: Path
) -> None:
    with FakeOpenAI(models=("qwen-7b", "llama-8b")) as fake:
        env = {"HOMECLAW_LLM__PROVIDER": "openai", "HOMECLAW_MODEL": "qwen-7b"}
        result = cli("models", "--host", fake.host, "--json", env=env)
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert [(m["name"], m["tools"], m["configured"]) for m in data["models"]] == [
        ("qwen-7b", None, True),
        ("llama-8b", None, False),
    ]


def test_chat_with_a_missing_model_names_the_installed_ones(
    cli: Callable[..., Any], fake: FakeOllama
) -> None:
    result = cli("chat", "--host", fake.host, "-m", "mistral", "-q", "hi")
    assert result.exit_code == 4
    assert "model mistral is not installed on Ollama" in result.stderr
    assert "installed: llama3.2:latest (tools), tiny:latest (no tools)" in result.stderr
    assert "set llm.model in the config or HOMECLAW_MODEL=llama3.2:latest" in result.stderr
    assert fake.chat_requests == []
