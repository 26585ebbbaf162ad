"""A web server where Ollama was expected (a wrong port, another service) is named as such,
not taken for a missing model or quoted as a whole HTML page."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.json_output import envelope


class _WebPages(BaseHTTPRequestHandler):
    def _page(self) -> None:
        body = b"<!DOCTYPE HTML>\n<html><body><h1>Error response</h1></body></html>\n"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WebPages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("command", [("models", "--json"), ("chat", "-q", "hi", "--json")])
def test_a_web_server_is_not_ollama(cli: Any, web_server: str, command: tuple[str, ...]) -> None:
    result = cli(*command, env={"HOMECLAW_LLM__HOST": web_server, "HOMECLAW_NO_BUNDLED": "1"})
    assert result.exit_code == 5, result.output
    error = envelope(result)["error"]
    assert error["message"].startswith(f"the server at {web_server} is not Ollama")
    assert "not pulled" not in error["message"] and "<html>" not in error["message"]
    assert "llm.provider: openai" in error["hint"]


@pytest.mark.parametrize("command", [("models", "--json"), ("chat", "-q", "hi", "--json")])
def test_a_web_server_is_not_an_openai_server(
    cli: Any, web_server: str, command: tuple[str, ...]
) -> None:
    env = {"HOMECLAW_LLM__PROVIDER": "openai", "HOMECLAW_LLM__HOST": web_server}
    result = cli(*command, env={**env, "HOMECLAW_NO_BUNDLED": "1"})
    assert result.exit_code == 5, result.output
    error = envelope(result)["error"]
    assert error["message"].startswith(f"the server at {web_server} is not an OpenAI-compatible")
    assert "has no model" not in error["message"] and "<html>" not in error["message"]
    assert "llm.provider: ollama" in error["hint"]
