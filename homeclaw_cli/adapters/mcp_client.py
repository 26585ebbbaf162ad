"""The mcp SDK behind a small session object the MCP runner and `plugin health` use.

The SDK's Client is an async context manager whose task groups must be entered and left
by the same task, while homeclaw calls a plugin from whatever task the chat loop is in.
So each session runs in a worker task that owns the Client and starts one task per call
it is sent (calls run concurrently); callers only await futures. One session serves every
call of a PluginCaller, and a session whose server died is replaced on the next call.

Errors come out as McpUnavailable (cannot connect, or the connection dropped) with the
server's last stderr lines, McpToolError (the server refused the call), or TimeoutError.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from homeclaw_cli.core.manifest import McpConfig

CONNECTION_CLOSED = -32000
CONNECT_TIMEOUT_SEC = 30.0
STDERR_TAIL_CHARS = 2000


class McpUnavailable(Exception):
    """The server could not be started or reached, or its connection dropped."""


class McpToolError(Exception):
    """The server answered a call with a protocol error (unknown tool, bad arguments)."""


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    # The server's own hints (MCP tool annotations); None when it gave none.
    read_only: bool | None = None
    destructive: bool | None = None


@dataclass(frozen=True)
class McpCallOutput:
    text: str
    structured: Any
    is_error: bool


@dataclass(frozen=True)
class McpLaunch:
    """How to reach one server: a resolved command for stdio, a URL otherwise."""

    transport: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: Path | None = None
    url: str | None = None

    @classmethod
    def from_config(
        cls,
        config: McpConfig,
        *,
        command: str | None,
        args: list[str],
        env: dict[str, str],
        cwd: Path | None,
    ) -> McpLaunch:
        return cls(
            config.transport, command, tuple(args), tuple(sorted(env.items())), cwd, config.url
        )


_Job = tuple[Callable[[Any], Awaitable[Any]], "asyncio.Future[Any]"]


class McpSession:
    """One live connection to an MCP server, usable from any task of one event loop."""

    def __init__(self, launch: McpLaunch, label: str) -> None:
        self.launch = launch
        self.label = label
        self.tools: list[McpTool] = []
        self._queue: asyncio.Queue[_Job | BaseException | None] = asyncio.Queue()
        self._inflight: set[asyncio.Future[Any]] = set()
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task[None] | None = None
        self._errlog: IO[str] | None = None
        self._dead: str | None = None

    @property
    def alive(self) -> bool:
        return self._dead is None and self._task is not None and not self._task.done()

    async def start(self, timeout: float = CONNECT_TIMEOUT_SEC) -> None:
        """Connect and list the server's tools; McpUnavailable when that fails."""
        self._task = asyncio.create_task(self._worker(), name=f"mcp:{self.label}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        except McpUnavailable:
            await self.aclose()
            raise
        except TimeoutError:
            note = self._stderr_note()
            await self._abort()  # it never read its queue, so it cannot be asked to stop
            raise McpUnavailable(
                f"{self.label}: the MCP server did not complete its handshake within "
                f"{timeout:g} s{note}"
            ) from None
        except asyncio.CancelledError:  # Ctrl-C while the server starts: stop it now
            await self._abort()
            raise

    async def call_tool(
        self, name: str, arguments: dict[str, Any], timeout: float
    ) -> McpCallOutput:
        async def job(client: Any) -> McpCallOutput:
            import anyio

            with anyio.fail_after(timeout):
                result = await client.call_tool(name, arguments)
            text = content_text(result.content)
            return McpCallOutput(text, result.structured_content, result.is_error)

        return await self._submit(job)  # type: ignore[no-any-return]

    async def _submit(self, job: Callable[[Any], Awaitable[Any]]) -> Any:
        if not self.alive:
            raise McpUnavailable(f"{self.label}: {self._dead or 'the session is closed'}")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight.add(future)
        try:
            await self._queue.put((job, future))
            return await future
        finally:
            self._inflight.discard(future)

    async def _worker(self) -> None:
        from mcp import Client

        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        tasks: set[asyncio.Task[None]] = set()
        try:
            async with Client(self._transport(), raise_exceptions=False) as client:
                listing = await client.list_tools()
                self.tools = [_tool(t) for t in listing.tools]
                self._ready.set_result(None)
                # Calls run concurrently, so one slow tool does not hold up the others.
                while (item := await self._queue.get()) is not None:
                    if isinstance(item, BaseException):
                        raise item  # a call found the connection gone
                    task = asyncio.create_task(self._run_job(client, *item))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                for task in list(tasks):
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        except BaseException as exc:
            reason = self._describe(exc)
            self._dead = reason
            error = McpUnavailable(f"{self.label}: {reason}")
            if not self._ready.done():
                self._ready.set_exception(error)
            for task in list(tasks):
                task.cancel()
            self._fail_inflight(error)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._dead = self._dead or "the session is closed"
            self._fail_inflight(McpUnavailable(f"{self.label}: the session is closed"))

    async def _run_job(
        self, client: Any, job: Callable[[Any], Awaitable[Any]], future: asyncio.Future[Any]
    ) -> None:
        from mcp.shared.exceptions import MCPError

        this = asyncio.current_task()
        if this is not None:  # the caller gave up (Ctrl-C): stop waiting for the server too
            future.add_done_callback(lambda done: this.cancel() if done.cancelled() else None)
        try:
            value = await job(client)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                self._queue.put_nowait(exc)  # the worker ends the session and fails the calls
                return
            _settle(future, exc=McpToolError(str(exc.message or exc)))
        except TimeoutError as exc:
            _settle(future, exc=exc)
        except Exception as exc:  # transport trouble: end the session, restart on next call
            self._queue.put_nowait(exc)
        else:
            _settle(future, value=value)

    def _transport(self) -> Any:
        launch = self.launch
        if launch.transport == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            assert launch.command is not None
            params = StdioServerParameters(
                command=launch.command,
                args=list(launch.args),
                env=dict(launch.env) or None,
                cwd=launch.cwd,
            )
            return stdio_client(params, errlog=self._errlog)  # type: ignore[arg-type]
        assert launch.url is not None
        if launch.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(launch.url)
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(launch.url)

    def _describe(self, exc: BaseException) -> str:
        leaf = _leaf(exc)
        where = (
            f"MCP server `{self.launch.command}`"
            if self.launch.transport == "stdio"
            else f"MCP server at {self.launch.url}"
        )
        if isinstance(leaf, asyncio.CancelledError):
            return "the session was closed"
        text = getattr(leaf, "message", None) or str(leaf) or type(leaf).__name__
        if "Connection closed" in text or isinstance(leaf, EOFError):
            return f"the {where} closed the connection (it exited?){self._stderr_note()}"
        if (
            isinstance(leaf, OSError)
            or "connect" in type(leaf).__name__.lower()
            or "connect" in text.lower()
        ):
            return f"cannot reach the {where}: {text}{self._stderr_note()}"
        return f"the {where} failed: {type(leaf).__name__}: {text}{self._stderr_note()}"

    def _stderr_note(self) -> str:
        if self._errlog is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._errlog.flush()
            self._errlog.seek(0)
            tail = self._errlog.read()[-STDERR_TAIL_CHARS:].strip()
            if tail:
                return "; stderr: " + " | ".join(tail.splitlines()[-4:])
        return ""

    def _fail_inflight(self, error: Exception) -> None:
        for future in list(self._inflight):
            _settle(future, exc=error)

    async def _abort(self) -> None:
        """End the worker (and with it the server) at once, without a goodbye."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        if self._ready.done() and not self._ready.cancelled():
            self._ready.exception()  # mark it retrieved, or asyncio reports it on collection
        await self.aclose()

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            await self._queue.put(None)
            try:
                await asyncio.wait_for(asyncio.shield(task), 10)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None
        self._dead = self._dead or "the session is closed"


def _settle(
    future: asyncio.Future[Any], *, value: Any = None, exc: BaseException | None = None
) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)


def content_text(content: list[Any]) -> str:
    """A tool result's parts as text: text parts and embedded text resources as they are,
    a one-line note for each part without text (image, audio, binary resource, link), so a
    result of only those is neither an empty answer nor a dump of base64."""
    return "\n".join(_part_text(part) for part in content)


def _part_text(part: Any) -> str:
    import base64
    import binascii

    from mcp_types import EmbeddedResource, ResourceLink, TextResourceContents

    if isinstance(part, ResourceLink):
        return f"[resource link: {part.name} {part.uri}]"
    if isinstance(part, EmbeddedResource):
        body = part.resource
        if isinstance(body, TextResourceContents):
            return body.text
        kind, data, mime = f"resource {body.uri}", body.blob, body.mime_type
    elif hasattr(part, "text"):
        return str(part.text)
    else:
        kind, data, mime = part.type, getattr(part, "data", ""), getattr(part, "mime_type", None)
    try:
        size = f", {len(base64.b64decode(data))} bytes"
    except (binascii.Error, TypeError, ValueError):
        size = ""
    return f"[{mime or 'unknown'} {kind}{size}]"


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _tool(tool: Any) -> McpTool:
    hints = tool.annotations
    return McpTool(
        tool.name,
        tool.description or "",
        dict(tool.input_schema or {}),
        read_only=getattr(hints, "read_only_hint", None),
        destructive=getattr(hints, "destructive_hint", None),
    )
