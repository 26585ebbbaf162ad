"""`homeclaw eval retrieval QUERIES.jsonl`: recall@k, MRR and misses for the plugin index.

Each line: {"query": "...", "expected": ["plugin-id", ...], "tags": [...]} (tags optional).
A query counts as found at k when any expected id is among the top k candidates (ranked
before the threshold, so recall measures ranking and `none`/threshold figures measure the
cut separately). A query that expects several ids (a request with two needs) also counts for
complete@5: all of them among the top 5. Queries with `expected: []` score on whether nothing
was kept; a line without `expected` is an error, not a silent no-plugin query.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.app.jsonl_file import read_jsonl_lines
from homeclaw_cli.errors import NotFoundError, UsageError, problems_error
from homeclaw_cli.settings import Settings
from homeclaw_cli.suggest import did_you_mean

KS = (1, 3, 5)
COMPLETE_K = 5


@dataclass
class EvalQuery:
    query: str
    expected: list[str]
    tags: list[str] = field(default_factory=list)
    line: int = 0


@dataclass
class QueryOutcome:
    query: EvalQuery
    ranked: list[str]
    kept: list[str]
    first_rank: int | None  # 1-based rank of the first expected id among candidates

    def hit(self, k: int) -> bool:
        return self.first_rank is not None and self.first_rank <= k

    def complete(self, k: int) -> bool:
        """Every expected id among the top `k` candidates."""
        return set(self.query.expected) <= set(self.ranked[:k])


@dataclass
class Scores:
    count: int = 0
    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    reciprocal: float = 0.0
    multi: int = 0  # queries that expect several ids
    complete: int = 0  # of those, with every expected id in the top COMPLETE_K

    def add(self, outcome: QueryOutcome) -> None:
        self.count += 1
        for k in KS:
            self.hits[k] += outcome.hit(k)
        if outcome.first_rank:
            self.reciprocal += 1.0 / outcome.first_rank
        if len(set(outcome.query.expected)) > 1:
            self.multi += 1
            self.complete += outcome.complete(COMPLETE_K)

    def to_json(self) -> dict[str, Any]:
        n = max(self.count, 1)
        data: dict[str, Any] = {"queries": self.count}
        for k in KS:
            data[f"recall@{k}"] = round(self.hits[k] / n, 4)
        data["mrr"] = round(self.reciprocal / n, 4)
        data["multi"] = self.multi
        data[f"complete@{COMPLETE_K}"] = (
            round(self.complete / self.multi, 4) if self.multi else None
        )
        return data


@dataclass
class EvalReport:
    method: str
    overall: Scores
    by_tag: dict[str, Scores]
    misses: list[dict[str, Any]]
    kept_recall: float  # share of answerable queries with an expected id among the kept hits
    none_correct: int  # `expected: []` queries where nothing was kept
    none_total: int
    avg_kept: float
    seconds: float
    latency_ms_p50: float

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "overall": self.overall.to_json(),
            "by_tag": {t: s.to_json() for t, s in sorted(self.by_tag.items())},
            "kept_recall": round(self.kept_recall, 4),
            "none_rejected": f"{self.none_correct}/{self.none_total}",
            "avg_kept": round(self.avg_kept, 2),
            "seconds": round(self.seconds, 2),
            "latency_ms_p50": round(self.latency_ms_p50, 2),
            "misses": self.misses,
        }


LINE_FORMAT = 'one JSON object per line: {"query": "...", "expected": ["plugin-id"]}'
FORMAT_HINT = f'{LINE_FORMAT}; "expected": [] for a query that needs no plugin'


def read_queries(path: Path) -> list[EvalQuery]:
    """Parse a JSONL file of labelled queries; one error names every bad line and its fix."""
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "no such file"
        raise NotFoundError(f"{path}: {what}", hint="pass a .jsonl file of labelled queries")
    queries, problems = [], []
    for number, line in enumerate(read_jsonl_lines(path, FORMAT_HINT), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{number}: not valid JSON ({exc.msg})")
            continue
        problem = _line_problem(data)
        if problem:
            problems.append(f"{path}:{number}: {problem}")
            continue
        tags = data.get("tags", [])
        queries.append(EvalQuery(data["query"], data["expected"], [str(t) for t in tags], number))
    if problems:
        raise problems_error(f"{path}: {len(problems)} bad lines", problems, FORMAT_HINT)
    if not queries:
        raise UsageError(f"{path}: no queries in the file", hint=FORMAT_HINT)
    return queries


def _line_problem(data: Any) -> str | None:
    """What one parsed line lacks, in the words of its fix."""
    if not isinstance(data, dict):
        return f"not a JSON object; {LINE_FORMAT}"
    query = data.get("query")
    if not isinstance(query, str):
        return "no `query` string: the request a user would type"
    if not query.strip():
        return "the `query` is empty: give the request a user would type"
    if "expected" not in data:
        return (
            "no `expected`: list the plugin ids a right search finds, "
            'or "expected": [] for a query that needs no plugin'
        )
    expected = data["expected"]
    if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
        return '`expected` must be a list of plugin ids, e.g. ["weather"]'
    return None


def unknown_expected(settings: Settings, queries: list[EvalQuery], path: Path) -> list[str]:
    """A warning for each expected id that is no installed plugin: its queries can only miss."""
    from homeclaw_cli.catalog.registry import scan
    from homeclaw_cli.catalog.skills import scan_skills

    plugins = scan(settings).plugins
    lines: dict[str, list[int]] = defaultdict(list)
    for item in queries:
        for plugin_id in dict.fromkeys(item.expected):
            if plugin_id not in plugins:
                lines[plugin_id].append(item.line)
    skills = scan_skills(settings).skills if lines else {}
    warnings = []
    for plugin_id, numbers in lines.items():
        where = ", ".join(map(str, numbers[:5])) + (", ..." if len(numbers) > 5 else "")
        why = (
            "is a skill, and eval retrieval ranks plugins"
            if plugin_id in skills
            else f"is no installed plugin{did_you_mean(plugin_id, plugins)}"
        )
        warnings.append(f"{path}:{where}: expected {plugin_id!r} {why}, so the query can only miss")
    return warnings


def evaluate(
    settings: Settings, queries: list[EvalQuery], *, method: str | None = None
) -> EvalReport:
    from homeclaw_cli.app.retrieval import RetrievalService

    service = RetrievalService(settings, method=method)
    started = time.perf_counter()
    overall = Scores()
    by_tag: dict[str, Scores] = defaultdict(Scores)
    misses: list[dict[str, Any]] = []
    latencies: list[float] = []
    kept_found = answerable = none_ok = none_total = kept_total = 0
    for item in queries:
        result = service.search_plugins(item.query)
        latencies.append(result.timings.get("total", 0.0))
        ranked = [c.id for c in result.candidates]
        kept = [h.id for h in result.hits]
        kept_total += len(kept)
        if not item.expected:
            none_total += 1
            none_ok += not kept
            continue
        answerable += 1
        kept_found += any(e in kept for e in item.expected)
        first = next((i for i, pid in enumerate(ranked, 1) if pid in item.expected), None)
        outcome = QueryOutcome(item, ranked, kept, first)
        overall.add(outcome)
        for tag in item.tags:
            by_tag[tag].add(outcome)
        if not outcome.hit(5):
            misses.append(
                {
                    "line": item.line,
                    "query": item.query,
                    "expected": item.expected,
                    "got": ranked[:5],
                    "rank": first,
                }
            )
    latencies.sort()
    return EvalReport(
        method=service.method("plugin"),
        overall=overall,
        by_tag=dict(by_tag),
        misses=misses,
        kept_recall=kept_found / max(answerable, 1),
        none_correct=none_ok,
        none_total=none_total,
        avg_kept=kept_total / max(len(queries), 1),
        seconds=time.perf_counter() - started,
        latency_ms_p50=1000 * latencies[len(latencies) // 2] if latencies else 0.0,
    )
