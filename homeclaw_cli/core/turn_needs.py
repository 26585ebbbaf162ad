"""The parts of a request that the turn's calls left unanswered.

Asked "how many km is 5 miles and what is 17 times 23", a small model calls one tool, for the
first need, and its result ends the turn: the calculator, offered too, is never called. Asked
for the rest in the same conversation, it answers from memory or mixes the two needs' values
("5 * 17 + 23"); asked the second part alone, it calls the calculator with 17 and 23
(benchmarks/llm/TURN.md, "Two needs in one message").

So each part of a one-sentence request (core/keywords.clauses) is searched alone. A called
plugin serves the part where it scores best, and so does a plugin scored within TWIN_GAP of
it there (two world clocks do one job). A part is open when no called plugin serves it, its
own best plugin scores at least `min_score` and was offered with the whole request, and no
called plugin or twin is that best plugin. A part that is only context ("I'm planning a trip
to Germany and ...") finds nothing that sure on its own. A request of several sentences is
left as the model answered it: its halves are mostly a context and an ask (of ToolAlpaca's
one-need requests, 12% would have a half asked alone, 1.4% a part of one sentence; TURN.md,
"Each need asked on its own").
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from homeclaw_cli.core.keywords import clauses, sentences
from homeclaw_cli.core.retrieval import RetrievalResult

PluginSearch = Callable[[str], RetrievalResult]
# Two plugins this close in the part a called one serves do the same job.
TWIN_GAP = 0.05


def open_needs(
    message: str,
    called: Collection[str],
    offered: Collection[str],
    search: PluginSearch,
    min_score: float,
) -> list[str]:
    """The parts of `message` that none of the `called` plugins serves, in order; at most one
    part per plugin."""
    if not called or len(sentences(message)) > 1:
        return []
    parts = clauses(message)
    found = [search(part) for part in parts]
    served: set[int] = set()
    covered = set(called)
    for plugin in called:
        scores = [(h.score, i) for i, res in enumerate(found) for h in res.hits if h.id == plugin]
        if not scores:
            continue
        score, where = max(scores)
        served.add(where)
        covered |= {h.id for h in found[where].hits if abs(h.score - score) <= TWIN_GAP}
    needs: list[str] = []
    for i, (part, res) in enumerate(zip(parts, found, strict=True)):
        if i in served or res.fallback or not res.hits:
            continue
        best = res.hits[0]
        if best.score < min_score or best.id in covered or best.id not in offered:
            continue
        covered.add(best.id)
        needs.append(part)
    return needs
