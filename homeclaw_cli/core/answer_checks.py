"""What a model's final text must not be: a tool call, a claim of a tool result it never got,
a claim that something was done (or an offer to do it) when no tool ran, current figures no
tool gave, or text dressed as a tool's output.

Small models write calls to tools that do not exist (`{"name": "factorial", ...}`), wrap them in
prose or <tool_call> tags, answer "Here's the result using the units__convert tool: ..."
without calling anything, or copy the <tool_output> wrapper of results into their answer.
Each gets one corrective round (core/turn_round.py); a call left in the text after that is cut
out, so raw call JSON never reaches the user, and so are the wrapper's tags.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass

from homeclaw_cli.core.action_claims import act_said
from homeclaw_cli.core.live_figures import current_figures
from homeclaw_cli.core.tool_parse import TOOL_NAME_SEPARATOR

_CALL_NAME = re.compile(
    r'"(?:name|function|tool|tool_name)"\s*:\s*"([^"]+)"\s*,\s*"(?:arguments|parameters|args|input)"'
    r"\s*:"
)
_ARGS_FIRST = re.compile(
    r'"(?:arguments|parameters|args)"\s*:\s*\{[^{}]*\}\s*,\s*"(?:name|function|tool)"\s*:\s*"([^"]+)"'
)
_TAGGED = re.compile(r"<tool_call>.*?(?:</tool_call>|$)", re.DOTALL)
_FENCED_JSON = re.compile(r"```[a-zA-Z]*\s*\{.*?\}\s*```", re.DOTALL)
_FENCE_OPEN = re.compile(r"```[a-zA-Z]*\s*")
# homeclaw's own wrapper of tool results (core/turn_calls.py), which models copy into answers.
_TOOL_OUTPUT_TAG = re.compile(r"</?tool_(?:output|response)_?\b[^>]*>")
_CLAIM = re.compile(
    r"\b(?:using|used|use|with|via|through|call(?:ed|ing)?|run(?:ning)?)\s+(?:the\s+)?`?"
    r"[\w.-]+`?\s+(?:tool|function|plugin)\b"
    r"|\btool(?:'s)?\s+(?:returned|result|output|says)"
    r"|\b(?:I'll|I will|let me|I'm going to|I am going to)\s+(?:now\s+)?(?:use|call|run)\b",
    re.IGNORECASE,
)


# The opening of each correction below: a reply holding one relays the correction as its
# answer ("what must i do today" was answered with the whole no-result correction).
NO_RESULT = "You have not called any tool in this turn, so there is no tool result to report."
NOT_A_TOOL = "is not a tool you can call here."
NO_TOOLS = "There are no tools in this chat: answer the user in plain text."
AS_OUTPUT = "That is written as tool output."
NOTHING_DONE = "Your reply says it was done, but nothing was done in this chat."
NOTHING_CAN = "Your reply offers to do it, but nothing in this chat can do it."
CANNOT_HERE = "tell the user in one short sentence that you can't do that here."
NOT_LIVE = "Your reply states current figures, but nothing in this chat gave them."
CANNOT_CHECK = "tell the user in one short sentence that you can't check that here."


@dataclass(frozen=True)
class AnswerProblem:
    """Why a final text cannot go to the user as is, and what to tell the model."""

    # "call" (the text is or holds a tool call), "claim" (a result with no call), "done" (an
    # act in the world claimed or offered with no call), "live" (current figures no tool gave)
    # or "output" (the text is dressed as a tool's output: <tool_response><tool_output ...>)
    kind: str
    correction: str
    name: str = ""  # the tool a "call" names
    said: str = ""  # the sentence a "live" answer states its figures in


def _call_match(text: str) -> re.Match[str] | None:
    """Where a call written as JSON names its tool in `text` (group 1), if one does."""
    return _CALL_NAME.search(text) or _ARGS_FIRST.search(text)


def written_call(text: str) -> str | None:
    """The tool name of a call written into `text` (JSON or <tool_call> tags), else None."""
    match = _call_match(text)
    if match:
        return match.group(1)
    if "<tool_call>" in text:
        return "?"
    return None


def strip_output_tags(text: str) -> str:
    """`text` without tool-output tags a model wrote into it (what they held stays)."""
    return _TOOL_OUTPUT_TAG.sub("", text).strip()


def strip_calls(text: str) -> str:
    """`text` without the tool calls written into it (tagged, fenced or bare JSON), nor one the
    reply ran out of tokens in (a URL repeated until the cap: no closing brace or fence)."""
    out = _TAGGED.sub("", text)
    out = _FENCED_JSON.sub("", out)
    return _cut_unfinished_call(_strip_bare_calls(out)).strip()


def _cut_unfinished_call(text: str) -> str:
    """`text` up to the call still written in it, with the fence that opens it."""
    match = _call_match(text)
    if match is None:
        return text
    start = text.rfind("{", 0, match.start() + 1)
    fence = text.rfind("```", 0, start)
    if fence != -1 and _FENCE_OPEN.fullmatch(text[fence:start]):
        start = fence
    return text[:start]


def _strip_bare_calls(text: str) -> str:
    decoder = json.JSONDecoder()
    pieces: list[str] = []
    pos = 0
    for match in re.finditer(r"\{", text):
        if match.start() < pos:
            continue
        try:
            _, end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if written_call(text[match.start() : end]):
            pieces.append(text[pos : match.start()])
            pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def check_answer(
    text: str, offered: Collection[str], *, called: bool, request: str, given: str
) -> AnswerProblem | None:
    """The problem with a final answer to `request`, or None when it may go to the user;
    `given` is what the conversation and the user's facts say, where a figure is no guess."""
    valid = ", ".join(offered)
    name = written_call(text)
    if name is not None:
        if offered:
            correction = (
                f"`{name}` {NOT_A_TOOL} Call one of these tools as a real tool call: {valid}. "
                "Or, if none fits, answer the user in plain text, no JSON."
            )
        else:
            correction = NO_TOOLS
        return AnswerProblem("call", correction, name)
    if _TOOL_OUTPUT_TAG.search(text):
        return AnswerProblem(
            "output",
            f"{AS_OUTPUT} Answer the user in plain words; tool results come only from real "
            "tool calls.",
        )
    if called:
        return None
    said = act_said(text, request)
    if said is not None:
        then = _call_or_say(valid, "does it", CANNOT_HERE)
        return AnswerProblem("done", f"{NOTHING_DONE if said == 'done' else NOTHING_CAN} {then}")
    live = current_figures(text, request, given)
    if live:
        then = _call_or_say(valid, "gives them", CANNOT_CHECK)
        return AnswerProblem("live", f"{NOT_LIVE} You have no live data. {then}", said=live[0])
    if not offered:
        return None
    mentioned = [n for n in offered if n in text or _capability(n) in text]
    if mentioned or _CLAIM.search(text):
        return AnswerProblem(
            "claim",
            f"{NO_RESULT} If a tool fits the request, call it now ({valid}); otherwise answer "
            "from your own knowledge and do not mention tools.",
        )
    return None


def _call_or_say(valid: str, does: str, say: str) -> str:
    """A correction's end: call the offered tool (of `valid`) that `does` what was asked, or
    `say` the model cannot; with nothing offered, only the second."""
    if valid:
        return f"If one of these tools {does}, call it now: {valid}. Otherwise, {say}"
    return f"So {say}"


def relays_correction(text: str) -> bool:
    """True when `text` repeats one of the corrections above instead of answering."""
    openings = (NO_RESULT, NOT_A_TOOL, NO_TOOLS, AS_OUTPUT, NOTHING_DONE, NOTHING_CAN, NOT_LIVE)
    return any(opening in text for opening in openings)


def _capability(name: str) -> str:
    """The capability id of a tool name when it is distinctive enough to count as a mention
    (`search_notes`), else the whole name (`convert` alone is an ordinary word)."""
    _, _, capability = name.partition(TOOL_NAME_SEPARATOR)
    return capability if capability and ("_" in capability or len(capability) > 10) else name
