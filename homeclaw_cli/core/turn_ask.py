"""Asking the user for a value a tool needs, instead of running a call with one made up.

"what's the weather like today" names no city; a small model calls the weather for "New York"
anyway (7 of CLINC's 10 such requests), and the user reads another city's weather as their
own. When the turn's first move only calls plugins with a required parameter holding words
found in no message of the conversation (core/grounding.py) nor in the user's own prompt
files (AGENTS.md: "I live in Lyon") or today's date, and no other value of the call is found
there either, the calls do not run: the turn's answer is one short question for that value.
The user's reply is a short follow-up, retrieved with this request, and the call it leads to
carries the value they gave.

Only words count: identifiers and codes a model derives from what the user said
("US/Los_Angeles" for Las Vegas, "gbp" for British pounds, "notes.txt") are left to the tool
to check. Calls to plugins retrieval ranked weakly never get here: they are answered without
tools (core/turn_decide.py). `llm.decide: never` turns this off with the rest of the decision
machinery.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from homeclaw_cli.core.grounding import conversation_words, made_up
from homeclaw_cli.core.json_strings import json_strings
from homeclaw_cli.core.ports import LLM, LLMToolCall
from homeclaw_cli.core.tool_parse import strip_think
from homeclaw_cli.core.tool_registry import Tool
from homeclaw_cli.core.trace import SkippedCallStep
from homeclaw_cli.core.turn_calls import ModelMove, TurnState, resolved_calls

ASK_MAX_TOKENS = 40
MAX_QUESTION_CHARS = 200  # a longer reply is an answer or an explanation, not the question
ASK_SYSTEM = (
    "The user's request needs a tool for this: {description} The tool needs the {label}, "
    "which the user has not said. Ask the user for the {label} in one short question. "
    "Do not answer the request and do not guess the {label}."
)
# A word of letters, maybe with an inner apostrophe or hyphen, maybe closed by punctuation.
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*[,.!?]?")
_MIN_LETTERS = 4  # "New York" is words; "UTC" and "gbp" are codes
_STEM = 4  # a question names the value by a word's first letters: "cities" for "city"


@dataclass(frozen=True)
class MissingValue:
    """A call whose required parameter holds only words the model made up."""

    call: LLMToolCall
    tool: Tool
    parameter: str
    values: list[str]

    @property
    def label(self) -> str:
        return self.parameter.replace("_", " ")


def plain_words(value: str) -> bool:
    """True for words a user could have typed ("New York", "Hello, world!") or a placeholder
    of words ("your_city_name"), False for an identifier, a path, a code or anything with
    digits ("Europe/London", "a.txt", "UTC")."""
    parts = value.replace("_", " ").split()  # "your_city_name" is a placeholder of words
    if not parts or not all(_PLAIN_WORD.fullmatch(p) for p in parts):
        return False
    return max(sum(c.isalpha() for c in p) for p in parts) >= _MIN_LETTERS


def missing_values(state: TurnState, move: ModelMove) -> list[MissingValue]:
    """One MissingValue per call of the turn's first move when each of them has one; else []."""
    if state.decide == "never" or not move.calls or state.tool_ran:
        return []
    said = conversation_words(state.messages) | state.known_words
    found = []
    for call, tool, arguments in resolved_calls(state.tools, move.calls):
        if tool.kind != "plugin":
            return []
        values = made_up(tool, arguments, said)
        parameter = missing_parameter(tool, arguments, values)
        if parameter is None:
            return []
        found.append(MissingValue(call, tool, parameter, values))
    return found


def missing_parameter(tool: Tool, arguments: dict[str, Any], values: list[str]) -> str | None:
    """The first required parameter whose value is among the made-up `values` and is plain
    words; None when there is none."""
    made = {v for v in values if plain_words(v)}
    for name in tool.parameters.get("required") or []:
        if made & set(json_strings(arguments.get(name))):
            return str(name)
    return None


async def ask_for_missing(llm: LLM, state: TurnState, move: ModelMove, round_no: int) -> ModelMove:
    """A question for the value the first call needs (`missing_values`), `move` otherwise;
    the trace says which calls were not run and why."""
    found = missing_values(state, move)
    if not found:
        return move
    for missing in found:
        shown = ", ".join(repr(v) for v in missing.values)
        reason = f"asked for the {missing.label}: made up {shown}, in no message"
        call = missing.call
        state.steps.append(
            SkippedCallStep(0.0, call.name, call.arguments, reason, asked=missing.parameter)
        )
    question = await _question(llm, state, found[0], round_no)
    return ModelMove(question, [], "decided", question)


async def _question(llm: LLM, state: TurnState, missing: MissingValue, round_no: int) -> str:
    """The model's question for the value, or a plain one when its reply is no question."""
    system = ASK_SYSTEM.format(description=missing.tool.description, label=missing.label)
    state.status("thinking")
    try:
        reply = await llm.chat(
            [{"role": "system", "content": system}, {"role": "user", "content": state.message}],
            max_tokens=ASK_MAX_TOKENS,
        )
    finally:
        state.status(None)
    state.record_reply(reply, round_no, [], None, "ask")
    question = strip_think(reply.content).strip()
    if _asks_for(question, missing.label):
        return question
    owner = missing.tool.plugin_id or missing.tool.name
    return f"Which {missing.label} do you mean? {owner} needs one, and I won't guess it."


def _asks_for(reply: str, label: str) -> bool:
    """Whether `reply` is a short question naming the value ("What city are you in?"), not
    the request asked back ("What is the date tomorrow?") or an answer."""
    if "?" not in reply or len(reply) > MAX_QUESTION_CHARS or "{" in reply:
        return False
    said = reply.casefold()
    return any(word[:_STEM] in said for word in label.casefold().split() if len(word) >= 3)
