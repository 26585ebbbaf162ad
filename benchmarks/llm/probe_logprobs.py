"""Does the small model's tool-or-answer question carry a signal its pick hides? The pick
(homeclaw's decision, probe_decision.py) almost always names a tool; this reads the
probability the model gave `answer` at the first token of the picked value instead.

    python benchmarks/llm/probe_logprobs.py --host http://127.0.0.1:8391

Needs a running llama.cpp server (benchmarks/llm/server.py): OpenAI-style `logprobs` with
`top_logprobs`. Eighteen requests: probe_decision.py's ten plus eight more, among them a skill
offered as a choice ("largest planet in the solar system?" retrieves the disk-usage skill).
Prints P(answer) and the pick per request, then how each cut on P(answer) would split the two
groups. Figures: TURN.md.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import httpx
from probe_decision import CASES, TOOLS

SKILL = "skill:disk-usage"
DESCRIPTIONS = {
    **TOOLS,
    SKILL: "Summarize disk usage of a folder - total size, the largest files and subfolders.",
}
MORE_CASES = [  # (request, tools offered, whether a tool is needed)
    ("largest planet in the solar system?", [SKILL], False),
    ("whats the capital of australia", ["timezones__current_time"], False),
    ("who wrote hamlet", ["notes__search_notes"], False),
    ("tell me a joke", ["textkit__change-case"], False),
    ("what time is it in tokyo", ["timezones__current_time", "timezones__convert_time"], True),
    ("18% tip on $62.40", ["calculator__evaluate"], True),
    ("find my note about the wifi", ["notes__search_notes"], True),
    ("weather tomorrow in berlin", ["weather__fetch_weather"], True),
]
CUTS = (0.005, 0.01, 0.015, 0.02, 0.05)


def answer_probability(host: str, request: str, tools: list[str]) -> tuple[float, str]:
    """(P(`answer`) at the first token of the value, the value picked), greedy."""
    listing = "\n".join(f"- {t}: {DESCRIPTIONS[t]}" for t in tools)
    schema = {
        "type": "object",
        "properties": {"tool": {"type": "string", "enum": [*tools, "answer"]}},
        "required": ["tool"],
    }
    body = {
        "model": "probe",
        "temperature": 0,
        "logprobs": True,
        "top_logprobs": 10,
        "messages": [
            {
                "role": "system",
                "content": "Pick the tool that does what the user asks, or `answer` when no "
                f"tool is needed. Tools:\n{listing}",
            },
            {"role": "user", "content": request},
        ],
        "response_format": {"type": "json_schema", "json_schema": {"name": "d", "schema": schema}},
    }
    choice = httpx.post(f"{host}/v1/chat/completions", json=body, timeout=300).json()["choices"][0]
    picked = json.loads(choice["message"]["content"])["tool"]
    return _first_value_token_answer(choice["logprobs"]["content"]), picked


def _first_value_token_answer(tokens: list[dict[str, Any]]) -> float:
    """The summed probability of tokens that start `answer`, where the value begins."""
    text = ""
    for token in tokens:
        if text.replace(" ", "").endswith('"tool":"'):
            top = token.get("top_logprobs", [])
            return sum(
                math.exp(t["logprob"])
                for t in top
                if t["token"] and "answer".startswith(t["token"])
            )
        text += token["token"]
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="http://127.0.0.1:8391")
    args = parser.parse_args()
    rows = []
    for request, tools, needed in [*CASES, *MORE_CASES]:
        p_answer, picked = answer_probability(args.host, request, tools)
        rows.append((p_answer, needed))
        group = "tool  " if needed else "answer"
        print(f"{group} | P(answer) {p_answer:.3f} | picked {picked} | {request}", flush=True)
    answers = sum(not needed for _, needed in rows)
    for cut in CUTS:
        caught = sum(p >= cut and not needed for p, needed in rows)
        lost = sum(p >= cut and needed for p, needed in rows)
        print(
            f"P(answer) >= {cut}: {caught}/{answers} no-tool requests would answer, "
            f"{lost}/{len(rows) - answers} tool requests would lose their call"
        )


if __name__ == "__main__":
    main()
