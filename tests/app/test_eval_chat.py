"""Scoring pieces of `eval chat`: argument matching, leaked-call detection, thresholds."""

from __future__ import annotations

import pytest

from homeclaw_cli.app.eval_chat import (
    args_match,
    leaked_call,
    parse_thresholds,
    value_matches,
)
from homeclaw_cli.errors import UsageError


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        (5, 5.0, True),
        (5, "5", True),
        (8.04672, 8.046720000001, True),
        (5, 6, False),
        ("km", "KM ", True),
        ("km", "kilometers", False),
        (["km", "kilometers"], "Kilometers", True),
        (["a", "b"], ["A", "b"], True),
        (["a", "b"], ["a"], False),
        (True, "true", True),
        (True, False, False),
        ({"x": 1}, {"x": 1, "y": 2}, True),
    ],
)
def test_value_matches(expected: object, actual: object, ok: bool) -> None:
    assert value_matches(expected, actual) is ok


def test_args_match_is_a_subset_check() -> None:
    assert args_match({"value": 5}, {"value": 5, "from_unit": "mi"})
    assert not args_match({"value": 5, "to_unit": "km"}, {"value": 5})
    assert not args_match({"value": 5}, "value=5")


@pytest.mark.parametrize(
    ("answer", "leaked"),
    [
        ('{"name": "units__convert", "arguments": {"value": 5}}', True),
        ('```json\n{"name": "factorial", "arguments": {"n": 7}}\n```', True),
        ('Sure! {"name": "shout_it_out", "parameters": {"text": "x"}}', True),
        ("<tool_call>\nsomething\n</tool_call>", True),
        ("5 miles is 8.05 km.", False),
        ('The JSON {"name": "Ada"} has one key.', False),
        ("", False),
    ],
)
def test_leaked_call(answer: str, leaked: bool) -> None:
    assert leaked_call(answer, ["units__convert"]) is leaked


def test_thresholds() -> None:
    assert parse_thresholds(["plugin=0.9", "answer=85%", "no-plugin=1"], 0) == {
        "plugin": 0.9,
        "answer": 0.85,
        "no_plugin": 1.0,
        "leaked_calls": 0.0,
    }
    for bad in ("plugin", "speed=0.5", "plugin=2", "plugin=high"):
        with pytest.raises(UsageError, match="METRIC=RATE"):
            parse_thresholds([bad], None)
