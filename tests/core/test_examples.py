"""The rules an `examples` list must follow, and how author and generated examples merge."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.examples import (
    Example,
    ExampleError,
    check_examples,
    examples_hash,
    merge_examples,
)


def test_examples_are_trimmed_and_kept_in_order() -> None:
    assert check_examples(["  7 factorial pls ", "sqrt of 2"]) == ["7 factorial pls", "sqrt of 2"]
    assert check_examples(None) == []


@pytest.mark.parametrize(
    ("value", "index", "words"),
    [
        ("one request", None, "must be a list"),
        ([f"request {n}" for n in range(11)], None, "at most 10"),
        (["ok"], 0, "2 characters; write 3 to 200"),
        (["x" * 201], 0, "201 characters"),
        (["fine", 42], 1, "is a number"),
        (["fine", {"todo": "fix the bike"}], 1, "a colon followed by a space"),
        ([True], 0, "is true/false"),
        (["Weather in Paris", "weather  in paris"], 1, "repeats example 1"),
    ],
)
def test_each_broken_rule_names_the_item_and_the_fix(
    value: object, index: int | None, words: str
) -> None:
    with pytest.raises(ExampleError) as info:
        check_examples(value)
    assert info.value.index == index
    assert words in info.value.reason


def test_an_author_example_wins_over_a_generated_twin() -> None:
    author = [Example("convert 20 EUR to USD")]
    generated = [
        Example("Convert 20 eur to usd", "generated"),
        Example("how many yen is 5 dollars", "generated"),
    ]
    merged = merge_examples(author, generated)
    assert [(e.text, e.source) for e in merged] == [
        ("convert 20 EUR to USD", "author"),
        ("how many yen is 5 dollars", "generated"),
    ]
    assert examples_hash(merged) != examples_hash(author)
    assert Example.from_json(merged[1].to_json()) == merged[1]
