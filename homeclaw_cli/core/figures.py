"""The figures a text states, written in digits or in words ("twelve times eight": 96 or
"ninety-six"), for telling a request that carries numbers and an answer that worked one out."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"\d+(?:\.\d+)?")
# "one" is left out: it is a pronoun as often ("which one", "one of them").
_NUMBER_WORD = re.compile(
    r"\b(?:zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|thousand|million|billion)\b"
)


def figures(text: str) -> set[str]:
    """The figures in `text`: digit runs ("86.4", "16") and number words ("ninety", "six")."""
    found = set(_DIGITS.findall(text))
    found.update(_NUMBER_WORD.findall(text.lower()))
    return found


def holds_figures(text: str) -> bool:
    """Whether `text` states a number, in digits or in words."""
    return bool(figures(text))


def new_figures(answer: str, message: str) -> bool:
    """Whether `answer` states a figure `message` did not give: a decimal, a whole number of two
    digits or more (a list's "1." is no result), or a number word."""
    given = figures(message)
    return any(f not in given and (not f.isdigit() or len(f) > 1) for f in figures(answer))


_LIST_MARKER = re.compile(r"(?m)^\s*\d+[.)]\s")


def figures_beyond(answer: str, given: str) -> set[str]:
    """The figures `answer` states that `given` does not, single digits too ("5°C"), but not a
    list's numbering ("1. Check the connection")."""
    return figures(_LIST_MARKER.sub(" ", answer)) - figures(given)
