"""A scripted fake Ollama server speaking Ollama's real HTTP wire protocol.

The unmodified official ``ollama`` client (``Client`` / ``AsyncClient``) works against it::

    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        fake.script(text("hello"), tool_call("route_to_plugin", {"plugin": "weather"}))
        client = ollama.Client(host=fake.host)
        ...
        assert fake.chat_requests[0]["tools"][0]["function"]["name"] == "route_to_plugin"

Stdlib only (``http.server`` in a background thread); ``pytest`` is used only for the fixture.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest

OLLAMA_VERSION = "0.12.0"
NO_REPLY_LEFT = "fake ollama: no scripted reply left"
_MODIFIED_AT = "2025-09-30T12:34:56.789012+02:00"
_DURATIONS = {"total_duration": 1_200_000_000, "load_duration": 50_000_000}
_DURATIONS |= {"prompt_eval_duration": 300_000_000, "eval_duration": 800_000_000}


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """One scripted /api/chat answer. ``status != 200`` means an HTTP error reply."""

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: str = ""
    status: int = 200
    error: str = ""
    stream_error: str = ""  # streaming only: an {"error": ...} line after the content chunks
    done_reason: str = "stop"


ReplyFn = Callable[[dict[str, Any]], "Reply | str"]
ScriptItem = Reply | str | ReplyFn


def text(content: str, *, thinking: str = "") -> Reply:
    """A plain assistant answer."""
    return Reply(content=content, thinking=thinking)


def tool_call(name: str, arguments: dict[str, Any] | None = None, *, content: str = "") -> Reply:
    """A reply with one native tool call (``message.tool_calls``)."""
    return Reply(content=content, tool_calls=(ToolCall(name, dict(arguments or {})),))


def tool_calls(*calls: ToolCall | tuple[str, dict[str, Any]], content: str = "") -> Reply:
    """A reply with several native tool calls: ``tool_calls(("a", {...}), ToolCall("b"))``."""
    parsed = tuple(c if isinstance(c, ToolCall) else ToolCall(c[0], dict(c[1])) for c in calls)
    return Reply(content=content, tool_calls=parsed)


def text_tool_call(
    name: str, arguments: dict[str, Any] | None = None, *, fenced: bool = False
) -> Reply:
    """A tool call written as JSON *text* in ``content`` (what small models often do)."""
    payload = json.dumps({"name": name, "arguments": arguments or {}})
    return Reply(content=f"```json\n{payload}\n```" if fenced else payload)


def error(status: int, message: str) -> Reply:
    """An HTTP error reply: body ``{"error": message}`` with the given status."""
    return Reply(status=status, error=message)


def model_not_found(model: str) -> Reply:
    return error(404, f"model '{model}' not found")


@dataclass
class FakeModel:
    name: str
    capabilities: list[str]
    family: str = "llama"
    parameter_size: str = "3.2B"
    quantization_level: str = "Q4_K_M"
    context_length: int = 131072
    size: int = 2019393189

    def details(self) -> dict[str, Any]:
        keys = ("family", "parameter_size", "quantization_level")
        details = {"parent_model": "", "format": "gguf", "families": [self.family]}
        return details | {k: getattr(self, k) for k in keys}

    def tags_entry(self) -> dict[str, Any]:
        entry = {"name": self.name, "model": self.name, "modified_at": _MODIFIED_AT}
        digest = hashlib.sha256(self.name.encode()).hexdigest()
        return entry | {"size": self.size, "digest": digest, "details": self.details()}

    def show(self) -> dict[str, Any]:
        tools = "{{ if .Tools }}{{ .Tools }}{{ end }}" if "tools" in self.capabilities else ""
        info = {"general.architecture": self.family, "general.parameter_count": 3212749888}
        info[f"{self.family}.context_length"] = self.context_length
        show = {"license": "fake", "parameters": 'stop "<|eot_id|>"', "model_info": info}
        show |= {"modelfile": f"FROM {self.name}\n", "modified_at": _MODIFIED_AT}
        show |= {"details": self.details(), "capabilities": list(self.capabilities)}
        return show | {"template": tools + "{{ range .Messages }}{{ .Content }}{{ end }}"}


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: dict[str, Any]


def normalize_model_name(name: str) -> str:
    """Ollama resolves ``llama3.2`` to ``llama3.2:latest``."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def split_chunks(content: str) -> list[str]:
    """Split text into several stream pieces whose concatenation is the original text."""
    return re.findall(r"\s*\S+|\s+", content)


