"""The `--trace` / `/trace` view of one chat turn: retrieval, prompt size, model rounds, tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from homeclaw_cli.core.trace import (
    HitSummary,
    LlmStep,
    PostProcessStep,
    PromptStep,
    RetrieveStep,
    SkippedCallStep,
    ToolStep,
    TraceStep,
)

if TYPE_CHECKING:  # core.turn_result pulls in the prompt and manifest models: not for --help
    from homeclaw_cli.core.turn_result import TurnResult


def trace_lines(result: TurnResult) -> list[str]:
    """Human-readable trace: retrieval with scores, tool calls, timings, prompt size."""
    first = next((s for s in result.steps if isinstance(s, RetrieveStep)), None)
    lines: list[str] = []
    for step in result.steps:
        if isinstance(step, RetrieveStep) and step is not first:  # an open need (llm.each_need)
            lines.append(f"part asked on its own: {step.query!r}")
        lines.extend(step_lines(step))
        if step is first:
            lines += [f"not offered: {pid}, {why}" for pid, why in result.held_back.items()]
    t = result.timings
    lines.append(
        f"total {t.get('total', 0) * 1000:.0f} ms (model {t.get('llm', 0) * 1000:.0f}, "
        f"tools {t.get('tools', 0) * 1000:.0f}, retrieval {t.get('retrieve', 0) * 1000:.0f}, "
        f"overhead {t.get('overhead', 0) * 1000:.1f})"
    )
    return lines


def step_lines(step: TraceStep) -> list[str]:
    """The line (two for a failed tool call) that shows one step."""
    ms = f"{step.seconds * 1000:.0f} ms"
    match step:
        case RetrieveStep():
            skills = _hits(step.skills)
            return [
                f"retrieve ({ms}): plugins {_hits(step.plugins) or 'none'}"
                + (f"; skills {skills}" if skills else "")
            ]
        case PromptStep():
            return [
                f"prompt: {step.system_tokens} system + {step.tool_tokens} tool tokens, "
                f"{len(step.tools)} tools"
            ]
        case LlmStep() if step.decision is not None:
            return [f"  decision call in round {step.round} ({ms}): {_decided(step)}"]
        case LlmStep():
            calls = ", ".join(step.tool_calls) or "answer"
            source = f" [{step.call_source}]" if step.call_source else ""
            return [f"model round {step.round} ({ms}): {calls}{source}"]
        case ToolStep():
            mark = "ok" if step.ok else "error"
            args = json.dumps(step.arguments, ensure_ascii=False, default=str)
            line = f"tool {step.name}({args}) -> {mark} ({ms})"
            return [line] if step.ok else [line, f"  {step.output[:200]}"]
        case PostProcessStep():
            return [f"post-process ({ms})"]
        case SkippedCallStep():
            args = json.dumps(step.arguments, ensure_ascii=False, default=str)
            return [f"tool {step.name}({args}) -> not run: {step.reason}"]


def _hits(hits: list[HitSummary]) -> str:
    return ", ".join(f"{h.id} {h.score:.2f}" for h in hits)


def _decided(step: LlmStep) -> str:
    """What one of the constrained decision's calls came to."""
    calls = ", ".join(step.tool_calls)
    match step.decision:
        case "pick":
            return f"picked {calls or 'answer'}"
        case "arguments":
            return f"arguments for {calls}" if calls else "arguments not usable"
        case "ask":
            return "asked the user for a value the call needs"
        case _:
            return "answered without tools"
