"""A model server on another host: behind a reverse proxy that wants a token, or an
OpenAI-compatible server whose API key comes from the environment."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama, fake_ollama
from tests.json_output import payload

__all__ = ["fake_ollama"]

TOKEN = "proxy-s3cret"


@pytest.fixture
def auth_proxy(fake_ollama: FakeOllama) -> Iterator[str]:
    """A reverse proxy in front of the fake Ollama that answers 401 without the bearer token."""

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _forward(self) -> None:
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self.send_response(401)
                self.send_header("Content-Length", "12")
                self.end_headers()
                self.wfile.write(b"unauthorized")
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            request = urllib.request.Request(
                fake_ollama.host + self.path, data=body, method=self.command
            )
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    status, data = response.status, response.read()
            except urllib.error.HTTPError as exc:
                status, data = exc.code, exc.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _forward

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _by_name(result: Any) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in payload(result)}


def test_ollama_behind_a_proxy_with_a_token_header(
    cli: Any, hc_home: Path, fake_ollama: FakeOllama, auth_proxy: str, monkeypatch: Any
) -> None:
    fake_ollama.add_model("llama3.2")
    config = hc_home / "config.yaml"
    config.write_text(f"llm: {{host: '{auth_proxy}'}}\n", encoding="utf-8")
    refused = _by_name(cli("doctor", "--json"))["llm server"]
    assert refused["status"] == "fail" and "refused the request (HTTP 401)" in refused["detail"]
    assert "llm.headers" in refused["fix"]

    config.write_text(
        f"llm: {{host: '{auth_proxy}', headers: {{Authorization: 'Bearer ${{PROXY_TOKEN}}'}}}}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PROXY_TOKEN", TOKEN)
    checks = _by_name(cli("doctor", "--json"))
    assert checks["llm server"]["status"] == "ok" and auth_proxy in checks["llm server"]["detail"]
    assert checks["model"]["status"] == "ok" and "native tool calls" in checks["model"]["detail"]
    shown = cli("config", "show").stdout
    assert TOKEN not in shown and "PROXY_TOKEN" not in shown  # header values are masked


def test_openai_key_from_a_named_environment_variable(cli: Any, hc_home: Path) -> None:
    (hc_home / "config.yaml").write_text(
        "llm: {provider: openai, host: 'http://127.0.0.1:9', api_key_env: TEAM_LLM_KEY}\n",
        encoding="utf-8",
    )
    result = cli("doctor")
    assert result.exit_code == 3
    assert "llm.api_key_env names TEAM_LLM_KEY" in result.stderr
    assert "export TEAM_LLM_KEY=" in result.stderr
