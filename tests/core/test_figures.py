"""The figures a text states, in digits or words, and those an answer worked out itself."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.figures import (
    figures,
    figures_beyond,
    holds_figures,
    new_figures,
    spelled_figures,
)


def test_figures_in_digits_and_words() -> None:
    assert figures("Twelve times eight is ninety-six.") == {"twelve", "eight", "ninety", "six"}
    assert figures("3 ounces is about 86.4 g") == {"3", "86.4"}
    assert holds_figures("what is 1/2 of 5")
    assert not holds_figures("which one is better, tea or coffee")  # "one" is a pronoun too
    assert not holds_figures("a weighty question, often asked")  # no number inside words


def test_a_figure_of_the_answers_own() -> None:
    assert new_figures("3 ounces is approximately 86.4 grams.", "how many grams is 3 ounces")
    assert new_figures("7! is 5040", "7 factorial pls")
    assert new_figures("Twelve times eight is ninety-six.", "what is twelve times eight")
    assert new_figures("The sum is 21.", "what is the sum of eleven and ten")
    assert not new_figures("In the year 3000:\n1. Fusion\n2. Teleports", "the year 3000?")
    assert not new_figures("It depends on the ounce.", "how many grams is 3 ounces")
    assert not new_figures("Eight times twelve, you mean?", "what is twelve times eight")


def test_spelled_figures_in_digits() -> None:
    spoken = "the twenty third of march, the iphone eight, april sixteenth, forty-two, ninety"
    assert spelled_figures(spoken) == {"23", "8", "16", "42", "90"}


@pytest.mark.parametrize(
    ("answer", "given", "beyond"),
    [
        # the 1.5B model's answers after its plugin failed (benchmarks/llm/results)
        (
            "The weather is currently 70°F with a humidity of 50%.",
            "what's the weather",
            {"70", "50"},
        ),
        ("20 yen equals 0.028311 usd", "20 yen equals how many dollars", {"0.028311"}),
        ("The time in Las Vegas is 10:00 AM.", "tell me the time in las vegas", {"10", "00"}),
        ("It is 5°C.", "weather in Oslo", {"5"}),  # one digit is a result too
        # what the user or the failure gave, spelt or not, and a list's numbering
        ("The iPhone 8 news could not be fetched.", "news about the iphone eight", set()),
        ("March 23 could not be looked up.", "what day is twenty third march", set()),
        ("The service said 503.", "weather in Oslo\nERROR: HTTP 503", set()),
        ("1. Check the network.\n2. Try again.", "weather in Oslo", set()),
    ],
)
def test_the_figures_an_answer_states_beyond_what_was_given(
    answer: str, given: str, beyond: set[str]
) -> None:
    assert figures_beyond(answer, given) == beyond


def test_a_thousands_comma_is_the_same_figure() -> None:
    assert figures("5,400 points and 14,000") == {"5400", "14000"}
    assert not figures_beyond("To exchange 10,000 yen", "how much is 10000 yen")
    assert figures("1,2,3") == {"1", "2", "3"}  # a list, not one number
