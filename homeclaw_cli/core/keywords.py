"""Words of a query or a descriptor, and ranking by word overlap when there is no index.

The words feed both keyword searches: the query snapshot's BM25 (adapters/query_cache.py)
and the chat's fallback when the index is missing, locked or damaged (app/keyword_fallback.py),
so both drop the same stop words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from itertools import pairwise
from typing import Any

from homeclaw_cli.core.retrieval import (
    BELOW_THRESHOLD,
    KEPT,
    TOP_K_CUT,
    Kind,
    RetrievalHit,
    RetrievalResult,
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Where a request with two needs usually joins them ("weather in Paris and convert 20 EUR").
# Punctuation breaks only before a space or the end: "john.doe@example.com", "2.5 km" and
# "example.com/a,b" are one word each.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[;,.!?](?=\s|$)\s*(?:and\s+|then\s+|also\s+|plus\s+)?|\s(?:and|then|also|plus|&)\s+)",
    re.IGNORECASE,
)
# Where a sentence ends: "Thanks! What's 5 km in miles?" ("2.5", "john.doe" do not end one).
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
# How a sentence that asks for one more thing opens ("... Also, what time is it in Tokyo?").
_ANOTHER_NEED = re.compile(
    r"(?:also|and|plus|additionally|in addition|then|next|after that|afterwards|besides|"
    r"finally|lastly|moreover|furthermore|on top of that|separately)\b[\s,:]*",
    re.IGNORECASE,
)
MIN_CLAUSE_WORDS = 2
MAX_CLAUSES = 3
# Words that carry no intent; BM25 would give them a little weight everywhere.
_STOP = """a an and are as at be but by can could do does for from get give have how i i'd i'm
in is it it's me my of on or please show tell that the their them then there these this
to up us was we what whats when where which who why will with would you your"""
STOP_WORDS = frozenset(_STOP.split())
# A message of these words alone, one of them thanks, closes a topic: "thanks!", "ok great,
# thank you". "yes", "ok" or "great" alone may answer the model's question, so they read on.
_THANKS = frozenset({"thanks", "thank", "thx", "ty", "cheers", "appreciated", "appreciate"})
_CLOSING = """you ok okay great cool perfect nice awesome got it alright good fine sounds much bye
lot so very a again for that s the help all wow lovely brilliant excellent amazing super no"""
_ACKNOWLEDGING = _THANKS | frozenset(_CLOSING.split())
FOLLOW_UP_WORDS = 8  # a message this short is retrieved together with the previous one
# With no hit, this many of the best-scoring ids are offered by name.
FALLBACK_NAMES = 20

Descriptors = Callable[[str], dict[str, Any]]


def fold(text: str) -> str:
    """Lowercase and strip accents, so `café` matches `cafe`."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def search_words(text: str) -> list[str]:
    """The folded words of `text` that carry meaning: no stop words, no single letters."""
    words = _WORD.findall(fold(text))
    return [w for w in words if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())]


def clauses(text: str) -> list[str]:
    """The parts of a request that could each be a need of its own, when there are several.

    A request of several sentences is cut before each sentence that opens with another need
    (need_sentences); without one, in two halves at the sentence break nearest its middle: a
    user who asks for two things in sentences usually gives each its own context ("I'm off to
    Japan next month. What is 100 USD in yen? My phone died, too. Can you find a repair shop
    in Kyoto?"), and cutting at every comma left only pieces of the first need.
    A one-sentence request splits at `and`, `then`, `also`, `plus`, `&` and punctuation.
    Either way a part with fewer than MIN_CLAUSE_WORDS meaningful words joins the one before
    it ("salt and pepper" stays whole). Returns [] when nothing splits; never more than
    MAX_CLAUSES parts. A part that is only context finds little on its own, and the search
    (app/retrieval.py) keeps a part's best match only when the whole request is near it or
    the part alone is sure of it.
    """
    whole = sentences(text)
    if len(whole) > 1:
        middle = (len(whole) + 1) // 2
        return need_sentences(text) or [" ".join(whole[:middle]), " ".join(whole[middle:])]
    parts = _joined_parts(_CLAUSE_BREAK.split(text))
    return parts[:MAX_CLAUSES] if len(parts) > 1 else []


