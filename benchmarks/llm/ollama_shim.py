"""A small Ollama-protocol front for an OpenAI-compatible server (llama.cpp has no /api/chat).

homeclaw's unchanged `ollama` provider (the official client) talks to this shim, which forwards
every /api/chat to the upstream /v1/chat/completions, streaming included:

- messages: assistant `tool_calls` get ids and JSON-string arguments, `tool` messages the id of
  the call they answer (in order), as OpenAI servers require;
- `tools` pass through; `format` ("json" or a schema) becomes `response_format`;
  `options.temperature / top_p / seed / num_predict` become the OpenAI fields;
- the reply streams back as Ollama NDJSON chunks; tool calls (OpenAI deltas) are assembled and
  sent as one chunk with `message.tool_calls`, then the `done` chunk with the token counts
  (usage, else llama.cpp's `timings`) and durations.

Also answers /api/version, /api/tags and /api/show (capabilities: completion, tools; the context
length). Stdlib only. Run:  python benchmarks/llm/ollama_shim.py --upstream http://127.0.0.1:8088
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "0.12.0-shim"


@dataclass(frozen=True)
class Shim:
    """A running shim: where homeclaw's ollama provider should point."""

    host: str
    model: str

    def homeclaw_env(self) -> dict[str, str]:
        return {
            "HOMECLAW_LLM__PROVIDER": "ollama",
            "HOMECLAW_LLM__HOST": self.host,
            "HOMECLAW_MODEL": self.model,
        }


def to_openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ollama chat messages as OpenAI ones (ids for tool calls and their results)."""
    out: list[dict[str, Any]] = []
    pending: list[str] = []
    counter = 0
    for message in messages:
        role = message.get("role", "user")
        item: dict[str, Any] = {"role": role, "content": message.get("content") or ""}
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                counter += 1
                call_id = f"call_{counter}"
                pending.append(call_id)
                function = call.get("function", {})
                arguments = function.get("arguments", {})
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": function.get("name", ""),
                            "arguments": arguments
                            if isinstance(arguments, str)
                            else json.dumps(arguments),
                        },
                    }
                )
            item["tool_calls"] = calls
        elif role == "tool":
            item["tool_call_id"] = pending.pop(0) if pending else f"call_{counter}"
        out.append(item)
    return out


def to_openai_request(body: dict[str, Any], model: str) -> dict[str, Any]:
    """An Ollama /api/chat body as an OpenAI chat-completions request (always streamed)."""
    request: dict[str, Any] = {
        "model": model,
        "messages": to_openai_messages(body.get("messages") or []),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if body.get("tools"):
        request["tools"] = body["tools"]
    fmt = body.get("format")
    if fmt == "json":
        request["response_format"] = {"type": "json_object"}
    elif isinstance(fmt, dict):
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": fmt},
        }
    options = body.get("options") or {}
    for ollama_key, openai_key in (
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("seed", "seed"),
        ("num_predict", "max_tokens"),
    ):
        if options.get(ollama_key) is not None:
            request[openai_key] = options[ollama_key]
    return request


def upstream_events(url: str, request: dict[str, Any], timeout: float) -> Iterator[dict[str, Any]]:
    """The upstream's SSE `data:` events as dicts (comment lines and [DONE] skipped)."""
    data = json.dumps(request).encode()
    req = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as response:
        for raw in response:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                return
            yield json.loads(payload)


