"""The parts of a request that the turn's calls left unanswered.

Asked "how many km is 5 miles and what is 17 times 23", a small model calls one tool, for the
first need, and its result ends the turn: the calculator, offered too, is never called. Asked
for the rest in the same conversation, it answers from memory or mixes the two needs' values
("5 * 17 + 23"); asked the second part alone, it calls the calculator with 17 and 23
(benchmarks/llm/TURN.md, "Two needs in one message").

So each part of the request is searched alone. The parts of a one-sentence request are its
clauses (core/keywords.clauses). A request of several sentences has a part for each sentence
that opens with another need ("Also, ...", "Then ...", "Additionally ...": keywords.
need_sentences), its text from there to the next such sentence; without one, it has none: its
sentences are mostly a context and an ask ("I need to plan for the weather in Asheville. Can
you get the forecast for KAVL?").

A called plugin serves the part where it scores best, and every part where it scores within
SERVE_GAP of that part's best; so does a plugin scored within TWIN_GAP of it where it scores
best (two world clocks do one job). A part is open when no called plugin serves it, its own
best plugin scores at least `min_score` and was offered with the whole request, and no called
plugin or twin is that best plugin. A part that is only context ("I'm planning a trip to
Germany and ...") finds nothing that sure on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from homeclaw_cli.core.keywords import clauses, need_sentences, sentences
from homeclaw_cli.core.ports import TextSink
from homeclaw_cli.core.retrieval import RetrievalResult
from homeclaw_cli.core.turn_calls import TurnState

PluginSearch = Callable[[str], RetrievalResult]
# Two plugins this close in the part a called one serves do the same job.
TWIN_GAP = 0.05
# A called plugin this close to a part's best match does what that part asks too.
SERVE_GAP = 0.1


def need_parts(message: str) -> list[str]:
    """The parts of `message` that could each be a need of its own ([] for one need)."""
    return clauses(message) if len(sentences(message)) == 1 else need_sentences(message)


def open_needs(
    message: str,
    called: Collection[str],
    offered: Collection[str],
    search: PluginSearch,
    min_score: float,
) -> list[str]:
    """The parts of `message` that none of the `called` plugins serves, in order; at most one
    part per plugin."""
    parts = need_parts(message) if called else []
    found = [search(part) for part in parts]
    served, covered = _served(found, called)
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


def _served(found: list[RetrievalResult], called: Collection[str]) -> tuple[set[int], set[str]]:
    """The parts (by index) the `called` plugins serve, and those plugins with their twins."""
    served: set[int] = set()
    covered = set(called)
    for plugin in called:
        scores = [(h.score, i) for i, res in enumerate(found) for h in res.hits if h.id == plugin]
        if not scores:
            continue
        score, where = max(scores)
        served.add(where)
        covered |= {h.id for h in found[where].hits if abs(h.score - score) <= TWIN_GAP}
    for i, res in enumerate(found):
        best = max((h.score for h in res.hits), default=None)
        near = (c for c in res.candidates if c.id in called)
        if best is not None and any(c.score >= best - SERVE_GAP for c in near):
            served.add(i)
    return served, covered


def join_part(state: TurnState, part: TurnState, on_text: TextSink | None) -> bool:
    """Add the answer to a part asked alone to the turn's when a plugin served the part, or
    failed for it: the part's failure fails the turn as a failed call does, so the user hears
    what went wrong rather than nothing. A part answered from memory, or stopped, is left out;
    True when the answer joined."""
    answer, failed = part.answer, part.pending_failure
    if part.stopped or not (part.final_calls or failed):
        return False
    state.pending_failure = state.pending_failure or failed
    if not answer:
        return False
    if on_text is not None:
        on_text(f"\n\n{answer}" if state.answer else answer)
    state.answer = "\n\n".join(a for a in (state.answer, answer) if a)
    return True
