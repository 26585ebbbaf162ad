"""The parts of a request that the turn's calls left unanswered.

Asked "how many km is 5 miles and what is 17 times 23", a small model calls one tool, for the
first need, and its result ends the turn: the calculator, offered too, is never called. Asked
for the rest in the same conversation, it answers from memory or mixes the two needs' values
("5 * 17 + 23"); asked the second part alone, it calls the calculator with 17 and 23
(benchmarks/llm/TURN.md, "Two needs in one message").

So each part of the request (core/keywords.clauses) is searched alone. A part is open when
retrieval is confident of a plugin for it (its best scores at least `min_score`) and none of
the plugins the turn called is among those it offers: the calls served another need. A part
that is only context ("I'm planning a trip to Germany and ...") finds nothing confident on
its own, and one a called plugin serves ("my meeting is at 3pm in London, what time is that
in New York?") offers that plugin.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from homeclaw_cli.core.keywords import clauses
from homeclaw_cli.core.retrieval import RetrievalResult

PluginSearch = Callable[[str], RetrievalResult]


def open_needs(
    message: str, called: Collection[str], search: PluginSearch, min_score: float
) -> list[str]:
    """The parts of `message` that none of the `called` plugins serves, in order."""
    if not called:
        return []
    needs: list[str] = []
    for part in clauses(message):
        found = search(part)
        if found.fallback or not found.hits or found.hits[0].score < min_score:
            continue
        if any(hit.id in called for hit in found.hits):
            continue
        needs.append(part)
    return needs
