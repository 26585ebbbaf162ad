"""The model server's address: OLLAMA_HOST read as the ollama CLI reads it, and a URL that
cannot be opened is a configuration error before any command tries it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.settings import load_settings
from tests.json_output import envelope


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:8080", "http://gpu-box:8080"),
        (":11500", "http://127.0.0.1:11500"),
        ("[::1]", "http://[::1]:11434"),
        ("https://ollama.example.com", "https://ollama.example.com"),
    ],
)
def test_ollama_host_without_a_port_means_11434(tmp_path: Path, raw: str, url: str) -> None:
    settings = load_settings(env={"HOMECLAW_HOME": str(tmp_path), "OLLAMA_HOST": raw})
    assert settings.llm.host == url


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("OLLAMA_HOST", "127.0.0.1:11434x", "Port could not be cast"),
        ("OLLAMA_HOST", "http://localhost:99999", "Port out of range"),
        ("HOMECLAW_LLM__HOST", "http://[::1", "Invalid IPv6 URL"),
        ("HOMECLAW_LLM__HOST", "ftp://models", "not a server URL"),
    ],
)
def test_a_server_url_that_cannot_be_opened_is_a_config_error(
    cli: Any, variable: str, value: str, problem: str
) -> None:
    result = cli("models", "--json", env={variable: value})
    assert result.exit_code == 3, result.output
    error = envelope(result)["error"]
    assert "llm.host" in error["message"] and variable in error["message"]
    assert problem in error["message"]
    assert "Traceback" not in result.output
