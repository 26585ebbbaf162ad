"""What one chat turn did, step by step: retrieval, prompt, model rounds, tool calls.

Each step is its own type; `to_json` gives the shape `--json`, the conversation log and the
tests read (`kind`, `seconds`, then the step's own keys), so keep those keys stable.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

# structured calls, JSON in text, format mode, the constrained decision (core/turn_decide.py)
CallSource = Literal["native", "content", "json", "decided"]
# the constrained decision's own model calls, made within a round: the tool-or-answer
# question, the picked tool's arguments, a plain answer without tools, a question for a value
# the user did not give (core/turn_ask.py)
DecisionCall = Literal["pick", "arguments", "answer", "ask"]


def _step_json(step: TraceStep) -> dict[str, Any]:
    """`kind`, `seconds`, then the step's fields in declaration order (nested hits as JSON);
    fields named in `omit_when_none` are left out while unset."""
    data: dict[str, Any] = {"kind": step.kind, "seconds": round(step.seconds, 6)}
    for spec in fields(step):
        value = getattr(step, spec.name)
        if spec.name == "seconds" or (value is None and spec.name in step.omit_when_none):
            continue
        if isinstance(value, list):
            value = [v.to_json() if isinstance(v, HitSummary) else v for v in value]
        data[spec.name] = value
    return data


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
    omit_when_none: ClassVar[tuple[str, ...]] = ()
    seconds: float
    query: str
    plugins: list[HitSummary]
    skills: list[HitSummary]
    fallback: bool

    def to_json(self) -> dict[str, Any]:
        return _step_json(self)


@dataclass
class PromptStep:
    """The system prompt's size, the tools offered and the history that fit."""

    kind: ClassVar[str] = "prompt"
    omit_when_none: ClassVar[tuple[str, ...]] = ()
    seconds: float
    system_tokens: int
    tool_tokens: int
    tools: list[str]
    history_messages: int
    history_dropped: int

    def to_json(self) -> dict[str, Any]:
        return _step_json(self)


@dataclass
class LlmStep:
    """One model call: token counts and the tools it called, if any. A round's own call has
    no `decision`; the decision calls that follow it within the round name theirs."""

    kind: ClassVar[str] = "llm"
    omit_when_none: ClassVar[tuple[str, ...]] = ("decision",)
    seconds: float
    round: int
    prompt_tokens: int | None
    eval_tokens: int | None
    tool_calls: list[str] = field(default_factory=list)
    call_source: CallSource | None = None  # None when the model answered
    decision: DecisionCall | None = None

    def to_json(self) -> dict[str, Any]:
        return _step_json(self)


@dataclass
class ToolStep:
    """One tool call and what came back."""

    kind: ClassVar[str] = "tool"
    omit_when_none: ClassVar[tuple[str, ...]] = ("approval",)
    seconds: float
    name: str
    arguments: Any  # as the model sent them (JSON), checked by the tool registry
    ok: bool
    output: str  # the first 500 characters
    approval: str | None = None  # how a non-read call was allowed or refused

    def to_json(self) -> dict[str, Any]:
        return _step_json(self)


@dataclass
class PostProcessStep:
    """The extra model call that rewrote a plugin's result."""

    kind: ClassVar[str] = "post_process"
    omit_when_none: ClassVar[tuple[str, ...]] = ()
    seconds: float
    streamed: bool = True

    def to_json(self) -> dict[str, Any]:
        return _step_json(self)


@dataclass
class SkippedCallStep:
    """A call the turn did not run: its values came from nowhere in the conversation
    (core/grounding.py), so the model answered without tools instead, or the user was asked
    for the parameter `asked` (core/turn_ask.py)."""

    kind: ClassVar[str] = "skipped_call"
    omit_when_none: ClassVar[tuple[str, ...]] = ("asked",)
    seconds: float
    name: str
    arguments: Any
    reason: str
    asked: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _step_json(self)


TraceStep = RetrieveStep | PromptStep | LlmStep | ToolStep | PostProcessStep | SkippedCallStep