def need_sentences(text: str) -> list[str]:
    """`text` cut before each sentence that opens with another need ("Also, ...", "Then ...",
    "Lastly ..."), those opening words left out; [] when no sentence after the first does.
    At most MAX_CLAUSES parts."""
    whole = sentences(text)
    starts = [i for i, sentence in enumerate(whole) if i and _ANOTHER_NEED.match(sentence)]
    if not starts:
        return []
    bounds = [0, *starts, len(whole)]
    parts = [" ".join(whole[start:end]) for start, end in pairwise(bounds)]
    rest = (_ANOTHER_NEED.sub("", part, count=1) for part in parts[1:])
    return [parts[0], *rest][:MAX_CLAUSES]


def sentences(text: str) -> list[str]:
    """The sentences of `text`, one with fewer than MIN_CLAUSE_WORDS meaningful words joined
    to the one before ("Thanks! What's 5 km in miles?" is one)."""
    return _joined_parts(_SENTENCE_BREAK.split(text))


def _joined_parts(pieces: list[str]) -> list[str]:
    """`pieces` stripped, each with fewer than MIN_CLAUSE_WORDS meaningful words joined to
    the one before it (or the first to the one after)."""
    parts: list[str] = []
    for raw in pieces:
        piece = raw.strip()
        if not piece:
            continue
        short = min(len(search_words(piece)), len(search_words(parts[-1])) if parts else 9)
        if parts and short < MIN_CLAUSE_WORDS:
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return parts


class KeywordIndex:
    """Descriptor texts ranked by the share of the query's words they contain."""

    def __init__(self, kind: Kind, texts: Mapping[str, str]) -> None:
        self.kind: Kind = kind
        # The id counts as text too: "home-assistant" matches "home assistant".
        self._words = {
            item: _overlap_words(f"{text} {item.replace('-', ' ')}") for item, text in texts.items()
        }

    def rank(self, query: str, *, cap: int, descriptor: Descriptors) -> RetrievalResult:
        """Every id ranked by overlap (then id); the first `cap` with any overlap are kept.

        `descriptor` is asked only for the kept ids.
        """
        words = _overlap_words(query)
        scored = sorted(
            ((len(words & doc) / max(len(words), 1), item) for item, doc in self._words.items()),
            key=lambda pair: (-pair[0], pair[1]),
        )
        candidates: list[RetrievalHit] = []
        for rank, (score, item) in enumerate(scored, 1):
            reason = BELOW_THRESHOLD if score <= 0 else TOP_K_CUT if rank > cap else KEPT
            candidates.append(
                RetrievalHit(
                    id=item,
                    kind=self.kind,
                    score=score,
                    dense_score=None,
                    keyword_score=score,
                    rank=rank,
                    kept=reason == KEPT,
                    reason=reason,
                )
            )
        hits = [h for h in candidates if h.kept]
        for hit in hits:
            hit.descriptor = descriptor(hit.id)
        names = [] if hits else [h.id for h in candidates[:FALLBACK_NAMES]]
        return RetrievalResult(query, hits, candidates, not hits, names, method="keyword")


def _overlap_words(text: str) -> frozenset[str]:
    # Unlike BM25, plain overlap cannot weigh a word by its rarity: a lone digit ("at 6")
    # would match every id or version that ends in that digit.
    return frozenset(w for w in search_words(text) if len(w) > 1)


def reads_on(message: str) -> bool:
    """True for a message short enough to be read with the previous one ("and in pounds?"),
    unless it only thanks ("thanks!", "ok, got it, thank you"): that asks nothing of the
    previous request's plugin."""
    return len(message.split()) < FOLLOW_UP_WORDS and not only_thanks(message)


def only_thanks(message: str) -> bool:
    """True for a message of thanks and closing words alone ("ok, thanks a lot!")."""
    said = {w.casefold() for w in _WORD.findall(message)}
    return bool(said & _THANKS) and said <= _ACKNOWLEDGING
