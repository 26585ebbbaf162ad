"""The protocols core/ needs from the outside world, and the data that crosses them.

The chat model: one `LLM.chat` call takes Ollama-style messages and tool schemas and returns an
`LLMReply`. adapters/llm_ollama.py and adapters/llm_openai.py implement it; tests use fakes.
The retriever: plugins and skills for a query, as one RetrievalResult. The plugin caller and
the skills the turn runs (app/chat.py and runtime/caller.py implement them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Required, TypedDict, runtime_checkable

from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult

if TYPE_CHECKING:
    from homeclaw_cli.core.tool_registry import Tool

TextSink = Callable[[str], None]
# What a turn is doing, for a spinner: "thinking" (waiting for the model), "running NAME" (a
# tool), None (neither: text is streaming, the user is being asked, or the turn is over).
StatusSink = Callable[[str | None], None]
JsonSchema = dict[str, Any]  # a JSON schema or an OpenAI-style tool definition: untyped JSON


class ToolCallFunction(TypedDict):
    name: str
    arguments: dict[str, Any]  # the tool's arguments, as the model sent them (JSON)


class MessageToolCall(TypedDict):
    function: ToolCallFunction


class ChatMessage(TypedDict, total=False):
    """One message of the conversation, in Ollama's /api/chat shape."""

    role: Required[str]  # system | user | assistant | tool
    content: Required[str]
    tool_calls: list[MessageToolCall]  # assistant messages that call tools
    tool_name: str  # tool messages: which tool produced the content


@dataclass
class LLMToolCall:
    name: str
    arguments: Any  # usually a dict; models sometimes send a JSON string or junk


@dataclass
class LLMReply:
    content: str
    tool_calls: list[LLMToolCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    eval_tokens: int | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class ModelInfo:
    """One model a server offers; None where the server does not say."""

    name: str
    tools: bool | None  # supports structured tool calls
    context_length: int | None = None  # the model's window, in tokens
    size: int | None = None  # bytes on disk
    details: str = ""  # family / parameter size / quantization, as the server words it


@runtime_checkable
class ModelServer(Protocol):
    """What an LLM adapter says about its server: the models and the model's window."""

    async def version(self) -> str:
        """The server's version (a cheap call that checks it is up)."""
        ...

    async def models(self) -> list[ModelInfo]:
        """Every model the server offers (with what it reports about each)."""
        ...

    async def context_window(self) -> int | None:
        """The configured model's context window in tokens, None when unknown."""
        ...

    async def serving_window(self) -> int | None:
        """The window the server runs the model with, when it says so (llama.cpp, vLLM);
        None when it does not, or says only what the model could take (Ollama)."""
        ...


class LLM(Protocol):
    """A chat model behind a server (Ollama or an OpenAI-compatible one)."""

    @property
    def model(self) -> str: ...

    async def supports_tools(self) -> bool:
        """Structured tool calls (True) or only text replies (the JSON `format` fallback)."""
        ...

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: list[JsonSchema] | None = None,
        format: JsonSchema | None = None,
        on_text: TextSink | None = None,
        max_tokens: int | None = None,
    ) -> LLMReply:
        """One streamed reply; content pieces go to `on_text` as they arrive. `max_tokens`
        caps this reply below the configured cap (llm.max_reply_tokens), never above it."""
        ...


def tighter(configured: int | None, wanted: int | None) -> int | None:
    """The output cap of one reply: the smaller of the configured one and the request's."""
    caps = [c for c in (configured, wanted) if c is not None]
    return min(caps) if caps else None


class Retriever(Protocol):
    """Plugins and skills for a query: the index (app/retrieval.RetrievalService), the
    keyword fallback (app/keyword_fallback.KeywordRetriever) or both
    (app/resilient_retrieval.ResilientRetriever)."""

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult: ...
    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult: ...


class ResultLike(Protocol):
    @property
    def success(self) -> bool: ...
    @property
    def text(self) -> str: ...
    @property
    def error(self) -> str | None: ...


class OutcomeLike(Protocol):
    @property
    def result(self) -> ResultLike: ...
    @property
    def post_process(self) -> bool: ...
    @property
    def post_process_prompt(self) -> str | None: ...


class PluginCallerLike(Protocol):
    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> OutcomeLike: ...


class SkillRunner(Protocol):
    """Skills for the loop: their prompt block and their tools (read_skill, run_skill).

    Implemented over catalog/skill_prompt + app/skill_tools in app/chat.py.
    """

    def prompt_block(self, hits: Sequence[RetrievalHit]) -> str:
        """The <available_skills> block for the retrieved hits ("" when none is eligible)."""
        ...

    def tools(self) -> list[Tool]:
        """The skill tools chat offers, built by app/skill_tools.skill_tools."""
        ...
