"""The figures a text states, in digits or words, and those an answer worked out itself."""

from __future__ import annotations

from homeclaw_cli.core.figures import figures, holds_figures, new_figures


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
