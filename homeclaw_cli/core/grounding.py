"""Whether a tool call's values come from the conversation or from the model alone.

Small models call whatever they are offered, and fill the call in from the tool's own
description: "how do u say good morning in spanish" became the world clock for "Spain",
"largest planet in the solar system?" the disk-usage skill on "~/Downloads", the folder of
its SKILL.md example. A value the user typed (or a tool returned) is in the conversation; these
are in no message of it (nor in what the user wrote into their prompt files, which the turn
adds). The turn uses this for calls to plugins and skills that retrieval ranked weakly, where
a made-up value is the sign of a call made for its own sake (core/turn_decide.py), and for a
required value the user never gave, which it asks for (core/turn_ask.py). A value copied word
for word from the tool's own description ("Save a new note, with optional tags." as a note's
text, for a table booking) is made up however sure retrieval was.

Only free text counts: an enum choice, a number, a boolean, a command-line flag, a code of one
or two letters ("F", "us") and the arguments a tool marks as its own options (run_skill's
skill and script) say nothing about where the request came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from homeclaw_cli.core.json_strings import json_strings
from homeclaw_cli.core.keywords import STOP_WORDS
from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.tool_registry import Tool
from homeclaw_cli.core.turn_calls import TOOL_OUTPUT_NAME

_WORD = re.compile(r"[^\W_]+(?:['.][^\W_]+)*")  # "62.40" and "don't" stay whole
# Two words sharing this many first letters are one ("downloads" / "download", "oslo's").
_STEM = 5
_MIN_PREFIX = 3  # a word that starts another counts from this length ("cup" / "cups")
_MIN_FREE = 3  # shorter values are codes ("F", "us", "km")
_MAX_INITIALS = 5  # "NYC", "USA": initials of longer runs are no name (and a note has many)
_MIN_COPIED = 3  # words a value repeats from the tool's own text to be a copy of it
_MIN_UNHEARD = 2  # of them, words nobody said in the conversation
# Tool results that are instructions for the model, not data from the user's world.
INSTRUCTION_TOOLS = frozenset({"read_skill"})


def words(text: str) -> set[str]:
    """The words of `text`, case-folded."""
    return set(_sequence(text))


def conversation_words(messages: Sequence[ChatMessage]) -> set[str]:
    """The words of what the user said, the answers and the tools' results: every message but
    the system prompt and the instructions a tool handed the model (a skill's SKILL.md)."""
    return words(conversation_text(messages))


def conversation_text(messages: Sequence[ChatMessage]) -> str:
    """The text of the messages `conversation_words` reads, one message a line."""
    kept = []
    for message in messages:
        content = str(message.get("content") or "")
        if message.get("role") != "system" and not _is_instruction(message, content):
            kept.append(content)
    return "\n".join(kept)


def _is_instruction(message: ChatMessage, content: str) -> bool:
    name = message.get("tool_name") or next(iter(TOOL_OUTPUT_NAME.findall(content)), "")
    return name in INSTRUCTION_TOOLS


def free_values(tool: Tool, arguments: Mapping[str, Any]) -> list[str]:
    """The free-text values of a call: strings the model wrote rather than picked."""
    properties = tool.parameters.get("properties") or {}
    found: list[str] = []
    for name, value in arguments.items():
        spec = properties.get(name) or {}
        if name in tool.choice_args or spec.get("enum"):
            continue
        found += [v for v in json_strings(value) if _is_free(v)]
    return found


def _is_free(value: str) -> bool:
    text = value.strip()
    if len(text) < _MIN_FREE or text.startswith("-"):
        return False
    return any(ch.isalpha() for ch in text)  # a number written as a string is no free text


@dataclass(frozen=True)
class _Heard:
    """The conversation's words, and their starts and stems, to look a call's values up in."""

    words: frozenset[str]
    content: frozenset[str]  # the words but stop words: "the" starts "theatre", says nothing
    starts: frozenset[str]  # every start of 3+ letters of a content word
    stems: frozenset[str]  # first five letters of the content words that long

    @classmethod
    def of(cls, said: Iterable[str]) -> _Heard:
        words = frozenset(said)
        content = words - STOP_WORDS
        starts = {h[:n] for h in content for n in range(_MIN_PREFIX, len(h) + 1)}
        stems = {h[:_STEM] for h in content if len(h) >= _STEM}
        return cls(words, content, frozenset(starts), frozenset(stems))

    def word(self, word: str) -> bool:
        if word in self.words or word in self.starts:  # said, or the start of a word said
            return True
        if any(word[:n] in self.content for n in range(_MIN_PREFIX, len(word))):
            return True
        return len(word) >= _STEM and word[:_STEM] in self.stems


def grounded(value: str, said: Iterable[str]) -> bool:
    """True when a word of `value` is in `said`, starts one or starts with one ("cup" and
    "cups", "tech" and "technology"), shares its first five letters with one ("download" and
    "downloads"), or `said` has the initials of its words ("NYC" for "New York City")."""
    return _grounded(value, _Heard.of(said))


def _grounded(value: str, heard: _Heard) -> bool:
    own = [w for w in (x.casefold() for x in _WORD.findall(value)) if w not in STOP_WORDS]
    if not own:
        return True
    return any(heard.word(w) for w in own) or bool(_initials(own) & heard.words)


def _initials(own: list[str]) -> set[str]:
    """The initials of every run of 2 to _MAX_INITIALS consecutive words."""
    letters = "".join(w[0] for w in own)
    return {
        letters[i:j]
        for i in range(len(letters))
        for j in range(i + 2, min(i + _MAX_INITIALS, len(letters)) + 1)
    }


def copied(tool: Tool, arguments: Mapping[str, Any], conversation: str) -> list[str]:
    """The call's free values that repeat the tool's description or a parameter's word for
    word, three words or more, with words the conversation never had: "Save a new note, with
    optional tags." as the text of a note for a table booking. A value the user could have
    given ("17.5% of 240" for "17.5 percent of 240", where the description's example is the
    same) has every word said, and is theirs."""
    properties = tool.parameters.get("properties") or {}
    texts = [tool.description, *(str(s.get("description") or "") for s in properties.values())]
    own_texts = [_sequence(text) for text in texts]
    said = _sequence(conversation)
    heard = set(said)
    found = []
    for value in free_values(tool, arguments):
        own = _sequence(value)
        unheard = {w for w in own if w not in heard and w not in STOP_WORDS}
        if len(own) < _MIN_COPIED or len(unheard) < _MIN_UNHEARD or _holds(said, own):
            continue
        if any(_holds(text, own) for text in own_texts):
            found.append(value)
    return found


def _sequence(text: str) -> list[str]:
    """The words of `text`, case-folded, in order."""
    return [w.casefold() for w in _WORD.findall(text)]


def _holds(words: list[str], run: list[str]) -> bool:
    """True when `run` is in `words`, in order and side by side."""
    n = len(run)
    return any(words[i : i + n] == run for i in range(len(words) - n + 1))


def made_up(tool: Tool, arguments: Mapping[str, Any], said: Iterable[str]) -> list[str]:
    """The call's free values when it has some and none is grounded in `said`; else []."""
    values = free_values(tool, arguments)
    if not values:
        return []
    heard = _Heard.of(said)
    return [] if any(_grounded(v, heard) for v in values) else values
