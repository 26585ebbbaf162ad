"""core/grounding.py: which values of a call the conversation holds."""

from __future__ import annotations

from typing import Any

from homeclaw_cli.core.grounding import (
    conversation_words,
    copied,
    free_values,
    grounded,
    made_up,
)
from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.tool_registry import Tool, ToolOutcome


async def _noop(_args: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(True, "")


CLOCK = Tool(
    "clock__now",
    "The time in a place.",
    {
        "type": "object",
        "properties": {
            "place": {"type": "string"},
            "format": {"type": "string", "enum": ["12h", "24h"]},
            "days": {"type": "integer"},
        },
    },
    _noop,
    "plugin",
)
RUN = Tool(
    "run_skill",
    "Run a skill's script.",
    {"type": "object", "properties": {"skill_name": {}, "script": {}, "args": {}}},
    _noop,
    "skill",
    choice_args=frozenset({"skill_name", "script"}),
)


def test_free_values_leave_out_choices_numbers_flags_and_codes() -> None:
    args = {"place": "Spain", "format": "24h", "days": 3}
    assert free_values(CLOCK, args) == ["Spain"]
    assert free_values(CLOCK, {"place": "us"}) == []  # a code, not free text
    run = {"skill_name": "disk-usage", "script": "du.py", "args": ["~/Downloads", "--top", "10"]}
    assert free_values(RUN, run) == ["~/Downloads"]


def test_grounded_by_a_word_its_stem_or_its_initials() -> None:
    said = {"what", "time", "is", "it", "in", "nyc"}
    assert grounded("New York City", said)  # initials
    assert grounded("America/New_York", {"york"})
    assert grounded("~/Downloads", {"download"})  # the same first five letters
    assert grounded("cup", {"cups"}) and grounded("technology", {"tech"})  # one starts the other
    assert not grounded("theatre", {"the"})  # a stop word starts too much to count
    assert not grounded("Spain", {"how", "do", "u", "say", "good", "morning", "in", "spanish"})
    assert grounded("the", set())  # nothing but stop words: nothing to find
    letter = " ".join(["word"] * 5000)  # a long text stays cheap: initials of short runs only
    heard = {f"x{n}" for n in range(5000)}
    assert not grounded(letter, heard | {"wwwwwww"}) and grounded(letter, heard | {"wwwww"})


def test_a_call_is_made_up_only_when_no_free_value_is_grounded() -> None:
    said = {"largest", "planet", "in", "the", "solar", "system"}
    run = {"skill_name": "disk-usage", "script": "du.py", "args": ["~/Downloads"]}
    assert made_up(RUN, run, said) == ["~/Downloads"]
    two = {"skill_name": "x", "script": "y", "args": ["~/Downloads", "solar"]}
    assert made_up(RUN, two, said) == []  # one value the user gave is enough
    assert made_up(CLOCK, {"days": 2}, said) == []  # no free text at all


def test_the_conversation_is_what_was_said_and_returned_not_instructions() -> None:
    messages: list[ChatMessage] = [
        {"role": "system", "content": "You may call clock__now for Tokyo."},
        {"role": "user", "content": "largest planet?"},
        {"role": "assistant", "content": "Jupiter."},
        {
            "role": "tool",
            "content": '<tool_output tool="read_skill">\nRun du.py on ~/Downloads',
            "tool_name": "read_skill",
        },
        {
            "role": "user",
            "content": 'Result of tool read_skill:\n<tool_output tool="read_skill">\nFOLDER',
        },
        {
            "role": "tool",
            "content": '<tool_output tool="notes__list">\nwifi: hunter2\n</tool_output>',
        },
    ]
    said = conversation_words(messages)
    assert {"largest", "planet", "jupiter", "wifi", "hunter2"} <= said
    assert not {"tokyo", "downloads", "folder"} & said


NOTES = Tool(
    "notes__add_note",
    "Save a new note, with optional tags.",
    {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The note's text."},
            "tags": {"type": "array", "description": 'Tags such as ["shopping", "work"].'},
        },
    },
    _noop,
    "plugin",
)


def test_a_value_copied_from_the_tools_own_text_is_found() -> None:
    request = "5 people at tropicana by 8pm, reserve the table under martins name"
    arguments = {"text": "Save a new note, with optional tags.", "tags": ["tropicana"]}
    assert copied(NOTES, arguments, request) == ["Save a new note, with optional tags."]
    assert copied(NOTES, {"text": "the note's text"}, request) == ["the note's text"]
    # the user's own words, even where the description has them too, and short values
    assert copied(NOTES, {"text": "save a new note"}, "please save a new note: milk") == []
    assert copied(NOTES, {"text": "buy milk", "tags": ["shopping"]}, "note: buy milk") == []
    assert copied(NOTES, {"text": "new note"}, "hi") == []  # two words: no copy
    # every word said, though not in that order: the user's value
    assert copied(NOTES, {"text": "tags such as shopping"}, "note: shopping, such as tags") == []
    assert copied(NOTES, {"text": "save a new note"}, "new: save the note") == []
