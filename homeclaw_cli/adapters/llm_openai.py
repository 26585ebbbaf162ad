"""The agent's LLM over an OpenAI-compatible /v1/chat/completions server.

For people who run llama.cpp's llama-server, LM Studio or vLLM instead of Ollama
(`llm.provider: openai`, `llm.host: http://127.0.0.1:8080`). Plain httpx with SSE streaming:
the wire format is small and stable, and no extra SDK is needed.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx

from homeclaw_cli.adapters.web_page import is_web_page
from homeclaw_cli.core.ports import (
    ChatMessage,
    JsonSchema,
    LLMReply,
    LLMToolCall,
    ModelInfo,
    TextSink,
    tighter,
)
from homeclaw_cli.errors import ConfigError, HomeclawError, NotFoundError, UnavailableError

_LISTING_FRESH_SEC = 10.0  # one chat start; `/model` later in the session asks again


def api_base(host: str) -> str:
    base = host.rstrip("/")
    return base if base.endswith("/v1") else base + "/v1"


def to_openai_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Ollama-style messages -> OpenAI ones (call ids, JSON-string arguments)."""
    out: list[dict[str, Any]] = []
    pending: list[str] = []
    counter = 0
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            pending = []
            for call in message["tool_calls"]:
                counter += 1
                call_id = f"call_{counter}"
                pending.append(call_id)
                function = call.get("function", {})
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": function.get("name", ""),
                            "arguments": json.dumps(function.get("arguments") or {}),
                        },
                    }
                )
            out.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or None,
                    "tool_calls": calls,
                }
            )
        elif role == "tool":
            call_id = pending.pop(0) if pending else f"call_{counter}"
            out.append({"role": "tool", "tool_call_id": call_id, "content": message["content"]})
        else:
            out.append({"role": role, "content": message.get("content", "")})
    return out


