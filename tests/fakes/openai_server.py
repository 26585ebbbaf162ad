"""A scripted OpenAI-compatible server (/v1/models, streaming /v1/chat/completions)."""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class FakeOpenAI:
    """Replies are str (text) or ("tool", name, arguments_json_string)."""

    def __init__(
        self, models: tuple[str, ...] = ("local-model",), props: dict[str, Any] | None = None
    ) -> None:
        self.models = list(models)
        self.props = props  # llama.cpp's GET /props; None: 404 like vLLM or LM Studio
        self.model_fields: dict[str, Any] = {}  # extra keys of every /v1/models entry
        self.replies: deque[Any] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.gets: list[str] = []  # the paths of every GET, in order
        self._server: ThreadingHTTPServer | None = None

    @property
    def host(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                fake.headers.append(dict(self.headers))
                fake.gets.append(self.path)
                if self.path == "/props":
                    self._json(*((200, fake.props) if fake.props else (404, {"error": "no"})))
                    return
                data = [{"id": m, "object": "model", **fake.model_fields} for m in fake.models]
                self._json(200, {"data": data})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                if len(fake.models) > 1 and body["model"] not in fake.models:
                    self._json(404, {"error": {"message": f"model {body['model']} not found"}})
                    return
                reply = fake.replies.popleft()
                chunks: list[dict[str, Any]] = []
                if isinstance(reply, str):
                    chunks = [{"content": w} for w in reply.split(" ") if w]
                    chunks = [
                        {"content": c["content"] + (" " if i < len(chunks) - 1 else "")}
                        for i, c in enumerate(chunks)
                    ]
                else:
                    _, name, args = reply
                    half = len(args) // 2
                    chunks = [
                        {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "c1",
                                    "function": {"name": name, "arguments": args[:half]},
                                }
                            ]
                        },
                        {"tool_calls": [{"index": 0, "function": {"arguments": args[half:]}}]},
                    ]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for delta in chunks:
                    event = {"choices": [{"index": 0, "delta": delta}]}
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                usage = {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3}}
                self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.01,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
