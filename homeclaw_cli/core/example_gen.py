"""Example user requests written by an LLM from a descriptor alone: the prompt and the parser.

`homeclaw sync --expand` (app/expand.py) asks the chat model for a few requests a user might
type for each capability (or skill) whose author gave none. Only the descriptor goes into the
prompt (names, descriptions, keywords, parameters), never a query set. Small models answer in
many shapes (numbered lists, bullets, JSON arrays, fenced blocks, quoted lines), so the parser
accepts all of them and the cleaner keeps what passes the rules author examples follow.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.core.examples import MAX_CHARS, MAX_EXAMPLES, MIN_CHARS, check_examples
from homeclaw_cli.core.json_strings import json_strings
from homeclaw_cli.core.ports import ChatMessage

# Bumped when the prompt changes in a way that should regenerate every cached example.
PROMPT_VERSION = 2
MIN_EXAMPLE_CHARS = MIN_CHARS
MAX_EXAMPLE_CHARS = MAX_CHARS
_MAX_TEXT = 600  # descriptor text beyond this adds prompt time, not better requests
_TOKENS_PER_EXAMPLE = 64  # a numbered line of up to MAX_CHARS characters, with room to spare


@dataclass(frozen=True)
class ParamInfo:
    """One parameter of a capability, as the prompt shows it."""

    name: str
    type: str
    description: str = ""
    required: bool = True
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExampleTarget:
    """What one generation call is about: a capability of a plugin, or a whole skill.

    `capability` is None for a skill (and for a plugin's implicit `run` entry point the
    plugin-level fields are all there is)."""

    kind: str  # "plugin" | "skill"
    item_id: str
    name: str
    description: str
    capability: str | None = None
    capability_name: str = ""
    capability_description: str = ""
    keywords: tuple[str, ...] = ()
    parameters: tuple[ParamInfo, ...] = field(default_factory=tuple)

    def descriptor(self) -> dict[str, Any]:
        """Everything the prompt is built from, as plain JSON."""
        return {
            "kind": self.kind,
            "id": self.item_id,
            "name": self.name,
            "description": _clip(self.description),
            "keywords": list(self.keywords),
            "capability": self.capability,
            "capability_name": self.capability_name,
            "capability_description": _clip(self.capability_description),
            "parameters": [
                [p.name, p.type, _clip(p.description), p.required, list(p.enum)]
                for p in self.parameters
            ],
        }

    def content_hash(self, count: int) -> str:
        """Changes whenever the prompt for this target would (descriptor, count, prompt)."""
        payload = json.dumps(
            {"v": PROMPT_VERSION, "count": count, "descriptor": self.descriptor()}, sort_keys=True
        )
        return hashlib.sha256(payload.encode()).hexdigest()


SYSTEM_PROMPT = (
    "You write test data for a chat assistant. Given the description of one tool, you write "
    "messages that real users would type to the assistant when they need that tool. Users "
    "never know the tool's name or its parameters: they just ask for what they want, in "
    "their own words, with concrete details (places, numbers, names, dates)."
)

_DEMO_TOOL = """Tool: Tide Tables
What it does: High and low tide times for coastal stations.
Function: Tide times: the next high and low tides at a station.
Inputs: station (string, required): coastal town or station name; days (number, optional)"""

# Mostly situational, as requests to a plugin store read: measured against a mix of short
# and long ones in benchmarks/EXPAND.md ("The prompt").
_DEMO_ANSWER = "\n".join(
    (
        "1. when is high tide in Brest tomorrow?",
        "2. I'm kayaking near Tofino on Saturday morning and don't want to fight the current."
        " When is the tide lowest?",
        "3. We're taking the kids rock pooling at Whitstable this weekend, can you tell me when"
        " the water goes out?",
        "4. low tide st malo",
        "5. My boat is moored in Cape Cod harbor and I need to know if there is enough water to"
        " leave at 7am.",
    )
)


def _describe(target: ExampleTarget) -> str:
    lines = [f"Tool: {target.name}", f"What it does: {_clip(target.description)}"]
    if target.keywords:
        lines.append("Topics: " + ", ".join(target.keywords[:8]))
    if target.capability_name or target.capability_description:
        function = target.capability_name or target.capability or ""
        detail = _clip(target.capability_description)
        lines.append(f"Function: {function}: {detail}" if detail else f"Function: {function}")
    inputs = [_param(p) for p in target.parameters[:8]]
    if inputs:
        lines.append("Inputs: " + "; ".join(inputs))
    return "\n".join(lines)


def _param(param: ParamInfo) -> str:
    need = "required" if param.required else "optional"
    text = f"{param.name} ({param.type}, {need})"
    if param.enum:
        text += " one of " + "/".join(param.enum[:6])
    if param.description:
        text += ": " + _clip(param.description, 120)
    return text


def _ask(count: int) -> str:
    return (
        f"Write {count} different messages a user might send that this tool answers, each "
        "about a different use of it. Most should be full sentences in which the user says "
        "what they are doing or why, then asks; one or two short and casual (a few words, "
        "lower case). Use concrete, realistic values. Do not name the tool or its inputs. "
        "Reply with a numbered list only, one message per line."
    )


def reply_token_cap(count: int) -> int:
    """The most tokens a reply with `count` examples needs (a preamble included)."""
    return count * _TOKENS_PER_EXAMPLE + 64


def generation_messages(target: ExampleTarget, count: int) -> list[ChatMessage]:
    """The chat messages that ask for `count` example requests for `target`.

    One fixed demonstration on an invented tool shows the wanted shape; it holds no data
    from any benchmark or query set."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"{_DEMO_TOOL}\n\n{_ask(5)}"},
        {"role": "assistant", "content": _DEMO_ANSWER},
        {"role": "user", "content": f"{_describe(target)}\n\n{_ask(count)}"},
    ]


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_LIST_MARK = re.compile(r"^\s*(?:[-*•·]|\(?\d{1,2}[.):]|\(?[a-zA-Z][.)]|#\d+)\s+")
_LABEL = re.compile(r"^(?:user|request|example|query|message|q)\s*\d*\s*[:\-]\s*", re.IGNORECASE)
_PREAMBLE = re.compile(
    r"^(?:here (?:are|is)|sure|certainly|of course|okay|ok[,!.]|these are|below are|"
    r"i(?: can(?:no|')t| am (?:not|unable)|'m (?:sorry|not|unable))|sorry|as an ai|note:)",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’`"


def parse_examples(text: str) -> list[str]:
    """Example requests in a model's reply: a JSON list (of strings or objects), a fenced
    block, or a numbered/bulleted/plain list of lines; preambles and labels dropped."""
    text = text.strip()
    for fenced in _FENCE.findall(text):
        found = _from_json(fenced) or _from_lines(fenced)
        if found:
            return found
    return _from_json(text) or _from_lines(text)


def _from_json(text: str) -> list[str]:
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        return []
    try:
        data, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return []
    return list(json_strings(data))


def _from_lines(text: str) -> list[str]:
    marked: list[str] = []
    plain: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("```") or _PREAMBLE.match(line):
            continue
        if _LIST_MARK.match(line):
            marked.append(_LABEL.sub("", _LIST_MARK.sub("", line)).strip())
        elif not line.endswith(":"):  # not a heading such as "Examples:"
            plain.append(_LABEL.sub("", line).strip())
    # A list's items only, when there is a list: the lines around it are commentary.
    return marked if len(marked) >= 2 else marked + plain


def clean_examples(
    candidates: Sequence[str], *, limit: int, exclude: Iterable[str] = ()
) -> list[str]:
    """At most `limit` examples that pass the author rules: trimmed, unquoted, 3-200
    characters, at most 10, no duplicates (case, spacing and end punctuation ignored), none
    in `exclude`."""
    seen = {_key(e) for e in exclude}
    kept: list[str] = []
    for candidate in candidates:
        text = " ".join(candidate.split())
        if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
            text = text[1:-1].strip()
        text = text.strip(_QUOTES).strip()
        if not MIN_EXAMPLE_CHARS <= len(text) <= MAX_EXAMPLE_CHARS:
            continue
        key = _key(text)
        if not key or key in seen:
            continue
        seen.add(key)
        kept.append(text)
        if len(kept) >= min(limit, MAX_EXAMPLES):
            break
    return check_examples(kept)  # the rules author examples follow (core/examples.py)


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _clip(text: str | None, limit: int = _MAX_TEXT) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