def request_body(
    model: str,
    messages: Sequence[ChatMessage],
    tools: list[JsonSchema] | None,
    format: JsonSchema | None,
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The streaming /v1/chat/completions request; `format` becomes a json_schema reply.

    Usage is asked for (`stream_options.include_usage`) so traces count prompt tokens for every
    provider; the temperature is sent because a server's default (0.8 in llama.cpp) would
    otherwise decide tool routing."""
    body: dict[str, Any] = {
        "model": model,
        "messages": to_openai_messages(messages),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if temperature is not None:
        body["temperature"] = temperature
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if tools:
        body["tools"] = tools
    if format:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": format},
        }
    return body


class _ReplyStream:
    """Collects the server-sent chunks of one reply: text pieces, tool-call parts, usage."""

    def __init__(self, on_text: TextSink | None) -> None:
        self.on_text = on_text
        self.content: list[str] = []
        self.partial: dict[int, dict[str, str]] = {}  # index -> name and argument text so far
        self.usage: dict[str, Any] = {}

    def feed(self, line: str) -> bool:
        """Take one SSE line; False once the stream says it is done."""
        if not line.startswith("data:"):
            return True
        data = line[5:].strip()
        if data == "[DONE]":
            return False
        chunk = json.loads(data)
        self.usage = chunk.get("usage") or self.usage
        for choice in chunk.get("choices", []):
            self._delta(choice.get("delta") or {})
        return True

    def _delta(self, delta: dict[str, Any]) -> None:
        if delta.get("content"):
            self.content.append(delta["content"])
            if self.on_text is not None:
                self.on_text(delta["content"])
        for call in delta.get("tool_calls") or []:
            slot = self.partial.setdefault(call.get("index", 0), {"name": "", "args": ""})
            function = call.get("function") or {}
            slot["name"] += function.get("name") or ""
            slot["args"] += function.get("arguments") or ""

    def reply(self, seconds: float) -> LLMReply:
        calls = [
            LLMToolCall(s["name"], _arguments(s["args"])) for _, s in sorted(self.partial.items())
        ]
        return LLMReply(
            "".join(self.content),
            calls,
            prompt_tokens=self.usage.get("prompt_tokens"),
            eval_tokens=self.usage.get("completion_tokens"),
            seconds=seconds,
        )


class OpenAICompatLLM:
    """`LLM` protocol implementation for OpenAI-compatible servers."""

    def __init__(
        self,
        host: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        headers: dict[str, str] | None = None,
        retries: int = 0,
        connect_timeout: float | None = None,
    ) -> None:
        self.host = host
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.base = api_base(host)
        self._model = model
        self.timeout = timeout
        self._listing: tuple[float, list[Any]] | None = None  # (when, /v1/models `data`)
        all_headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        all_headers.update(headers or {})
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout, connect=connect_timeout or timeout),
            headers=all_headers,
            transport=httpx.AsyncHTTPTransport(retries=retries),
        )

    @property
    def model(self) -> str:
        return self._model

    async def version(self) -> str:
        models = await self.list_models()
        return f"(OpenAI-compatible, {len(models)} models)"

    async def list_models(self) -> list[str]:
        return [m.name for m in await self.models()]

    async def models(self) -> list[ModelInfo]:
        """/v1/models; tool support is not reported there (None), the window sometimes is
        (vLLM `max_model_len`, llama.cpp `meta.n_ctx`: the window it runs with, not the one
        the model was trained for)."""
        return [
            ModelInfo(str(m.get("id")), tools=None, context_length=_window_of(m))
            for m in await self._model_entries()
            if isinstance(m, dict)
        ]

    async def _model_entries(self) -> list[Any]:
        """/v1/models `data`, asked once for the checks a chat start makes in a row (the
        model is there, a stand-in, the window); a listing asked for later is fresh."""
        if self._listing is not None and time.monotonic() - self._listing[0] < _LISTING_FRESH_SEC:
            return self._listing[1]
        async with self._errors():
            response = await self._client.get(f"{self.base}/models")
            self._raise_for(response)
            data = response.json().get("data", [])
        entries = data if isinstance(data, list) else []
        self._listing = (time.monotonic(), entries)
        return entries

    async def context_window(self) -> int | None:
        """The window the server runs with (serving_window), else the one /v1/models gives
        the model, which may be what it was trained for."""
        if (serving := await self.serving_window()) is not None:
            return serving
        with contextlib.suppress(HomeclawError):
            for model in await self.models():
                if model.name == self._model:
                    return model.context_length
        return None

    async def serving_window(self) -> int | None:
        """llama.cpp's /props `n_ctx`, else `max_model_len` (vLLM) or `meta.n_ctx` (llama.cpp)
        of the model in /v1/models: the window the server runs with."""
        root = self.base.removesuffix("/v1")
        with contextlib.suppress(httpx.HTTPError, ValueError):
            response = await self._client.get(f"{root}/props")
            if response.status_code == 200:
                settings = response.json().get("default_generation_settings") or {}
                n_ctx = settings.get("n_ctx") or response.json().get("n_ctx")
                if isinstance(n_ctx, int) and n_ctx > 0:
                    return n_ctx
        with contextlib.suppress(HomeclawError, httpx.HTTPError, ValueError):
            for model in await self._model_entries():
                if isinstance(model, dict) and str(model.get("id")) == self._model:
                    return _serving_window_of(model)
        return None

    async def supports_tools(self) -> bool:
        """These servers do not report it; check the model exists and assume tools.

        A server with a single model (llama-server) answers whatever name is asked for.
        """
        models = await self.list_models()
        if len(models) > 1 and self._model not in models:
            raise NotFoundError(
                f"the server at {self.host} has no model {self._model}",
                hint=f"models there: {', '.join(models[:10])}; set llm.model",
            )
        return True

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: list[JsonSchema] | None = None,
        format: JsonSchema | None = None,
        on_text: TextSink | None = None,
        max_tokens: int | None = None,
    ) -> LLMReply:
        """Stream one /v1/chat/completions reply, feeding content pieces to `on_text`."""
        started = time.perf_counter()
        body = request_body(
            self._model,
            messages,
            tools,
            format,
            temperature=self.temperature,
            max_tokens=tighter(self.max_tokens, max_tokens),
        )
        stream = _ReplyStream(on_text)
        async with (
            self._errors(),
            self._client.stream("POST", f"{self.base}/chat/completions", json=body) as response,
        ):
            if response.status_code >= 400:
                await response.aread()
                self._raise_for(response)
            async for line in response.aiter_lines():
                if not stream.feed(line):
                    break
        return stream.reply(time.perf_counter() - started)

    async def aclose(self) -> None:
        await self._client.aclose()

    def _raise_for(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        if is_web_page(response.text):
            raise UnavailableError(
                f"the server at {self.host} is not an OpenAI-compatible model server: it "
                f"answered with a web page (HTTP {response.status_code})",
                hint="fix llm.host (llama-server, vLLM, LM Studio; homeclaw adds /v1); for "
                "Ollama set llm.provider: ollama",
            )
        try:
            detail = response.json().get("error", response.text)
            if isinstance(detail, dict):
                detail = detail.get("message", detail)
        except ValueError:
            detail = response.text
        if response.status_code in (401, 403):
            raise ConfigError(
                f"the server at {self.host} refused the request ({detail})",
                hint="set llm.api_key_env to the variable holding the key (or llm.api_key)",
            )
        if response.status_code == 404:
            raise NotFoundError(
                f"the server at {self.host} has no model {self._model} ({detail})",
                hint="check llm.model against the server's /v1/models",
            )
        raise UnavailableError(f"LLM server error: {detail} (HTTP {response.status_code})")

    @asynccontextmanager
    async def _errors(self) -> AsyncIterator[None]:
        try:
            yield
        except HomeclawError:
            raise
        except httpx.TimeoutException as exc:
            raise UnavailableError(
                f"the LLM server at {self.host} did not answer within {self.timeout:g}s",
                hint="raise llm.timeout_sec",
            ) from exc
        except (httpx.ConnectError, httpx.NetworkError, ConnectionError) as exc:
            raise UnavailableError(
                f"no OpenAI-compatible server is running at {self.host}",
                hint="start it (e.g. `llama-server -m model.gguf --jinja --port 8080`) "
                "or fix llm.host",
            ) from exc


def _window_of(model: dict[str, Any]) -> int | None:
    meta = model.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    windows = (_serving_window_of(model), model.get("context_length"), meta.get("n_ctx_train"))
    return next((w for w in windows if isinstance(w, int) and w > 0), None)


def _serving_window_of(model: dict[str, Any]) -> int | None:
    """The window a /v1/models entry says the server runs the model with."""
    meta = model.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    windows = (model.get("max_model_len"), meta.get("n_ctx"))
    return next((w for w in windows if isinstance(w, int) and w > 0), None)


def _arguments(raw: str) -> Any:
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw  # the loop reports malformed arguments back to the model
