"""Whether an answer states current figures (a price, a rate, the time, today's date) that
nothing in the chat gave.

A model knows the world as it was when it was trained. Asked "how is shell's stock doing
today" or "what is the us dollar and euro exchange rate" with no plugin that fetches them,
small models answer "Shell S stock is currently trading at $10." or "The current exchange rate
between the US dollar and the euro is approximately 1.10.", and the user reads a figure of
today. So do they for the date, though their prompt holds today's ("The current date is
2023-04-18.").

What counts: a sentence that names a value that changes (price, rate, stock, points, fare,
temperature, time, ...), states a figure that neither the conversation nor the user's facts
gave, and speaks of the present ("currently", "today", "as of"), or answers a request that
does or that asks for an exchange rate or a stock price. A figure worked out from the user's
own numbers is no current figure unless the sentence is about such a value too ("10 euros is
11 dollars" is not caught; "at the current rate of 1.10" is).
"""

from __future__ import annotations

import re

from homeclaw_cli.core.figures import figures_beyond

_PRESENT = re.compile(
    r"\b(?:today|tonight|now|current|currently|latest|live|at the moment|at present|presently"
    r"|as of|these days|trending|so far|this (?:week|morning|afternoon|evening|month|year))\b",
    re.IGNORECASE,
)
# Values a request about them means as of now, whatever its words say of time.
_ALWAYS_CURRENT = re.compile(
    r"\b(?:exchange\s+rates?|(?:stock|share)\s+prices?|stock\s+market)\b", re.IGNORECASE
)
# The words of a value that changes; "time" only as the clock's ("the time in Tokyo is"), not
# "it's time to add 2 cups", and points only as an index's level ("5,400 points"), not "3 points
# to consider".
_CHANGING_VALUE = re.compile(
    r"\b(?:prices?|priced|rates?|trad(?:es|ed|ing)|stocks?|fares?|temperatures?|forecast"
    r"|weather|scores?|date|degrees|worth|costs?|today\s+is|local\s+time|time\s+(?:is|in|now))\b"
    r"|\b\d[\d,]{2,}(?:\.\d+)?\s+points\b|°",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def current_figures(answer: str, request: str, given: str) -> list[str]:
    """The sentences of `answer` that state a current figure `given` (the conversation and
    the user's facts) does not hold, as an answer to `request`."""
    now = asks_now(request)
    return [
        sentence.strip()
        for sentence in _SENTENCE_END.split(answer)
        if _CHANGING_VALUE.search(sentence)
        and (now or _PRESENT.search(sentence) or _ALWAYS_CURRENT.search(sentence))
        and figures_beyond(sentence, given)
    ]


def asks_now(request: str) -> bool:
    """Whether `request` asks about the present ("today", "currently", "latest") or a value
    that is always today's (an exchange rate, a stock price)."""
    return bool(_PRESENT.search(request) or _ALWAYS_CURRENT.search(request))
