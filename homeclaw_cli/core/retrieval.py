"""Retrieval policy: from dense and keyword matches to the few descriptors a prompt gets.

Pure functions over plain data, so the policy is tested without LanceDB or a model.

Methods (measured on benchmarks/retrieval, see RESULTS.md there):
  dense   cosine similarity of the query and descriptor embeddings
  fts     BM25 over the descriptor text (LanceDB full-text index)
  hybrid  dense similarity plus a bounded bonus for keyword evidence (the default)

Every candidate gets a final `score`; candidates are ranked by it, then cut by the
similarity threshold and by max_in_prompt. Ineligible, unhealthy and stale candidates are
dropped with the reason, so `--explain` and `/why` can show why something was not offered.

RetrievalResult and RetrievalHit are the one result shape of every retrieval: the index
(app/retrieval.py), the keyword fallback (core/keywords.py) and every consumer use them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

Kind = Literal["plugin", "skill"]
METHODS: tuple[str, ...] = ("dense", "fts", "hybrid")

KEPT = "kept"
BELOW_THRESHOLD = "below threshold"
TOP_K_CUT = "top-k cut"
INELIGIBLE = "ineligible"
UNHEALTHY = "unhealthy"
STALE = "stale"
NOT_FOR = "not for this request"
# The method of a result when vector search is off: no ranking, the first usable ids.
FIRST_N = "first-n (vector search off)"

# Hybrid: score = dense + KEYWORD_WEIGHT * bm25 / (bm25 + saturation).
# The bonus is bounded (< KEYWORD_WEIGHT), so it can lift an exact name or term over
# near-misses without letting a keyword-only match clear the threshold on its own.
KEYWORD_WEIGHT = 0.25
KEYWORD_SATURATION = 4.0
# BM25 adds up over the request's words, so a long request's matches all score high and a
# fixed saturation gives them nearly the same bonus: past 8 meaningful words the saturation
# grows by this much per word (benchmarks/retrieval/RESULTS.md, "Keyword saturation").
KEYWORD_SATURATION_PER_WORD = 0.5
# A weaker keyword match ranks a candidate but does not lift it over the threshold: BM25
# under 3 is one or two common words shared ("try to explain"), which alone put a plugin in
# front of the model for 13 of the 77 Vicuna questions, all needing none. Measured in
# benchmarks/retrieval/RESULTS.md ("Weak keyword matches"): no recall lost on any set.
# BM25's scale grows with the index, though: in a handful of skills, "uncommitted changes"
# found in git-summary's text scores 2.4. So a complete match counts as well: every
# meaningful word of the request, at least COMPLETE_MIN_WORDS, is in the candidate's text.
KEYWORD_ADMIT = 3.0
COMPLETE_MIN_WORDS = 2
# fts alone has no similarity scale: its score is bm25 / (bm25 + saturation), in [0, 1).
FTS_SCALE = 1.0
# Besides the absolute threshold, a candidate more than this far below the best one is
# dropped: on the eval set it halves what reaches the prompt for 1 point of recall.
RELATIVE_MARGIN = 0.15
# Words in plugin names that name no particular plugin.
_GENERIC_NAME_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "for",
        "to",
        "in",
        "on",
        "my",
        "your",
        "plugin",
        "tool",
        "tools",
        "api",
        "app",
        "kit",
        "mcp",
        "cli",
        "server",
        "client",
        "search",
        "list",
        "get",
        "set",
        "info",
        "data",
        "manager",
    ]
)


@dataclass
class Match:
    """One row found by one search of the index (dense or full-text), before the policy."""

    id: str
    score: float  # cosine similarity (fused with facets) for dense search, BM25 for full-text
    row: dict[str, Any]
    facet: float | None = None  # the best facet's cosine, when the row has facets

    @property
    def descriptor(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.row["descriptor"])
        return value


@dataclass
class RetrievalHit:
    """One ranked candidate: kept for the prompt, or dropped with the reason why."""

    id: str
    kind: Kind
    score: float
    dense_score: float | None
    keyword_score: float | None
    rank: int
    kept: bool
    reason: str
    descriptor: dict[str, Any] = field(default_factory=dict)
    facet_score: float | None = None  # the closest example or capability text's cosine
    matched: str | None = None  # that text, e.g. the example request that matched best
    # the example's author | generated (sync --expand), or name: the plugin's own name,
    # embedded alone because it reads as a brand
    matched_source: str | None = None
    capabilities: list[str] = field(default_factory=list)  # best first, when several

    def to_json(self, *, with_descriptor: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not with_descriptor:
            data.pop("descriptor")
        return data


@dataclass
class RetrievalResult:
    """The kept hits best first, every candidate with its reason, and the fallback names
    offered when nothing was kept."""

    query: str
    hits: list[RetrievalHit]
    candidates: list[RetrievalHit]
    fallback: bool = False
    fallback_names: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    method: str = "hybrid"

    @property
    def ids(self) -> list[str]:
        """The kept ids, best first."""
        return [h.id for h in self.hits]

    @property
    def ranked(self) -> bool:
        """Whether the hits were ranked by the request (not so with vector search off)."""
        return self.method != FIRST_N

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "method": self.method,
            "ranked": self.ranked,
            "hits": [self._hit_json(h, with_descriptor=True) for h in self.hits],
            "fallback": self.fallback,
            "fallback_names": self.fallback_names,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }
        if explain:
            data["candidates"] = [self._hit_json(h) for h in self.candidates]
        return data

    def _hit_json(self, hit: RetrievalHit, *, with_descriptor: bool = False) -> dict[str, Any]:
        data = hit.to_json(with_descriptor=with_descriptor)
        if not self.ranked:
            data["score"] = None  # nothing was scored: 0.0 would read as "no match"
        return data


@dataclass
class Candidate:
    """One id seen by either search, before the policy runs."""

    id: str
    descriptor: dict[str, Any]
    dense: float | None = None
    keyword: float | None = None
    status: str = "ok"  # ok | ineligible | unhealthy | stale | not_for
    detail: str = ""
    facet: float | None = None
    # How far below the best match it is; for a two-need request, in the search (the whole
    # request or one clause) where it came closest, so each need keeps its plugin.
    gap: float | None = None
    bonus: float = 0.0  # the query names it (see name_bonus)
    complete: bool = False  # every meaningful word of the request is in its text
    # Found by one clause of a request: the highest place it may rank (see app/retrieval.py).
    ceiling: float | None = None
    # The keyword bonus's saturation for the request (see keyword_saturation).
    saturation: float = KEYWORD_SATURATION

    def final(self, method: str) -> float:
        """The score it is cut by under `method`."""
        extra = self.bonus if method == "hybrid" else 0.0
        return final_score(method, self.dense, self.keyword, self.saturation) + extra

    @property
    def fields(self) -> dict[str, Any]:
        """What its author wrote: a plugin's manifest, a skill's frontmatter fields."""
        manifest: dict[str, Any] = self.descriptor.get("manifest") or self.descriptor
        return manifest

    def rank(self, method: str) -> float:
        """The score it is ranked by: the final one, under its ceiling when it has one."""
        score = self.final(method)
        return score if self.ceiling is None else min(score, self.ceiling)

    def admission(self, method: str) -> float:
        """The score the threshold is checked against: the final one, less a keyword bonus
        too weak to count (under KEYWORD_ADMIT, and not a complete match)."""
        weak = keyword_bonus(self.keyword, self.saturation) if self.weak(method) else 0.0
        return self.final(method) - weak

    def weak(self, method: str) -> bool:
        """True when its keyword match ranks it but must not lift it over the threshold."""
        if method != "hybrid" or self.keyword is None or self.complete:
            return False
        return self.keyword < KEYWORD_ADMIT

    def lifted(self, method: str, threshold: float) -> bool:
        """True when only a weak keyword match puts it over `threshold`: a complete match
        (Candidate.complete) would keep it."""
        return self.weak(method) and self.admission(method) < threshold <= self.final(method)


def name_bonus(
    query_words: set[str],
    item_id: str,
    name: str,
    bonus: float,
    shared: frozenset[str] = frozenset(),
) -> float:
    """`bonus` when a word of the query is a word of the id or the name ("docker logs",
    "todo: dentist"): a terse request that names a plugin should find it first. A word in
    several ids (`shared`, see shared_name_words) names none of them and earns nothing."""
    words = _name_words(f"{item_id} {name}") - _GENERIC_NAME_WORDS - shared
    return bonus if query_words & words else 0.0


def shared_name_words(ids: Iterable[str]) -> frozenset[str]:
    """The words of more than one id. In a catalogue of 1,413 APIs "weather" is in 5 ids and
    "ip" in 10; giving each of them the bonus put the wrong one first
    (benchmarks/public/RESULTS.md, "ToolAlpaca")."""
    counts = Counter(word for item in ids for word in _name_words(item))
    return frozenset(word for word, count in counts.items() if count > 1)


def _name_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1}


def keyword_saturation(words: int) -> float:
    """The saturation of the keyword bonus for a text of `words` meaningful words."""
    return max(KEYWORD_SATURATION, KEYWORD_SATURATION_PER_WORD * words)


def keyword_bonus(bm25: float | None, saturation: float = KEYWORD_SATURATION) -> float:
    """The hybrid bonus for a BM25 score: grows with it, always below KEYWORD_WEIGHT."""
    if not bm25 or bm25 <= 0:
        return 0.0
    return KEYWORD_WEIGHT * bm25 / (bm25 + saturation)


def final_score(
    method: str,
    dense: float | None,
    bm25: float | None,
    saturation: float = KEYWORD_SATURATION,
) -> float:
    """The score a candidate is ranked and thresholded by under `method` (`saturation`
    applies to the hybrid bonus; fts keeps one scale for its threshold)."""
    if method == "dense":
        return dense if dense is not None else -1.0
    if method == "fts":
        return FTS_SCALE * keyword_bonus(bm25) / KEYWORD_WEIGHT
    return (dense if dense is not None else 0.0) + keyword_bonus(bm25, saturation)


def rank_candidates(
    candidates: list[Candidate],
    *,
    kind: Kind,
    method: str,
    threshold: float,
    max_in_prompt: int,
    margin: float = RELATIVE_MARGIN,
    best_threshold: float | None = None,
) -> tuple[list[RetrievalHit], list[RetrievalHit]]:
    """(kept hits best first, every candidate with its reason), ranked by Candidate.rank.
    Nothing is kept unless the best candidate that clears `threshold` reaches
    `best_threshold` as well (when given)."""
    scored = sorted(candidates, key=lambda c: (-c.rank(method), c.id))
    everything: list[RetrievalHit] = []
    kept: list[RetrievalHit] = []
    usable = [c.final(method) for c in scored if c.status == "ok"]
    floor = max(threshold, (max(usable) - margin) if usable else threshold)
    weak_best = _weak_best(scored, method, threshold, best_threshold)
    for position, cand in enumerate(scored, start=1):
        score = cand.final(method)
        if cand.status != "ok":
            reasons = {
                "ineligible": INELIGIBLE,
                "unhealthy": UNHEALTHY,
                "stale": STALE,
                "not_for": NOT_FOR,
            }
            reason = reasons.get(cand.status, cand.status)
            if cand.detail:
                reason = f"{reason}: {cand.detail}"
        elif score < threshold or (method == "fts" and not cand.keyword):
            reason = BELOW_THRESHOLD
        elif cand.admission(method) < threshold:
            reason = f"{BELOW_THRESHOLD}: only a weak keyword match lifts it over"
        elif weak_best:
            reason = f"{BELOW_THRESHOLD}: the best match is under {best_threshold:.3g}"
        elif (score < floor) if cand.gap is None else cand.gap > margin:
            reason = f"{BELOW_THRESHOLD}: more than {margin} under the best match"
        elif max_in_prompt and len(kept) >= max_in_prompt:
            reason = TOP_K_CUT
        else:
            reason = KEPT
        hit = RetrievalHit(
            id=cand.id,
            kind=kind,
            score=round(score, 6),
            dense_score=None if cand.dense is None else round(cand.dense, 6),
            keyword_score=None if cand.keyword is None else round(cand.keyword, 6),
            rank=position,
            kept=reason == KEPT,
            reason=reason,
            descriptor=cand.descriptor,
            facet_score=None if cand.facet is None else round(cand.facet, 6),
        )
        everything.append(hit)
        if hit.kept:
            kept.append(hit)
    return kept, everything


def _weak_best(
    scored: list[Candidate], method: str, threshold: float, best_threshold: float | None
) -> bool:
    """True when candidates clear `threshold` but none reaches `best_threshold`: a request
    whose closest plugin is that far off needs none of them ("reserve a table for 5 at
    8pm" is 0.22 from a to-do list, 0.21 from the weather)."""
    if best_threshold is None or best_threshold <= threshold:
        return False
    # A weak keyword match cannot lift a candidate over this one either (Candidate.admission).
    admitted = [
        c.admission(method)
        for c in scored
        if c.status == "ok" and c.final(method) >= threshold and c.admission(method) >= threshold
    ]
    return bool(admitted) and max(admitted) < best_threshold


def cut_across(
    result: RetrievalResult, rival: RetrievalResult | None, margin: float
) -> RetrievalResult:
    """`result` without the hits more than `margin` under the best hit of `rival`, the other
    kind's retrieval (plugins and skills share one score scale). Each dropped hit keeps its
    reason among the candidates. In chat, "what's taking up space in ~/Downloads" finds the
    disk-usage skill at 0.73 and the files plugin at 0.24: a small model offered both calls
    the plugin, which cannot read that folder."""
    if rival is None or not rival.hits or not result.hits:
        return result
    if not (result.ranked and rival.ranked):  # unranked (vector search off): no shared scale
        return result
    best = rival.hits[0]
    floor = best.score - margin
    if all(h.score >= floor for h in result.hits):
        return result
    reason = f"{BELOW_THRESHOLD}: more than {margin} under the {best.kind} {best.id}"
    dropped = {h.id for h in result.hits if h.score < floor}
    candidates = [
        replace(h, kept=False, reason=reason) if h.id in dropped else h for h in result.candidates
    ]
    hits = [h for h in result.hits if h.id not in dropped]
    return replace(result, hits=hits, candidates=candidates)


def fallback_names(candidates: list[RetrievalHit], all_ids: list[str], limit: int) -> list[str]:
    """A compact list of ids to offer when nothing cleared the threshold.

    The best-scoring usable candidates first (they are still the best guesses), then other
    ids in index order, so the model can at least name what exists.
    """
    names = [h.id for h in candidates if not h.reason.startswith((INELIGIBLE, UNHEALTHY, STALE))]
    skip = {h.id for h in candidates if h.id not in names}
    for item in all_ids:
        if item not in names and item not in skip:
            names.append(item)
    return names[:limit]
