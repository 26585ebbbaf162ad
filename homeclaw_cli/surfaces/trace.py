"""The `--trace` / `/trace` view of one chat turn: retrieval, prompt size, model rounds, tools."""

from __future__ import annotations

import json

from homeclaw_cli.core.agent import TurnResult


def trace_lines(result: TurnResult) -> list[str]:
    """Human-readable trace: retrieval with scores, tool calls, timings, prompt size."""
    lines = []
    for step in result.steps:
        d = step.detail
        ms = f"{step.seconds * 1000:.0f} ms"
        if step.kind == "retrieve":
            hits = ", ".join(f"{h['id']} {h['score']:.2f}" for h in d["plugins"]) or "none"
            skills = ", ".join(f"{h['id']} {h['score']:.2f}" for h in d["skills"])
            lines.append(
                f"retrieve ({ms}): plugins {hits}" + (f"; skills {skills}" if skills else "")
            )
        elif step.kind == "prompt":
            lines.append(
                f"prompt: {d['system_tokens']} system + {d['tool_tokens']} tool tokens, "
                f"{len(d['tools'])} tools"
            )
        elif step.kind == "llm":
            calls = ", ".join(d["tool_calls"]) or "answer"
            source = f" [{d['call_source']}]" if d.get("call_source") else ""
            lines.append(f"model round {d['round']} ({ms}): {calls}{source}")
        elif step.kind == "tool":
            mark = "ok" if d["ok"] else "error"
            args = json.dumps(d["arguments"], ensure_ascii=False, default=str)
            lines.append(f"tool {d['name']}({args}) -> {mark} ({ms})")
            if not d["ok"]:
                lines.append(f"  {d['output'][:200]}")
        elif step.kind == "post_process":
            lines.append(f"post-process ({ms})")
    t = result.timings
    lines.append(
        f"total {t.get('total', 0) * 1000:.0f} ms (model {t.get('llm', 0) * 1000:.0f}, "
        f"tools {t.get('tools', 0) * 1000:.0f}, retrieval {t.get('retrieve', 0) * 1000:.0f}, "
        f"overhead {t.get('overhead', 0) * 1000:.1f})"
    )
    return lines
