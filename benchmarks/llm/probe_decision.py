"""How well can the small model tell "a tool is needed" from "answer yourself" in one
structured request? Four phrasings of that question on ten requests from tasks.yaml (five that
need no tool, five that need the tool offered), each with the tools retrieval offered them.

    python benchmarks/llm/probe_decision.py --host http://127.0.0.1:8391 [--checks]

Needs a running OpenAI-compatible server (benchmarks/llm/server.py). Prints one line per
request and, per phrasing, how many of the ten it got right. Figures: TURN.md.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import httpx

TOOLS = {
    "timezones__current_time": "Current time and date in a city or time zone.",
    "timezones__convert_time": "Convert a time from one city or zone to another.",
    "units__convert": "Convert a value between units of length, weight, volume, temperature, "
    "time, data.",
    "textkit__change-case": "Change the case of a text: upper, lower, title, camel, snake, kebab.",
    "calculator__evaluate": "Evaluate a math expression.",
    "notes__search_notes": "Search the user's notes.",
    "weather__fetch_weather": "Current weather for a city.",
}
CASES = [  # (request, tools offered, whether a tool is needed)
    (
        "how do u say good morning in spanish",
        ["timezones__current_time", "timezones__convert_time"],
        False,
    ),
    (
        "whats the capital of australia",
        ["timezones__current_time", "timezones__convert_time"],
        False,
    ),
    ("why is the sky blue? short answer", ["weather__fetch_weather", "notes__search_notes"], False),
    ("write a haiku about autumn", ["notes__search_notes", "weather__fetch_weather"], False),
    ("what is a python list comprehension", ["textkit__change-case", "notes__search_notes"], False),
    ("90 mins is how many hours", ["units__convert", "timezones__convert_time"], True),
    ("camelCase for user account id", ["textkit__change-case"], True),
    ("how much is 1234 times 5678", ["calculator__evaluate", "units__convert"], True),
    ("make this all caps: shout it out", ["textkit__change-case", "notes__search_notes"], True),
    ("time in new york rn?", ["timezones__current_time", "timezones__convert_time"], True),
]


def ask(host: str, system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
    """One request under a JSON schema (temperature 0.2, as homeclaw's routing calls)."""
    body = {
        "model": "probe",
        "temperature": 0.2,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "d", "schema": schema}},
    }
    reply = httpx.post(f"{host}/v1/chat/completions", json=body, timeout=300).json()
    result: dict[str, Any] = json.loads(reply["choices"][0]["message"]["content"])
    return result


def enum_of(key: str, values: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "string", "enum": values}},
        "required": [key],
    }


def verdicts(host: str, request: str, tools: list[str]) -> dict[str, bool]:
    """Per phrasing: True when it says a tool is needed."""
    listing = "\n".join(f"- {t}: {TOOLS[t]}" for t in tools)
    pick = ask(  # homeclaw's decision (core/turn_decide.py)
        host,
        "Pick the tool that does what the user asks, or `answer` when no tool is needed. "
        f"Tools:\n{listing}\n- answer: reply to the user yourself",
        request,
        enum_of("tool", [*tools, "answer"]),
    )["tool"]
    boolean = ask(
        host,
        "Decide whether the user's request needs one of these tools, or can be answered from "
        f"general knowledge. Tools:\n{listing}",
        request,
        {
            "type": "object",
            "properties": {"needs_tool": {"type": "boolean"}},
            "required": ["needs_tool"],
        },
    )["needs_tool"]
    can = ask(
        host,
        f"Can one of these tools do what the user asks? Tools:\n{listing}",
        request,
        enum_of("answer", ["yes", "no"]),
    )["answer"]
    answer_first = ask(
        host,
        "Pick `answer` when you can reply yourself (general knowledge, chat, writing, "
        "translation, explanations); pick a tool only when the user asks for what it does. "
        f"Options:\n- answer: reply yourself\n{listing}",
        request,
        enum_of("pick", ["answer", *tools]),
    )["pick"]
    return {
        "pick a tool or answer": pick != "answer",
        "needs a tool? (boolean)": bool(boolean),
        "can a tool do it? (yes/no)": can == "yes",
        "answer listed first": answer_first != "answer",
    }


def plain_answer(host: str, request: str) -> str:
    """The model's reply without tools (homeclaw's ANSWER_SYSTEM), capped at 120 tokens."""
    body = {
        "model": "probe",
        "temperature": 0.2,
        "max_tokens": 120,
        "messages": [
            {"role": "system", "content": "Answer the user's request yourself, briefly."},
            {"role": "user", "content": request},
        ],
    }
    reply = httpx.post(f"{host}/v1/chat/completions", json=body, timeout=300).json()
    return str(reply["choices"][0]["message"]["content"])


def checks(host: str, request: str, tools: list[str]) -> dict[str, bool]:
    """`--checks`: questions about the one tool the model called (the first offered), or
    about its own plain answer. Per phrasing: True when it says the tool is needed."""
    tool, what = tools[0], TOOLS[tools[0]]
    yes_no = enum_of("answer", ["yes", "no"])
    asks = ask(
        host,
        f"Tool `{tool}`: {what}\nDoes the user ask for what this tool does? Reply yes or no.",
        request,
        yes_no,
    )["answer"]
    about = ask(
        host, f"Is the user's message a request for this: {what} Reply yes or no.", request, yes_no
    )["answer"]
    reply = plain_answer(host, request)
    judged = ask(
        host,
        "You check an assistant's reply. Say `no` when the reply says it cannot do it, lacks "
        "live or real-time data, or guesses a result a tool should compute; otherwise `yes`.",
        f"User: {request}\nReply: {reply}\nDoes the reply give the user what they asked for?",
        yes_no,
    )["answer"]
    better = ask(
        host,
        f"The user could get a tool result instead: `{tool}`: {what}",
        f"User: {request}\nReply without the tool: {reply}\n"
        "Which is better for the user: the reply, or the tool?",
        enum_of("better", ["reply", "tool"]),
    )["better"]
    return {
        "does the user ask for this tool? (yes/no)": asks == "yes",
        "is the message a request for this? (yes/no)": about == "yes",
        "the plain answer judged (yes/no)": judged == "no",
        "plain answer or tool, compared": better == "tool",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="http://127.0.0.1:8391")
    parser.add_argument(
        "--checks", action="store_true", help="the per-tool and plain-answer checks instead"
    )
    args = parser.parse_args()
    right: dict[str, int] = {}
    for request, tools, needed in CASES:
        said = (checks if args.checks else verdicts)(args.host, request, tools)
        for name, tool in said.items():
            right[name] = right.get(name, 0) + (tool == needed)
        marks = ", ".join(f"{n}: {'tool' if t else 'answer'}" for n, t in said.items())
        print(f"{'tool  ' if needed else 'answer'} | {request} | {marks}", flush=True)
    for name, count in right.items():
        print(f"{name}: {count}/{len(CASES)} right")


if __name__ == "__main__":
    main()
