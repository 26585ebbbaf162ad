"""The generation prompt and the parser of a small model's replies (core/example_gen.py)."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.example_gen import (
    ExampleTarget,
    ParamInfo,
    clean_examples,
    generation_messages,
    parse_examples,
)

WANTED = ["weather in Paris", "will it rain tomorrow in Oslo?", "forecast for Rome this weekend"]


@pytest.mark.parametrize(
    "reply",
    [
        "1. weather in Paris\n2. will it rain tomorrow in Oslo?\n3. forecast for Rome this weekend",
        "Here are 3 requests:\n\n1) weather in Paris\n2) will it rain tomorrow in Oslo?\n"
        "3) forecast for Rome this weekend\n\nI hope these help!",
        "- weather in Paris\n* will it rain tomorrow in Oslo?\n• forecast for Rome this weekend",
        '["weather in Paris", "will it rain tomorrow in Oslo?", "forecast for Rome this weekend"]',
        '```json\n{"requests": ["weather in Paris", "will it rain tomorrow in Oslo?", '
        '"forecast for Rome this weekend"]}\n```',
        '```\n1. "weather in Paris"\n2. "will it rain tomorrow in Oslo?"\n'
        '3. "forecast for Rome this weekend"\n```',
        "Request 1: weather in Paris\nRequest 2: will it rain tomorrow in Oslo?\n"
        "Request 3: forecast for Rome this weekend",
        "weather in Paris\nwill it rain tomorrow in Oslo?\nforecast for Rome this weekend",
    ],
)
def test_parse_accepts_the_shapes_small_models_answer_in(reply: str) -> None:
    assert clean_examples(parse_examples(reply), limit=5) == WANTED


def test_a_refusal_or_chatter_yields_nothing() -> None:
    assert clean_examples(parse_examples("I'm sorry, I cannot help with that."), limit=5) == []
    assert parse_examples("Sure! Here you go:") == []


def test_clean_dedupes_trims_and_applies_the_author_rules() -> None:
    candidates = [
        "  weather   in Paris ",
        "Weather in Paris!",  # a repeat: case and end punctuation ignored
        "ok",  # too short
        "x" * 201,  # too long
        "'forecast for Rome'",
        "5 km in miles",
        "one more",
    ]
    kept = clean_examples(candidates, limit=3, exclude=["5 KM in miles"])
    assert kept == ["weather in Paris", "forecast for Rome", "one more"]


def test_prompt_holds_the_descriptor_and_its_hash_follows_it() -> None:
    target = ExampleTarget(
        kind="plugin",
        item_id="units",
        name="Units",
        description="Convert units.",
        capability="convert",
        capability_name="Convert",
        capability_description="Convert a value between units.",
        keywords=("metric",),
        parameters=(ParamInfo("unit", "string", "Target unit", True, ("km", "mi")),),
    )
    messages = generation_messages(target, 4)
    last = messages[-1]["content"]
    assert "Tool: Units" in last and "Function: Convert: Convert a value between units." in last
    assert "Inputs: unit (string, required) one of km/mi: Target unit" in last
    assert "Write 4 different messages" in last
    assert messages[0]["role"] == "system" and len(messages) == 4
    changed = ExampleTarget(**{**target.__dict__, "description": "Convert any unit."})
    assert target.content_hash(4) != changed.content_hash(4)
    assert target.content_hash(4) != target.content_hash(5)
    assert target.content_hash(4) == ExampleTarget(**target.__dict__).content_hash(4)
