"""What one chat turn produced: its answer, outcome, prompt, retrieval and trace (`chat --json`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from homeclaw_cli.core.agent_prompt import SystemPrompt
from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.retrieval import RetrievalResult
from homeclaw_cli.core.trace import HitSummary, ToolStep, TraceStep

# The model did not answer; a plugin or skill failed; the first call was not approved.
Failure = Literal["model", "tool", "approval"]


@dataclass
class TurnResult:
    """One turn's answer, outcome, prompt, retrieval and trace (what `--json` prints)."""

    message: str
    answer: str = ""
    ok: bool = True
    error: str | None = None
    failure: Failure | None = None  # why `error` ended the turn
    steps: list[TraceStep] = field(default_factory=list)
    prompt: SystemPrompt | None = None
    tool_tokens: int = 0
    plugin_retrieval: RetrievalResult | None = None
    skill_retrieval: RetrievalResult | None = None
    tools_offered: list[str] = field(default_factory=list)
    held_back: dict[str, str] = field(default_factory=dict)  # retrieved, not offered: why
    timings: dict[str, float] = field(default_factory=dict)
    native_tools: bool = True
    rounds: int = 0
    exchange: list[ChatMessage] = field(default_factory=list)  # what joins the history
    follow_up: bool = False  # retrieved with the previous request (core/follow_up.py)

    @property
    def prompt_tokens(self) -> int:
        return (self.prompt.tokens if self.prompt else 0) + self.tool_tokens

    def tool_steps(self) -> list[ToolStep]:
        """The tool calls of the turn, in order (the conversation log keeps them)."""
        return [s for s in self.steps if isinstance(s, ToolStep)]

    def to_json(self) -> dict[str, Any]:
        """The `chat --json` shape."""
        return {
            "answer": self.answer,
            "ok": self.ok,
            "error": self.error,
            "failure": self.failure,
            "rounds": self.rounds,
            "native_tools": self.native_tools,
            "prompt_tokens": self.prompt_tokens,
            "tools_offered": self.tools_offered,
            "held_back": [{"id": k, "reason": v} for k, v in self.held_back.items()],
            "retrieved": {
                "plugins": [h.to_json() for h in hit_summaries(self.plugin_retrieval)],
                "skills": [h.to_json() for h in hit_summaries(self.skill_retrieval)],
            },
            "trace": [s.to_json() for s in self.steps],
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
        }


def hit_summaries(result: RetrievalResult | None) -> list[HitSummary]:
    """The kept hits of a retrieval as the trace shows them."""
    if result is None:
        return []
    return [HitSummary(h.id, h.score, h.reason) for h in result.hits]
