"""Tool calls small models write as text instead of structured `tool_calls`.

Small Qwen and Llama models often answer `{"name": "weather__now", "arguments": {...}}` in the
content, sometimes fenced in ```json or wrapped in <tool_call> tags. A name is taken as the
offered tool it plainly means (`search_notes` for `notes__search_notes`, a near spelling). A
whole reply shaped exactly like a call (`name` and `arguments`, nothing else) is a call even with
an unknown name, so the model is told the valid names instead of the user seeing raw JSON; any
other JSON counts only when it names an offered tool, so a user asking for JSON output never has
their answer swallowed.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_TAG = re.compile(r"^<tool_call>\s*(.*?)\s*(?:</tool_call>)?$", re.DOTALL)
NAME_KEYS = ("name", "tool", "function", "tool_name")
ARG_KEYS = ("arguments", "parameters", "args", "input")
ANSWER_TOOL = "answer"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
PYTHON_TAG = "<|python_tag|>"  # Llama 3.1 prefixes its tool calls with it
MAX_EMBEDDED_SCAN = 20_000
MAX_EMBEDDED_ATTEMPTS = 50
CLOSE_SPELLING = 0.85  # difflib ratio: `units_convert` for `units__convert`, not `unit` for `uuid`
CLEARLY_CLOSER = 0.05  # two close names: the best wins by more than a letter's worth of ratio
TOOL_NAME_SEPARATOR = "__"  # <plugin>__<capability>


@dataclass
class ParsedCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def strip_wrappers(content: str) -> str:
    text = content.strip()
    for pattern in (_FENCE, _TAG):
        match = pattern.match(text)
        if match:
            text = match.group(1).strip()
    return text


def strip_think(content: str) -> str:
    """The reply without a leading <think>...</think> block (reasoning models like qwen3)."""
    text = content.lstrip()
    if text.startswith(THINK_OPEN):
        end = text.find(THINK_CLOSE)
        return "" if end < 0 else text[end + len(THINK_CLOSE) :].lstrip()
    return content


def still_thinking(text: str) -> bool:
    """True while a streamed reply is (or may become) an unfinished <think> block."""
    stripped = text.lstrip()
    if len(stripped) < len(THINK_OPEN) and THINK_OPEN.startswith(stripped):
        return True
    return stripped.startswith(THINK_OPEN) and THINK_CLOSE not in stripped


def looks_like_json_start(text: str) -> bool:
    """True while a streamed reply could still turn out to be a text tool call."""
    stripped = text.lstrip()
    return not stripped or stripped[0] in "{[`<"


def parse_content_calls(content: str, known: Collection[str]) -> list[ParsedCall]:
    """Tool calls written as JSON text; [] when the content is an ordinary answer.

    The whole reply as a call (plain, fenced, <tool_call>, <|python_tag|>, a list of calls),
    else the first JSON object inside prose that names an offered tool.
    """
    calls = _parse_whole(strip_wrappers(content.replace(PYTHON_TAG, "")), known)
    return calls or _parse_embedded(content, known)


def _parse_embedded(content: str, known: Collection[str]) -> list[ParsedCall]:
    if len(content) > MAX_EMBEDDED_SCAN:
        return []
    decoder = json.JSONDecoder()
    for attempt, match in enumerate(re.finditer(r"\{", content)):
        if attempt >= MAX_EMBEDDED_ATTEMPTS:
            break
        try:
            item, _ = decoder.raw_decode(content, match.start())
        except json.JSONDecodeError:
            continue
        call = _call_from(item)
        resolved = resolve_name(call.name, known) if call is not None else None
        if call is not None and resolved is not None:
            return [ParsedCall(resolved, call.arguments)]
    return []


def _parse_whole(text: str, known: Collection[str]) -> list[ParsedCall]:
    if not text or text[0] not in "{[":
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return []
    items = data if isinstance(data, list) else [data]
    calls: list[ParsedCall] = []
    for item in items:
        call = _call_from(item)
        if call is None:
            return []
        resolved = resolve_name(call.name, known)
        if resolved is None and not _call_shaped(item):
            return []
        calls.append(ParsedCall(resolved or call.name, call.arguments))
    return calls


def resolve_name(name: str, known: Collection[str]) -> str | None:
    """The offered tool a model meant: the name itself, a capability id without its plugin
    prefix (`search_notes` for `notes__search_notes`), or a close spelling clearly closer than
    any other (`fruits__getfruitsbyfamily` for `fruits__getfruitbyfamily`, though
    `fruits__getfruitbyname` is close too), or the one capability offered of the plugin it
    names (`dates__weekday_info` when only `dates__find_date` is); else None."""
    if name in known:
        return name
    by_suffix = [k for k in known if k.endswith(TOOL_NAME_SEPARATOR + name)]
    if len(by_suffix) == 1:
        return by_suffix[0]
    close = difflib.get_close_matches(name, list(known), n=2, cutoff=CLOSE_SPELLING)
    if len(close) == 2:
        best, runner_up = (difflib.SequenceMatcher(None, name, c).ratio() for c in close)
        return close[0] if best - runner_up > CLEARLY_CLOSER else None
    return close[0] if close else _only_sibling(name, known)


def _only_sibling(name: str, known: Collection[str]) -> str | None:
    """The one offered tool of the plugin `name` starts with: small models make up a
    capability name under the right plugin, and with one offered there is no other meaning."""
    plugin, separator, _ = name.partition(TOOL_NAME_SEPARATOR)
    siblings = [k for k in known if separator and k.startswith(plugin + separator)]
    return siblings[0] if len(siblings) == 1 else None


def _call_shaped(item: Any) -> bool:
    """Exactly a call: a name and its arguments, and nothing else (what models write)."""
    return isinstance(item, dict) and set(item) == {"name", "arguments"}


def _call_from(item: Any) -> ParsedCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # OpenAI shape {"function": {"name", ...}}
        item = item["function"]
    name = next((item[k] for k in NAME_KEYS if isinstance(item.get(k), str)), None)
    if name is None:
        return None
    raw: Any = next((item[k] for k in ARG_KEYS if k in item), {})
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return None
    return ParsedCall(name, raw if isinstance(raw, dict) else {})


def json_mode_schema(tool_names: list[str]) -> dict[str, Any]:
    """The `format` schema for models without tool support: pick a tool, or answer."""
    return {
        "type": "object",
        "properties": {
            "tool": {"type": "string", "enum": [ANSWER_TOOL, *tool_names]},
            "arguments": {"type": "object"},
            "answer": {"type": "string"},
        },
        "required": ["tool"],
    }


def parse_json_mode_reply(
    content: str, known: Collection[str]
) -> tuple[str | None, ParsedCall | None]:
    """(answer, call) from a `format`-constrained reply; falls back to the text itself."""
    calls = parse_content_calls(content, known)
    if calls:
        return None, calls[0]
    try:
        data = json.loads(strip_wrappers(content))
    except json.JSONDecodeError:
        return content, None
    if not isinstance(data, dict):
        return content, None
    if data.get("tool") == ANSWER_TOOL or "answer" in data:
        return str(data.get("answer") or data.get("arguments", {}).get("text", "")), None
    return content, None


_ANSWER_KEY = re.compile(r'"answer"\s*:\s*"')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}


_SUSPECT = ("```", "{", "<tool", "tool", "function")


class TextGate:
    """Streams a reply to the user unless it could be a tool call or talk about one.

    Held back while the reply is empty, a <think> block or starts like JSON, and (with `hold`)
    until it is `hold` characters of prose that mention no tool, call or JSON: a preamble
    ("I'll call the units tool: ...") and a call written into prose then never reach the user
    before the round has decided what the reply is. So is prose that `suspect` says may be
    corrected (a claim that something was done). `buffer` keeps what was held back.
    """

    def __init__(
        self,
        sink: Callable[[str], None] | None,
        *,
        hold: int = 0,
        watch: Collection[str] = (),
        suspect: Callable[[str], bool] | None = None,
    ) -> None:
        self.sink = sink
        self.hold = hold
        self.watch = tuple(w.lower() for w in watch) + (_SUSPECT if hold else ())
        self.suspect = suspect
        self.buffer = ""
        self.passing = False
        self.emitted = False

    def __call__(self, piece: str) -> None:
        if self.sink is None:
            return
        if self.passing:
            self.sink(piece)
            return
        self.buffer += piece
        if still_thinking(self.buffer):
            return
        visible = strip_think(self.buffer)
        if not visible.strip() or looks_like_json_start(visible) or len(visible) < self.hold:
            return
        lowered = visible.lower()
        if self.suspect is not None and self.suspect(visible):
            return
        if not any(word in lowered for word in self.watch):
            self.passing = True
            self.emitted = True
            self.sink(visible)


class AnswerStreamer:
    """Streams the `answer` string of a JSON-mode reply while it is still being generated.

    Models without tool support reply `{"tool": "answer", "answer": "..."}`; without this the
    user would stare at nothing until the whole JSON object is done.
    """

    def __init__(self, sink: Callable[[str], None] | None) -> None:
        self.sink = sink
        self.buffer = ""
        self.pos: int | None = None  # index of the next undecoded char of the answer string
        self.done = False
        self.emitted = False

    def __call__(self, piece: str) -> None:
        if self.sink is None or self.done:
            return
        self.buffer += piece
        if self.pos is None:
            match = _ANSWER_KEY.search(self.buffer)
            if match is None:
                return
            self.pos = match.end()
        out: list[str] = []
        i = self.pos
        while i < len(self.buffer):
            char = self.buffer[i]
            if char == '"':
                self.done = True
                break
            if char == "\\":
                if i + 1 >= len(self.buffer):
                    break
                code = self.buffer[i + 1]
                if code == "u":
                    if i + 6 > len(self.buffer):
                        break
                    try:
                        out.append(chr(int(self.buffer[i + 2 : i + 6], 16)))
                    except ValueError:
                        out.append(self.buffer[i : i + 6])
                    i += 6
                    continue
                out.append(_ESCAPES.get(code, code))
                i += 2
                continue
            out.append(char)
            i += 1
        self.pos = i
        if out:
            self.emitted = True
            self.sink("".join(out))