def unused_port_host() -> str:
    """A host URL on 127.0.0.1 where nothing listens (for connection-refused scenarios)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class FakeOllama:
    """Scripted fake Ollama on an ephemeral 127.0.0.1 port; use as a context manager.

    ``strict_models=True``: /api/chat answers like Ollama for unknown models (404) and for tools
    sent to a model without the "tools" capability (400), without consuming a scripted reply.
    """

    def __init__(self, *, strict_models: bool = False) -> None:
        self.strict_models = strict_models
        self.models: dict[str, FakeModel] = {}
        self.requests: list[RecordedRequest] = []
        self._replies: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeOllama is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Self:
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.01,), daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()  # joins the handler threads
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def add_model(
        self, name: str, *, tools: bool = True, capabilities: Sequence[str] = (), **details: Any
    ) -> FakeModel:
        """Register a model; ``capabilities`` overrides the default ["completion"(, "tools")].

        ``details``: family, parameter_size, quantization_level, context_length, size.
        """
        caps = list(capabilities) or (["completion", "tools"] if tools else ["completion"])
        model = FakeModel(normalize_model_name(name), caps, **details)
        self.models[model.name] = model
        return model

    def get_model(self, name: str) -> FakeModel | None:
        return self.models.get(normalize_model_name(name))

    def script(self, *replies: ScriptItem) -> None:
        """Queue replies consumed in order by /api/chat (str = plain text reply)."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            item = self._replies.popleft() if self._replies else error(500, NO_REPLY_LEFT)
        if callable(item):
            try:
                item = item(body)
            except Exception as exc:  # surfaced to the client, not lost in the server thread
                item = error(500, f"fake ollama: scripted callable raised {exc!r}")
        return text(item) if isinstance(item, str) else item

    def _record(self, method: str, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(method, path, body))

    def requests_for(self, path: str) -> list[dict[str, Any]]:
        with self._lock:
            return [r.body for r in self.requests if r.path == path]

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return self.requests_for("/api/chat")

    @property
    def last_chat(self) -> dict[str, Any]:
        return self.chat_requests[-1]


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True

    def __init__(self, fake: FakeOllama) -> None:
        self.fake = fake
        self._conns: set[socket.socket] = set()  # set add/discard/pop are atomic
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self._conns.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        self._conns.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Wake handler threads blocked on idle keep-alive connections."""
        while self._conns:
            with suppress(OSError, KeyError):
                self._conns.pop().shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # clients may hang up mid-stream
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 30

    def setup(self) -> None:
        super().setup()
        # Avoid the Nagle / delayed-ACK 40 ms stall on header+body writes.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send_raw(self, status: int, data: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_json(self, status: int, payload: Any) -> None:
        self._send_raw(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def _write_chunk(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode() + b"\n"
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")

    def do_GET(self) -> None:
        self.server.fake._record("GET", self.path, {})
        if self.path == "/api/version":
            self._send_json(200, {"version": OLLAMA_VERSION})
        elif self.path == "/api/tags":
            models = self.server.fake.models.values()
            self._send_json(200, {"models": [m.tags_entry() for m in models]})
        elif self.path == "/":
            self._send_raw(200, b"Ollama is running")
        else:
            self._send_raw(404, b"404 page not found")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or "{}")
        self.server.fake._record("POST", self.path, body)
        if self.path == "/api/show":
            model = self.server.fake.get_model(str(body.get("model", "")))
            if model is None:
                self._send_json(404, {"error": f"model '{body.get('model', '')}' not found"})
            else:
                self._send_json(200, model.show())
        elif self.path == "/api/chat":
            self._chat(body)
        else:
            self._send_raw(404, b"404 page not found")

    def _chat(self, body: dict[str, Any]) -> None:
        name = str(body.get("model", ""))
        if self.server.fake.strict_models:
            model = self.server.fake.get_model(name)
            if model is None:
                self._send_json(404, {"error": f"model '{name}' not found"})
                return
            if body.get("tools") and "tools" not in model.capabilities:
                self._send_json(400, {"error": f'"{name}" does not support tools'})
                return
        reply = self.server.fake._next_reply(body)
        if reply.status != 200:
            self._send_json(reply.status, {"error": reply.error or "error"})
            return
        messages = body.get("messages") or []
        prompt_tokens = sum(len(str(m.get("content") or "").split()) + 4 for m in messages)
        pieces = split_chunks(reply.content)
        final = {"done_reason": reply.done_reason, "done": True, **_DURATIONS}
        final |= {"prompt_eval_count": prompt_tokens, "eval_count": max(len(pieces), 1)}
        calls = [
            {"function": {"index": i, "name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(reply.tool_calls)
        ]
        head = {"model": name, "created_at": _now()}
        if not body.get("stream", True):  # Ollama streams unless told otherwise
            message: dict[str, Any] = {"role": "assistant", "content": reply.content}
            message |= {"thinking": reply.thinking} if reply.thinking else {}
            message |= {"tool_calls": calls} if calls else {}
            self._send_json(200, {**head, "message": message, **final})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        parts: list[dict[str, Any]] = [{"thinking": p} for p in split_chunks(reply.thinking)]
        parts += [{"content": p} for p in pieces] + ([{"tool_calls": calls}] if calls else [])
        for part in parts:
            message = {"role": "assistant", "content": "", **part}
            self._write_chunk({**head, "created_at": _now(), "message": message, "done": False})
        if reply.stream_error:
            self._write_chunk({"error": reply.stream_error})
        else:
            message = {"role": "assistant", "content": ""}
            self._write_chunk({**head, "created_at": _now(), "message": message, **final})
        self.wfile.write(b"0\r\n\r\n")


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A started FakeOllama, stopped after the test."""
    with FakeOllama() as fake:
        yield fake
