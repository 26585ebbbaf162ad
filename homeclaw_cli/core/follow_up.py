"""Whether a short message goes on from the previous request or asks something of its own.

"and in meters?", "what about sydney?", "lisbon?", "try again" say too little alone: they are
retrieved together with the request before them, and offered the plugin it used. "whats 12
times 12" after a unit conversion, "sha256 of hello" after the time in Tokyo are as short, but
ask for something else: read with the previous request, its plugin outranked theirs, and the
model was offered only the plugin it no longer needed (units was called with "none" as its
units). A short message is its own request when it opens with no word that carries on, has at
least two words that mean something, and finds on its own a plugin the previous turn did not
use. Bare places and days ("lisbon?", "tomorrow?", "in chicago?") find the clock or the
calendar on their own, so one meaningful word is never enough.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from homeclaw_cli.core.keywords import reads_on, search_words
from homeclaw_cli.core.retrieval import RetrievalResult

_CARRIES_ON = re.compile(
    r"^\W*(?:and|or|also|plus|then|same|what about|how about|what if)\b", re.IGNORECASE
)
MIN_OWN_WORDS = 2


def read_with(previous: str, message: str) -> str:
    """`message` after the previous request, when it is short enough to read on it."""
    if not previous or not reads_on(message):
        return message
    return f"{previous}\n{message}".strip()


def may_ask_anew(message: str) -> bool:
    """Whether a short message could be a request of its own (then it is searched alone)."""
    return not _CARRIES_ON.match(message) and len(search_words(message)) >= MIN_OWN_WORDS


def asks_anew(alone: RetrievalResult, previous_plugins: Sequence[str]) -> bool:
    """Whether the message's own retrieval found a plugin the previous turn did not use."""
    return any(hit.id not in previous_plugins for hit in alone.hits)
