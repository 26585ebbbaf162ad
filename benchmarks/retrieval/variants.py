"""Measure retrieval variants on one plugin set, in process: one sync, many query-time settings.

    python benchmarks/retrieval/variants.py PLUGINS QUERIES --home DIR [--examples FILE]
        [--embed-text full|description] [--sync-flag key=value ...]
        [--variant NAME key=value ...] [--curve] [--out FILE]

Syncs PLUGINS (copied with the examples of FILE added, when given) into DIR (reused when it
is already synced: an unchanged sync embeds nothing), then for each variant runs every query
of QUERIES with no cut (threshold -1, no margin, 20 kept) and scores the ranking:

* R@1 / R@5 / MRR: any expected plugin counts (as `homeclaw eval retrieval`);
* complete@5: share of the queries with several expected plugins that have all in the top 5;
* offered recall / avg offered: the cut the variant's settings would apply (threshold,
  relative margin, max_in_prompt), replayed on the same ranking.

`--curve` adds, per variant, offered recall against the average number offered for a grid of
thresholds, margins and caps (benchmarks/retrieval/CUT.md is written from it).
A variant is a name and settings in dotted form, e.g. `--variant max plugins.fusion=max`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from homeclaw_cli.app.eval_retrieval import read_queries as read_labelled  # noqa: E402
from homeclaw_cli.app.retrieval import RetrievalService  # noqa: E402
from homeclaw_cli.app.sync import sync  # noqa: E402
from homeclaw_cli.settings import Settings, load_settings  # noqa: E402

THRESHOLDS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
MARGINS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 2.0)
CAPS = (1, 2, 3, 4, 5)


def overlay(plugins: Path, examples: Path, target: Path) -> Path:
    """A copy of `plugins` with the examples of `examples` (id -> list, or -> {cap: list})."""
    wanted = yaml.safe_load(examples.read_text(encoding="utf-8")) or {}
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(plugins, target)
    for plugin_id, value in wanted.items():
        path = target / plugin_id / "plugin.yaml"
        manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(value, list):
            manifest["examples"] = value
        else:
            for cap in manifest.get("capabilities", []):
                if cap["id"] in value:
                    cap["examples"] = value[cap["id"]]
            if "_plugin" in value:
                manifest["examples"] = value["_plugin"]
        path.write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    return target


def settings_for(home: Path, plugins: Path, flags: dict[str, Any]) -> Settings:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMECLAW_")}
    env.update(HOMECLAW_HOME=str(home), HOMECLAW_NO_BUNDLED="1")
    return load_settings(flags=flags, env=env, cwd=home, extra_plugin_dirs=[plugins])


def rankings(
    settings: Settings, queries: list[dict[str, Any]]
) -> tuple[list[list[tuple[str, float]]], list[list[str]]]:
    """Every query's candidates (id, score) best first, and what the settings' cut offers."""
    service = RetrievalService(settings)
    ranks, offers = [], []
    for item in queries:
        result = service.search_plugins(item["query"], limit=20)
        ranks.append([(c.id, c.score) for c in result.candidates if c.reason[:5] != "inelig"])
        offers.append(service.search_plugins(item["query"]).ids)
    return ranks, offers


def offered(
    ranked: list[tuple[str, float]], threshold: float, margin: float, cap: int
) -> list[str]:
    """What the cut keeps: above the threshold, within `margin` of the best, at most `cap`."""
    if not ranked:
        return []
    floor = max(threshold, ranked[0][1] - margin)
    return [pid for pid, score in ranked if score >= floor][:cap]


def score(
    queries: list[dict[str, Any]],
    ranks: list[list[tuple[str, float]]],
    cut: tuple[float, float, int] | list[list[str]],
) -> dict[str, float]:
    """R@1, R@5, MRR, complete@5, offered recall and avg offered (answerable queries);
    `cut` is what was offered per query, or a (threshold, margin, cap) cut to replay."""
    n = r1 = r5 = rr = found = total_offered = multi = complete = 0.0
    none_empty = nones = 0
    for number, (item, ranked) in enumerate(zip(queries, ranks, strict=True)):
        ids = [pid for pid, _ in ranked]
        kept = cut[number] if isinstance(cut, list) else offered(ranked, *cut)
        expected = item["expected"]
        if not expected:
            nones += 1
            none_empty += not kept
            continue
        n += 1
        total_offered += len(kept)
        first = next((i for i, pid in enumerate(ids, 1) if pid in expected), None)
        r1 += first == 1
        r5 += first is not None and first <= 5
        rr += 1 / first if first else 0
        found += any(e in kept for e in expected)
        if len(expected) > 1:
            multi += 1
            complete += all(e in ids[:5] for e in expected)
    n = max(n, 1)
    return {
        "R@1": r1 / n,
        "R@5": r5 / n,
        "MRR": rr / n,
        "complete@5": complete / max(multi, 1),
        "offered_recall": found / n,
        "avg_offered": total_offered / n,
        "none_left_empty": none_empty / max(nones, 1),
    }


def curve(
    queries: list[dict[str, Any]], ranks: list[list[tuple[str, float]]]
) -> list[dict[str, Any]]:
    rows = []
    for t in THRESHOLDS:
        for m in MARGINS:
            for k in CAPS:
                figures = score(queries, ranks, (t, m, k))
                rows.append({"threshold": t, "margin": m, "cap": k, **figures})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plugins", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--examples", type=Path)
    parser.add_argument("--embed-text", default="full")
    parser.add_argument(
        "--sync-flag", nargs="+", default=[], help="settings for the sync too, e.g. key=value"
    )
    parser.add_argument("--variant", nargs="+", action="append", default=[])
    parser.add_argument("--curve", action="store_true")
    parser.add_argument("--tag", help="only queries with this tag")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    args.home.mkdir(parents=True, exist_ok=True)
    plugins = args.plugins.resolve()
    if args.examples:
        plugins = overlay(plugins, args.examples, args.home / "plugins-with-examples")
    base: dict[str, Any] = {"plugins.embed_text": args.embed_text}
    for pair in args.sync_flag:
        key, value = pair.split("=", 1)
        base[key] = yaml.safe_load(value)
    started = time.perf_counter()
    report = sync(settings_for(args.home, plugins, base), kinds=["plugins"])
    print(f"sync {report.seconds:.1f} s, embedded {len(report.added) + len(report.updated)}")
    queries = read_queries(args.queries)
    if args.tag:
        queries = [q for q in queries if args.tag in q.get("tags", [])]
    variants = args.variant or [["default"]]
    results: dict[str, Any] = {}
    for name, *pairs in variants:
        flags = dict(base)
        for pair in pairs:
            key, value = pair.split("=", 1)
            flags[key] = yaml.safe_load(value)
        settings = settings_for(args.home, plugins, flags)
        ranks, offers = rankings(settings, queries)
        results[name] = {"flags": flags, **score(queries, ranks, offers)}
        if args.curve:
            results[name]["curve"] = curve(queries, ranks)
        shown = {k: round(v, 3) for k, v in results[name].items() if isinstance(v, float)}
        print(name, json.dumps(shown), flush=True)
    finish(results, len(queries), started, args.out)
    return 0


def read_queries(path: Path) -> list[dict[str, Any]]:
    """The labelled queries of a JSONL file, read as `homeclaw eval retrieval` reads them (a bad
    line is named), as the dicts these scripts score."""
    return [{"query": q.query, "expected": q.expected, "tags": q.tags} for q in read_labelled(path)]


def finish(results: dict[str, Any], queries: int, started: float, out: Path | None) -> None:
    """The run's last line (queries, seconds, load) and, with `out`, the results as JSON."""
    print(f"{queries} queries, {time.perf_counter() - started:.0f} s, load {os.getloadavg()}")
    if out:
        out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