class ChatTranslator:
    """Turns the upstream's stream of OpenAI chunks into Ollama /api/chat chunks."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.calls: dict[int, dict[str, str]] = {}
        self.usage: dict[str, Any] = {}
        self.timings: dict[str, Any] = {}
        self.finish = "stop"
        self.started = time.perf_counter_ns()

    def chunk(self, message: dict[str, Any], *, done: bool = False) -> dict[str, Any]:
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        return {"model": self.model, "created_at": now, "message": message, "done": done}

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Ollama chunks for one upstream event (content pieces are passed on at once)."""
        self.usage = event.get("usage") or self.usage
        self.timings = event.get("timings") or self.timings
        out = []
        for choice in event.get("choices") or []:
            delta = choice.get("delta") or choice.get("message") or {}
            if delta.get("content"):
                out.append(self.chunk({"role": "assistant", "content": delta["content"]}))
            for call in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(call.get("index", 0), {"name": "", "arguments": ""})
                function = call.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self.finish = "length" if choice["finish_reason"] == "length" else "stop"
        return out

    def close(self) -> list[dict[str, Any]]:
        """The tool-call chunk (if any) and the final `done` chunk with counts and durations."""
        out = []
        if self.calls:
            calls = [
                {"function": {"name": c["name"], "arguments": _arguments(c["arguments"])}}
                for _, c in sorted(self.calls.items())
            ]
            out.append(self.chunk({"role": "assistant", "content": "", "tool_calls": calls}))
        prompt_n = self.usage.get("prompt_tokens", self.timings.get("prompt_n"))
        eval_n = self.usage.get("completion_tokens", self.timings.get("predicted_n"))
        final = self.chunk({"role": "assistant", "content": ""}, done=True)
        final |= {
            "done_reason": self.finish,
            "total_duration": time.perf_counter_ns() - self.started,
            "load_duration": 0,
            "prompt_eval_count": prompt_n,
            "prompt_eval_duration": int(self.timings.get("prompt_ms", 0) * 1e6),
            "eval_count": eval_n,
            "eval_duration": int(self.timings.get("predicted_ms", 0) * 1e6),
        }
        out.append(final)
        return out


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def merge_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A non-streamed reply: the chunks' content and tool calls in the final chunk."""
    final = dict(chunks[-1])
    content = "".join(c["message"].get("content", "") for c in chunks)
    calls = [call for c in chunks for call in c["message"].get("tool_calls", [])]
    final["message"] = {"role": "assistant", "content": content}
    if calls:
        final["message"]["tool_calls"] = calls
    return final


class _Handler(BaseHTTPRequestHandler):
    server: _ShimServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self) -> None:
        model = self.server.model
        if self.path == "/api/version":
            self._json(200, {"version": VERSION})
        elif self.path == "/api/tags":
            details = {"format": "gguf", "family": "qwen2", "parameter_size": "1.5B"}
            entry = {"name": model, "model": model, "size": 0, "digest": "", "details": details}
            self._json(200, {"models": [entry | {"modified_at": "2026-01-01T00:00:00Z"}]})
        else:
            self._json(404, {"error": f"shim: no route {self.path}"})

    def do_POST(self) -> None:
        if self.path == "/api/show":
            self._body()
            self._json(
                200,
                {
                    "capabilities": ["completion", "tools"],
                    "model_info": {"qwen2.context_length": self.server.ctx_size},
                    "details": {"format": "gguf", "family": "qwen2"},
                    "modified_at": "2026-01-01T00:00:00Z",
                },
            )
        elif self.path == "/api/chat":
            self._chat(self._body())
        else:
            self._json(404, {"error": f"shim: no route {self.path}"})

    def _chat(self, body: dict[str, Any]) -> None:
        translator = ChatTranslator(body.get("model") or self.server.model)
        request = to_openai_request(body, self.server.model)
        url = self.server.upstream + "/v1/chat/completions"
        stream = body.get("stream", True)
        try:
            events = upstream_events(url, request, self.server.timeout)
            if not stream:
                chunks = [c for e in events for c in translator.feed(e)]
                self._json(200, merge_chunks([*chunks, *translator.close()]))
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            for event in events:
                self._write(translator.feed(event))
            self._write(translator.close())
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:500]
            self._json(exc.code, {"error": f"upstream: {detail}"})
        except (urllib.error.URLError, OSError) as exc:
            with contextlib.suppress(OSError):
                self._json(502, {"error": f"upstream unreachable: {exc}"})

    def _write(self, chunks: list[dict[str, Any]]) -> None:
        for chunk in chunks:
            self.wfile.write(json.dumps(chunk).encode() + b"\n")
        self.wfile.flush()


class _ShimServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, upstream: str, model: str, ctx_size: int, timeout: float):
        super().__init__(("127.0.0.1", port), _Handler)
        self.upstream = upstream.rstrip("/").removesuffix("/v1")
        self.model = model
        self.ctx_size = ctx_size
        self.timeout = timeout


@contextlib.contextmanager
def ollama_shim(
    upstream: str, model: str, *, port: int = 0, ctx_size: int = 8192, timeout: float = 600
) -> Iterator[Shim]:
    """Serve the Ollama protocol on 127.0.0.1:PORT (0: a free port) in a background thread."""
    server = _ShimServer(port, upstream, model, ctx_size, timeout)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Shim(f"http://127.0.0.1:{server.server_address[1]}", model)
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    """CLI: serve until Ctrl+C."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="OpenAI-compatible base URL")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--port", type=int, default=11435)
    args = parser.parse_args(argv)
    with ollama_shim(args.upstream, args.model, port=args.port) as shim:
        print(f"Ollama protocol on {shim.host} -> {args.upstream}", flush=True)
        print(" ".join(f"{k}={v}" for k, v in shim.homeclaw_env().items()), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
