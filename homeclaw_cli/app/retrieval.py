"""Retrieve the plugins and skills a query needs, from the index (never by rescanning folders).

Used by `homeclaw plugin search`, `homeclaw skill search`, `homeclaw eval retrieval`, the chat
loop and the MCP server. One service per process: the LanceDB connection and the query
embedder are opened on first use and reused.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.facets import EXAMPLE, NAME, Fusion
from homeclaw_cli.adapters.vector_store import SnapshotReader, VectorStore, open_store
from homeclaw_cli.app.not_for import mark_not_for
from homeclaw_cli.core.keywords import clauses, need_sentences, search_words
from homeclaw_cli.core.retrieval import (
    COMPLETE_MIN_WORDS,
    Candidate,
    Kind,
    Match,
    RetrievalHit,
    RetrievalResult,
    fallback_names,
    keyword_saturation,
    name_bonus,
    rank_candidates,
    shared_name_words,
)
from homeclaw_cli.errors import HomeclawError, LockedError, UsageError
from homeclaw_cli.settings import RetrievalSettings, Settings
from homeclaw_cli.state.health import HealthStore

# How many candidates each search returns before the policy ranks them.
MIN_POOL = 20
# The best candidates get their matching example and capability ranking worked out.
EXPLAINED = 8
# Each clause of a two-need request adds its best few candidates (more adds noise: a stray
# word of one clause, "drive", lifts an unrelated plugin).
CLAUSE_TOP = 1
# How far under the request's best a clause's best may rank (see _keep_best).
CLAUSE_STEP = 0.001
# A clause's best joins only when the whole request ranks it within this of its own best: a
# context clause ("I'm planning a trip to Japan") finds a plugin nobody asked for. Measured in
# benchmarks/retrieval/RESULTS.md ("Clause splitting"): 0.15 to 0.6 fewer offered, same recall.
CLAUSE_REACH = 0.3
# ... unless it scores this much in its clause, as a request that needs no plugin never does:
# "7 factorial pls and generate 3 uuids" ranks the calculator 0.43 under hashkit, 0.39 alone.
CLAUSE_SURE = 0.35


class RetrievalService:
    def __init__(
        self, settings: Settings, *, method: str | None = None, health: HealthStore | None = None
    ) -> None:
        self.settings = settings
        self.health = health or HealthStore(settings.state_dir)
        self.store: VectorStore = open_store(settings)
        self._method = method
        self._embedder: Any = None
        self._readers: dict[str, tuple[str, SnapshotReader]] = {}

    def reader(self, table: str) -> SnapshotReader | VectorStore:
        """The current snapshot of `table` when there is one (no lancedb import), else LanceDB."""
        root = self.store.snapshot_root
        if root is None:
            return self.store
        self.store.ensure_fresh(table)
        try:
            generation = (root / table / "current").read_text(encoding="utf-8").strip()
        except OSError:
            return self.store
        cached = self._readers.get(table)
        if cached and cached[0] == generation:
            return cached[1]
        snapshot = self.store.snapshot(table)
        if snapshot is None:
            return self.store
        reader = SnapshotReader(snapshot)
        self._readers[table] = (generation, reader)
        return reader

    def _check_model(self, reader: SnapshotReader | VectorStore, table: str) -> None:
        configured = self.settings.embedding.model
        indexed = reader.model if isinstance(reader, SnapshotReader) else reader.index_model(table)
        if indexed and indexed != configured:
            raise HomeclawError(
                f"the index was embedded with {indexed!r} but embedding.model is {configured!r}",
                hint="run `homeclaw sync` to re-embed with the configured model",
            )

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        """The plugins for `query`: kept hits best first, plus every candidate with a reason."""
        return self._search("plugin", query, limit)

    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        return self._search("skill", query, limit)

    # -- internals -----------------------------------------------------------------------

    def section(self, kind: Kind) -> RetrievalSettings:
        return self.settings.plugins if kind == "plugin" else self.settings.skills

    def method(self, kind: Kind) -> str:
        return self._method or self.section(kind).method

    def embed_query(self, query: str) -> list[float]:
        from homeclaw_cli.adapters.embedder import query_embedder
        from homeclaw_cli.app.sync import models_dir

        if self._embedder is None:
            self._embedder = query_embedder(
                models_dir(self.settings),
                self.settings.embedding.model,
                self.settings.embedding.batch_size,
                int8=self.settings.embedding.int8_queries,
            )
        vector: list[float] = self._embedder.embed([query])[0].tolist()
        return vector

    def _search(self, kind: Kind, query: str, limit: int | None) -> RetrievalResult:
        started = time.perf_counter()
        section = self.section(kind)
        table = section.table
        method = self.method(kind)
        if not query.strip():
            raise UsageError("the search query is empty", hint="pass some words to search for")
        cap = limit if limit is not None else _cap(section)
        timings: dict[str, float] = {}
        if not section.use_vector_search:
            from homeclaw_cli.app.first_n import first_n

            return first_n(self, kind, query, cap, started)

        pool = max(MIN_POOL, section.max_retrieved * 4)
        reader = self.reader(table)
        if method != "fts":
            self._check_model(reader, table)
        fusion = Fusion(section.fusion, section.fusion_weight, section.fusion_centroid)
        search = _Search(reader, table, method, pool, fusion)
        dense, keyword, vector = self._matches(search, query, timings)
        shared = functools.cache(lambda: _shared_name_words(search))
        words = search_words(query)
        naming = _Naming(set(words), section.name_bonus, shared)
        # One keyword scale for the request and its clauses, whose candidates rank together.
        saturation = keyword_saturation(len(words))
        candidates = self._scored(search, kind, saturation, naming, (dense, keyword, vector))
        more = bool(need_sentences(query))  # "Additionally, ...": a need, no context
        for n, clause in enumerate(clauses(query) if section.split_clauses else []):
            part = self._scored(search, kind, saturation, naming, self._matches(search, clause, {}))
            _keep_best(candidates, _best_of(part, method, CLAUSE_TOP), method, more and n > 0)
        self.drop_stale(table, candidates)
        _mark_complete(search, query, candidates, section.similarity_threshold)
        t0 = time.perf_counter()
        kept, everything = rank_candidates(
            list(candidates.values()),
            kind=kind,
            method=method,
            threshold=section.similarity_threshold,
            max_in_prompt=cap,
            margin=section.relative_margin,
            best_threshold=section.similarity_threshold + section.best_over_threshold,
        )
        everything = everything[: max(pool, len(kept))]
        if vector:
            for hit in everything[:EXPLAINED]:
                _explain_facets(hit, reader.facet_scores(table, hit.id, vector))
        timings["rank"] = time.perf_counter() - t0
        fallback = not kept
        names: list[str] = []
        if fallback:
            count = section.max_retrieved * 2
            names = fallback_names(everything, [], count)
            if len(names) < count:  # e.g. fts found nothing: offer what exists
                ids = sorted(reader.ids(table))
                names = fallback_names(everything, ids, count)
        timings["total"] = time.perf_counter() - started
        timings["search"] = timings.get("dense", 0.0) + timings.get("keyword", 0.0)
        return RetrievalResult(query, kept, everything, fallback, names, timings, method)

    def _matches(
        self, search: _Search, query: str, timings: dict[str, float]
    ) -> tuple[list[Match], list[Match], list[float]]:
        """(dense matches, keyword matches, the query vector) for `query`."""
        reader, table, method, pool, fusion = (
            search.reader,
            search.table,
            search.method,
            search.pool,
            search.fusion,
        )
        dense: list[Match] = []
        keyword: list[Match] = []
        vector: list[float] = []
        if method in ("dense", "hybrid"):
            t0 = time.perf_counter()
            vector = self.embed_query(query)
            timings["embed"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            dense = reader.dense(table, vector, pool, fusion)
            timings["dense"] = time.perf_counter() - t0
        if method in ("fts", "hybrid"):
            t0 = time.perf_counter()
            keyword = reader.keyword(table, query, pool)
            timings["keyword"] = time.perf_counter() - t0
        if method == "hybrid":
            have = {m.id for m in dense}
            missing = list(dict.fromkeys(m.id for m in keyword if m.id not in have))
            if missing:  # keyword-only candidates get their dense score too: one scale
                dense += reader.dense_for(table, missing, vector, fusion)
        return dense, keyword, vector

    def _scored(
        self,
        search: _Search,
        kind: Kind,
        saturation: float,
        naming: _Naming,
        found: tuple[list[Match], list[Match], list[float]],
    ) -> dict[str, Candidate]:
        """The candidates of one search (the request or a clause of it), with their name
        bonus, and marked when the search is nearer one of their not_for requests."""
        dense, keyword, vector = found
        candidates = naming.apply(self._candidates(kind, saturation, dense, keyword))
        mark_not_for(search.reader, search.table, vector, candidates)
        return candidates

    def _candidates(
        self, kind: Kind, saturation: float, dense: list[Match], keyword: list[Match]
    ) -> dict[str, Candidate]:
        """The candidates two searches found, each with both scores and the request's
        keyword saturation."""
        out: dict[str, Candidate] = {}
        for match in [*dense, *keyword]:
            cand = out.get(match.id)
            if cand is None:
                row = match.row
                cand = out[match.id] = Candidate(
                    match.id,
                    match.descriptor,
                    status=row.get("status") or "ok",
                    detail=row.get("status_detail") or "",
                    saturation=saturation,
                )
        for match in dense:
            out[match.id].dense = match.score
            out[match.id].facet = match.facet
        for match in keyword:
            out[match.id].keyword = match.score
        if kind == "plugin":
            self.apply_health(out)
        return out

    def apply_health(self, candidates: dict[str, Candidate]) -> None:
        """Plugins whose last health check or call failed are dropped (the HealthStore)."""
        statuses = self.health.all()  # empty when nothing was checked (health is advisory)
        for cand in candidates.values():
            status = statuses.get(cand.id)
            if status is not None and not status.ok and cand.status == "ok":
                cand.status = "unhealthy"
                cand.detail = status.detail

    def drop_stale(self, table: str, candidates: dict[str, Candidate]) -> None:
        """Seed 002 §8.6: an id whose folder or registration is gone is deleted and skipped."""
        if self.store.remote:
            return  # a shared index holds other machines' paths; their syncs delete their rows
        gone = [c for c in candidates.values() if c.status == "ok" and _is_gone(self.settings, c)]
        if not gone:
            return
        for cand in gone:
            cand.status = "stale"
            cand.detail = "its folder or registration is gone; removed from the index"
        from homeclaw_cli.app.sync import index_lock_path
        from homeclaw_cli.fsutil import file_lock

        try:
            with file_lock(index_lock_path(self.settings), timeout=0, what="the index"):
                self.store.delete(table, [c.id for c in gone])
                self.store.refresh_snapshot(table)
        except LockedError:
            pass  # a sync is running and will remove them itself


@dataclass(frozen=True)
class _Search:
    """What every search of one request shares: the reader, table, method, pool, fusion."""

    reader: SnapshotReader | VectorStore
    table: str
    method: str
    pool: int
    fusion: Fusion


def _mark_complete(
    search: _Search, query: str, candidates: dict[str, Candidate], threshold: float
) -> None:
    """Mark the candidates only a weak keyword match lifts over the threshold that hold every
    meaningful word of the request (Candidate.complete): one keyword search per word, run
    only when there is such a candidate."""
    lifted = [c for c in candidates.values() if c.lifted(search.method, threshold)]
    if not lifted:
        return  # the common case: no words to look up
    words = list(dict.fromkeys(search_words(query)))
    if len(words) < COMPLETE_MIN_WORDS:
        return
    holding = {c.id for c in lifted}
    for word in words:
        holding &= {m.id for m in search.reader.keyword(search.table, word, search.pool)}
        if not holding:
            return
    for cand in lifted:
        cand.complete = cand.id in holding


def _keep_best(
    into: dict[str, Candidate], other: dict[str, Candidate], method: str, need: bool = False
) -> None:
    """A clause's candidates join the request's: each id keeps its better score and its
    smaller gap to the best match of a search (see Candidate.gap).

    A clause is shorter than the request, so its scores run higher: a clause's candidate ranks
    at most just under the request's own best (Candidate.ceiling); it is still cut by its own
    score. Otherwise a one-need request that only reads like two ("I'm planning a trip to
    Germany and I want to know about the airport") ranks first whatever its context clause
    finds. A `need` clause, a sentence that says it is another need ("Additionally, fetch
    ..."), has no such ceiling. Nor does a candidate join when the whole request ranks it more
    than CLAUSE_REACH under its own best (or not at all), unless it scores CLAUSE_SURE in its
    clause."""
    _set_gaps(into, method)
    _set_gaps(other, method)
    top = max((c.rank(method) for c in into.values() if c.status == "ok"), default=None)
    for item, cand in other.items():
        mine = into.get(item)
        if mine is not None and mine.status == "not_for":
            mine = None  # not for the whole request, but for this clause of it
        near = mine is not None and (mine.gap or 0.0) <= CLAUSE_REACH
        if not near and cand.final(method) < CLAUSE_SURE:
            continue
        if mine is not None and cand.final(method) <= mine.final(method):
            mine.gap = min(mine.gap or 0.0, cand.gap or 0.0)  # cut against its clause's best
            continue
        # it takes the request's place: never under the rank the request gave it
        if top is not None and not need:
            below = top - (cand.gap or 0.0) - CLAUSE_STEP
            cand.ceiling = below if mine is None else max(below, mine.rank(method))
        if mine is not None:
            cand.gap = min(cand.gap or 0.0, mine.gap or 0.0)
        into[item] = cand


def _shared_name_words(search: _Search) -> frozenset[str]:
    """A snapshot keeps its own (it never changes); LanceDB's are worked out each time."""
    reader = search.reader
    if isinstance(reader, SnapshotReader):
        return reader.shared_name_words
    return shared_name_words(reader.ids(search.table))


@dataclass(frozen=True)
class _Naming:
    """The name bonus of one request: its words, the bonus, and how to get the words no one
    id owns (asked only when there are candidates: without an index, nothing opens LanceDB)."""

    words: set[str]
    bonus: float
    shared: Callable[[], frozenset[str]]

    def apply(self, candidates: dict[str, Candidate]) -> dict[str, Candidate]:
        """Give the candidates whose id or name the query uses the name bonus."""
        if self.bonus and candidates:
            shared = self.shared()
            for cand in candidates.values():
                name = str(cand.fields.get("name", ""))
                cand.bonus = name_bonus(self.words, cand.id, name, self.bonus, shared)
        return candidates


def _best_of(candidates: dict[str, Candidate], method: str, count: int) -> dict[str, Candidate]:
    """The `count` best usable candidates (gaps set against the best of all)."""
    _set_gaps(candidates, method)
    usable = [c for c in candidates.values() if c.status == "ok"]
    usable.sort(key=lambda c: -c.final(method))
    return {c.id: c for c in usable[:count]}


def _set_gaps(candidates: dict[str, Candidate], method: str) -> None:
    scores = {i: c.final(method) for i, c in candidates.items()}
    usable = [scores[i] for i, c in candidates.items() if c.status == "ok"]
    best = max(usable, default=0.0)
    for item, cand in candidates.items():
        if cand.gap is None:
            cand.gap = best - scores[item]


def _cap(section: RetrievalSettings) -> int:
    """How many hits a prompt gets: max_retrieved, further capped by max_in_prompt (0 = none)."""
    if section.max_in_prompt:
        return min(section.max_retrieved, section.max_in_prompt)
    return section.max_retrieved


def _is_gone(settings: Settings, cand: Candidate) -> bool:
    descriptor = cand.descriptor
    if "location" in descriptor:  # a skill: its SKILL.md
        return not Path(str(descriptor["location"])).is_file()
    if descriptor.get("source") == "external":
        from homeclaw_cli.state.external_registrations import read_external_plugins

        manifests, _ = read_external_plugins(settings.external_plugins_file)
        return all(m.id != cand.id for m in manifests)
    manifest_path = descriptor.get("manifest_path")
    return bool(manifest_path) and not Path(str(manifest_path)).is_file()


def _explain_facets(hit: RetrievalHit, facets: list[tuple[dict[str, Any], float]]) -> None:
    """Name the example (or brand-like name) that matched `hit` best and rank its
    capabilities (best first)."""
    matches = [f for f, _ in facets if f.get("kind") in (EXAMPLE, NAME)]
    if matches:
        hit.matched = str(matches[0]["text"])
        source = NAME if matches[0]["kind"] == NAME else matches[0].get("source") or "author"
        hit.matched_source = str(source)
    best: dict[str, float] = {}
    for facet, score in facets:
        capability = facet.get("capability")
        if capability and score > best.get(capability, -2.0):
            best[capability] = score
    manifest = hit.descriptor.get("manifest") or {}
    declared = [str(c["id"]) for c in manifest.get("capabilities", [])]
    if len(declared) > 1:
        order = {cap: n for n, cap in enumerate(declared)}
        hit.capabilities = sorted(declared, key=lambda c: (-best.get(c, -2.0), order[c]))
