"""The figures a text states, written in digits or in words ("twelve times eight": 96 or
"ninety-six"), for telling a request that carries numbers and an answer that worked one out."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # "10,000" is the 10000 a request gave
_UNITS = re.findall(
    r"\w+",
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen",
)
_UNIT_ORDINALS = re.findall(
    r"\w+",
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth",
)
_TENS = re.findall(r"\w+", "twenty thirty forty fifty sixty seventy eighty ninety")
# "one" is left out: it is a pronoun as often ("which one", "one of them").
_COUNTED = [_UNITS[0], *_UNITS[2:], *_TENS, "hundred", "thousand", "million", "billion"]
_NUMBER_WORD = re.compile(rf"\b(?:{'|'.join(_COUNTED)})\b")


def figures(text: str) -> set[str]:
    """The figures in `text`: digit runs ("86.4", "16", "10,000") and number words ("ninety",
    "six")."""
    found = set(_DIGITS.findall(_THOUSANDS_COMMA.sub("", text)))
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
_VALUES = {
    **{word: n for n, word in enumerate(_UNITS)},
    **{word: n for n, word in enumerate(_UNIT_ORDINALS)},
    **{word: 20 + 10 * n for n, word in enumerate(_TENS)},
    **{word[:-1] + "ieth": 20 + 10 * n for n, word in enumerate(_TENS)},
}
_SPELLED = re.compile(
    rf"\b({'|'.join(_TENS)})(?:[\s-]+({'|'.join(_UNITS[1:10] + _UNIT_ORDINALS[1:10])}))?\b"
    rf"|\b({'|'.join(sorted(_VALUES, key=len, reverse=True))})\b"
)


def spelled_figures(text: str) -> set[str]:
    """The numbers `text` spells, in digits: "twenty third" 23, "sixteenth" 16, "eight" 8."""
    found = set()
    for tens, unit, alone in _SPELLED.findall(text.lower()):
        found.add(str(_VALUES[tens] + _VALUES.get(unit, 0) if tens else _VALUES[alone]))
    return found


def figures_beyond(answer: str, given: str) -> set[str]:
    """The figures `answer` states that `given` does not, in digits or spelt out there ("the
    iphone eight": 8), single digits too ("5°C"), but not a list's numbering ("1. Check")."""
    return figures(_LIST_MARKER.sub(" ", answer)) - figures(given) - spelled_figures(given)
