"""'Did you mean ...?' for misspelled names (fields, config keys, plugin ids)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """Return the candidate closest to `word`, or None when nothing is close enough."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=cutoff)
    return matches[0] if matches else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """A ready-to-append hint such as ' (did you mean `description`?)', or ''."""
    match = closest(word, candidates)
    return f" (did you mean `{match}`?)" if match else ""
