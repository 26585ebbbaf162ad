"""The agent's LLM over Ollama's native /api/chat, through the official `ollama` client.

Every failure of the client is translated here, once, into a HomeclawError with the command
that fixes it: nothing listening -> `ollama serve`; unknown model -> `ollama pull MODEL`.
(With nothing listening, non-streaming calls raise the built-in ConnectionError while
streaming ones raise httpx.ConnectError when iterated; both land in `_translate`.)
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing, asynccontextmanager
from typing import Any, cast

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


def _tools_from_show(info: dict[str, Any]) -> bool:
    capabilities = info.get("capabilities")
    if capabilities is not None:
        return "tools" in capabilities
    return ".Tools" in str(info.get("template", ""))


def _context_from_show(info: dict[str, Any]) -> int | None:
    for key, value in (info.get("modelinfo") or info.get("model_info") or {}).items():
        if key.endswith(".context_length") and isinstance(value, int) and value > 0:
            return value
    return None


class ContextTooLongError(HomeclawError):
    """The prompt does not fit the model's context window."""


class OllamaLLM:
    """`LLM` protocol implementation for Ollama."""

    def __init__(
        self,
        host: str,
        model: str,
        *,
        timeout: float = 120.0,
        num_ctx: int | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        headers: dict[str, str] | None = None,
        retries: int = 0,
        connect_timeout: float | None = None,
    ) -> None:
        import ollama

        self.host = host
        self.num_ctx = num_ctx
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._model = model
        self.timeout = timeout
        # A remote server (llm.host) may sit behind a proxy that wants headers; connection
        # failures are retried `retries` times, each connect waiting at most connect_timeout.
        self._headers = headers or {}
        self._timeout = httpx.Timeout(timeout, connect=connect_timeout or timeout)
        self._retries = retries
        self._client = ollama.AsyncClient(
            host=host,
            timeout=self._timeout,
            headers=self._headers,
            transport=httpx.AsyncHTTPTransport(retries=retries),
        )
        self._show: dict[str, Any] | None = None

    @property
    def model(self) -> str:
        return self._model

    @property
    def provider(self) -> str:
        return "ollama"

    async def version(self) -> str:
        """The server's version (checks that Ollama is running)."""
        transport = httpx.AsyncHTTPTransport(retries=self._retries)
        async with (
            self._errors(),
            httpx.AsyncClient(
                transport=transport, timeout=self._timeout, headers=self._headers
            ) as client,
        ):
            response = await client.get(self.host.rstrip("/") + "/api/version")
            response.raise_for_status()
            return str(response.json().get("version", "?"))

    async def list_models(self) -> list[str]:
        async with self._errors():
            listed = await self._client.list()
        return [str(m.model) for m in listed.models]

    async def models(self) -> list[ModelInfo]:
        """/api/tags, then /api/show of each model (at once) for its capabilities and window."""
        import asyncio

        async with self._errors():
            listed = await self._client.list()
            names = [str(m.model) for m in listed.models]
            shown = await asyncio.gather(
                *(self._client.show(name) for name in names), return_exceptions=True
            )
        out = []
        for entry, show in zip(listed.models, shown, strict=True):
            info = {} if isinstance(show, BaseException) else show.model_dump(mode="json")
            details = entry.details
            words = (
                [details.family, details.parameter_size, details.quantization_level]
                if details
                else []
            )
            out.append(
                ModelInfo(
                    str(entry.model),
                    tools=_tools_from_show(info) if info else None,
                    context_length=_context_from_show(info),
                    size=entry.size,
                    details=" ".join(str(w) for w in words if w),
                )
            )
        return out

    async def show(self) -> dict[str, Any]:
        """/api/show for the model (capabilities, details, context length); cached."""
        if self._show is None:
            async with self._errors():
                response = await self._client.show(self._model)
            self._show = response.model_dump(mode="json", exclude_none=True)
        return self._show

    async def supports_tools(self) -> bool:
        """True when /api/show lists the `tools` capability (or the template uses .Tools)."""
        return _tools_from_show(await self.show())

    async def context_window(self) -> int | None:
        """The model's window from /api/show (model_info `<arch>.context_length`)."""
        return _context_from_show(await self.show())

    async def serving_window(self) -> int | None:
        """Not reported: /api/show gives what the model could take, while Ollama runs it with
        num_ctx (its default when homeclaw sends none)."""
        return None

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: list[JsonSchema] | None = None,
        format: JsonSchema | None = None,
        on_text: TextSink | None = None,
        max_tokens: int | None = None,
    ) -> LLMReply:
        """Stream one /api/chat reply, feeding content pieces to `on_text` as they arrive."""
        started = time.perf_counter()
        content: list[str] = []
        calls: list[LLMToolCall] = []
        prompt_tokens: int | None = None
        eval_tokens: int | None = None
        async with self._errors():
            stream = await self._client.chat(
                model=self._model,
                messages=messages,
                tools=tools or None,
                format=format,
                stream=True,
                options=self._options(max_tokens),
            )
            # closed here when on_text raises: left to the event loop, its close fails loudly
            # (ollama types the async generator it returns as an AsyncIterator)
            async with aclosing(cast("AsyncGenerator[Any, None]", stream)):
                async for chunk in stream:
                    message = chunk.message
                    if message.content:
                        content.append(message.content)
                        if on_text is not None:
                            on_text(message.content)
                    for call in message.tool_calls or []:
                        calls.append(LLMToolCall(call.function.name, dict(call.function.arguments)))
                    if chunk.done:
                        prompt_tokens = chunk.prompt_eval_count
                        eval_tokens = chunk.eval_count
        return LLMReply(
            "".join(content),
            calls,
            prompt_tokens=prompt_tokens,
            eval_tokens=eval_tokens,
            seconds=time.perf_counter() - started,
        )

    def _options(self, max_tokens: int | None = None) -> dict[str, Any] | None:
        options: dict[str, Any] = {}
        if self.num_ctx:
            options["num_ctx"] = self.num_ctx
        if self.temperature is not None:
            options["temperature"] = self.temperature
        cap = tighter(self.max_tokens, max_tokens)
        if cap is not None:
            options["num_predict"] = cap
        return options or None

    async def aclose(self) -> None:
        client = getattr(self._client, "_client", None)
        if isinstance(client, httpx.AsyncClient):
            await client.aclose()

    @asynccontextmanager
    async def _errors(self) -> AsyncIterator[None]:
        try:
            yield
        except HomeclawError:
            raise
        except Exception as exc:
            raise self._translate(exc) from exc

    def _translate(self, exc: Exception) -> HomeclawError:
        import ollama

        if isinstance(exc, httpx.TimeoutException):
            return UnavailableError(
                f"Ollama at {self.host} did not answer within {self.timeout:g}s",
                hint="a first call loads the model and can be slow; raise llm.timeout_sec",
            )
        if isinstance(exc, ConnectionError | httpx.ConnectError | httpx.NetworkError):
            local = any(name in self.host for name in ("127.0.0.1", "localhost", "[::1]"))
            return UnavailableError(
                f"Ollama is not running at {self.host}",
                hint="start it with `ollama serve`"
                if local
                else "start `OLLAMA_HOST=0.0.0.0 ollama serve` on that host, or fix llm.host",
            )
        if isinstance(exc, httpx.HTTPStatusError | ollama.ResponseError) and _status(exc) in (
            401,
            403,
        ):
            return ConfigError(
                f"the server at {self.host} refused the request (HTTP {_status(exc)})",
                hint="a reverse proxy in front of Ollama wants credentials: set llm.headers "
                "(e.g. Authorization: Bearer ${TOKEN}) or llm.api_key_env",
            )
        if isinstance(exc, httpx.HTTPStatusError | ollama.ResponseError) and _web_page(exc):
            return UnavailableError(
                f"the server at {self.host} is not Ollama: it answered with a web page "
                f"(HTTP {_status(exc)})",
                hint="fix llm.host; for an OpenAI-compatible server (llama.cpp, vLLM, "
                "LM Studio) set llm.provider: openai",
            )
        if isinstance(exc, ollama.ResponseError):
            text = str(exc.error)
            lowered = text.lower()
            if exc.status_code == 404 or "not found" in lowered:
                return NotFoundError(
                    f"model {self._model} is not pulled", hint=f"run `ollama pull {self._model}`"
                )
            if "does not support tools" in lowered:
                return UnavailableError(
                    f"model {self._model} does not support tool calls",
                    hint="set llm.tool_mode: json, or pick a model with tools (e.g. qwen2.5)",
                )
            if "context" in lowered and ("length" in lowered or "exceed" in lowered):
                return ContextTooLongError(
                    f"the conversation no longer fits model {self._model}'s context window",
                    hint="/clear the conversation, or lower plugins.max_in_prompt",
                )
            return UnavailableError(f"Ollama error: {text} (HTTP {exc.status_code})")
        return UnavailableError(f"Ollama call failed: {exc}")


def _web_page(exc: Exception) -> bool:
    """Whether an error's body is HTML: Ollama answers errors in JSON, web servers do not."""
    return is_web_page(exc.response.text if isinstance(exc, httpx.HTTPStatusError) else str(exc))


def _status(exc: Exception) -> int | None:
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None
