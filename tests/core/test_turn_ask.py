"""Which calls lack a value the user never gave, and which made-up values are words a user
could have typed (core/turn_ask.py)."""

from __future__ import annotations

from typing import Any

import pytest

from homeclaw_cli.core.ports import ChatMessage, LLMToolCall
from homeclaw_cli.core.tool_registry import Tool, ToolOutcome, ToolRegistry, object_schema
from homeclaw_cli.core.turn_ask import missing_values, plain_words
from homeclaw_cli.core.turn_calls import ModelMove, TurnState


@pytest.mark.parametrize(
    "value", ["New York", "London", "Hello, world!", "miles", "Saint-Malo", "your_city_name"]
)
def test_words_a_user_could_have_typed(value: str) -> None:
    assert plain_words(value)


@pytest.mark.parametrize(
    "value",
    ["UTC", "gbp", "US/Los_Angeles", "notes.txt", "SGVsbG8gd29ybGQ=", "/home/user", "B12", ""],
)
def test_identifiers_codes_and_paths_are_no_guess_of_a_place(value: str) -> None:
    assert not plain_words(value)


async def _unused(_: dict[str, Any]) -> ToolOutcome:
    raise AssertionError("no call runs here")


def _state(message: str) -> TurnState:
    city = {"city": {"type": "string"}, "units": {"type": "string"}}
    tools = ToolRegistry(
        [
            Tool("weather__now", "Weather now.", object_schema(city, ["city"]), _unused, "plugin"),
            Tool(
                "calc__eval",
                "Evaluate.",
                object_schema({"x": {"type": "string"}}, ["x"]),
                _unused,
                "plugin",
            ),
            Tool("current_time", "Time.", object_schema(city, ["city"]), _unused),
        ]
    )
    user: ChatMessage = {"role": "user", "content": message}
    return TurnState(
        message, tools, True, [{"role": "system", "content": "Lyon"}, user], [], decide="auto"
    )


def _move(*calls: tuple[str, dict[str, Any]]) -> ModelMove:
    return ModelMove("", [LLMToolCall(name, args) for name, args in calls], "native", "")


def test_a_required_value_in_no_message_is_missing() -> None:
    state = _state("what is the weather")
    # "Lyon" is in the system prompt only: that is not the user saying it
    (missing,) = missing_values(state, _move(("weather__now", {"city": "Lyon"})))
    assert (missing.parameter, missing.values) == ("city", ["Lyon"])


def test_what_is_not_missing() -> None:
    state = _state("what is the weather in paris")
    assert not missing_values(state, _move(("weather__now", {"city": "Paris"})))
    state = _state("what is the weather")
    # only an optional value made up; a built-in tool; one call of two has its value
    assert not missing_values(
        state, _move(("weather__now", {"city": "Berlin/3", "units": "kelvin"}))
    )
    assert not missing_values(state, _move(("current_time", {"city": "Oslo"})))
    both = _move(("weather__now", {"city": "Oslo"}), ("calc__eval", {"x": "weather"}))
    assert not missing_values(state, both)
    state.decide = "never"
    assert not missing_values(state, _move(("weather__now", {"city": "Oslo"})))
