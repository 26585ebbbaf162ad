"""What one chat turn did, step by step: retrieval, prompt, model rounds, tool calls.

Each step is its own type; `to_json` gives the shape `--json`, the conversation log and the
tests read (`kind`, `seconds`, then the step's own keys), so keep those keys stable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

CallSource = Literal["native", "content", "json"]  # structured calls, JSON in text, format mode


def _head(kind: str, seconds: float) -> dict[str, Any]:
    return {"kind": kind, "seconds": round(seconds, 6)}


@dataclass(frozen=True)
class HitSummary:
    """One retrieved plugin or skill as the trace shows it."""

    id: str
    score: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "score": round(self.score, 4), "reason": self.reason}


@dataclass
class RetrieveStep:
    """Plugins and skills retrieved for the message (and the query used)."""

    kind: ClassVar[str] = "retrieve"
    seconds: float
    query: str
    plugins: list[HitSummary]
    skills: list[HitSummary]
    fallback: bool

    def to_json(self) -> dict[str, Any]:
        return {
            **_head(self.kind, self.seconds),
            "query": self.query,
            "plugins": [h.to_json() for h in self.plugins],
            "skills": [h.to_json() for h in self.skills],
            "fallback": self.fallback,
        }


@dataclass
class PromptStep:
    """The system prompt's size, the tools offered and the history that fit."""

    kind: ClassVar[str] = "prompt"
    seconds: float
    system_tokens: int
    tool_tokens: int
    tools: list[str]
    history_messages: int
    history_dropped: int

    def to_json(self) -> dict[str, Any]:
        return {
            **_head(self.kind, self.seconds),
            "system_tokens": self.system_tokens,
            "tool_tokens": self.tool_tokens,
            "tools": self.tools,
            "history_messages": self.history_messages,
            "history_dropped": self.history_dropped,
        }


@dataclass
class LlmStep:
    """One model call: token counts and the tools it called, if any."""

    kind: ClassVar[str] = "llm"
    seconds: float
    round: int
    prompt_tokens: int | None
    eval_tokens: int | None
    tool_calls: list[str] = field(default_factory=list)
    call_source: CallSource | None = None  # None when the model answered

    def to_json(self) -> dict[str, Any]:
        return {
            **_head(self.kind, self.seconds),
            "round": self.round,
            "prompt_tokens": self.prompt_tokens,
            "eval_tokens": self.eval_tokens,
            "tool_calls": self.tool_calls,
            "call_source": self.call_source,
        }


@dataclass
class ToolStep:
    """One tool call and what came back."""

    kind: ClassVar[str] = "tool"
    seconds: float
    name: str
    arguments: Any  # as the model sent them (JSON), checked by the tool registry
    ok: bool
    output: str  # the first 500 characters
    approval: str | None = None  # how a non-read call was allowed or refused

    def to_json(self) -> dict[str, Any]:
        data = {
            **_head(self.kind, self.seconds),
            "name": self.name,
            "arguments": self.arguments,
            "ok": self.ok,
            "output": self.output,
        }
        if self.approval is not None:
            data["approval"] = self.approval
        return data


@dataclass
class PostProcessStep:
    """The extra model call that rewrote a plugin's result."""

    kind: ClassVar[str] = "post_process"
    seconds: float
    streamed: bool = True

    def to_json(self) -> dict[str, Any]:
        return {**_head(self.kind, self.seconds), "streamed": self.streamed}


TraceStep = RetrieveStep | PromptStep | LlmStep | ToolStep | PostProcessStep
