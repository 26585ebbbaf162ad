"""Generated example requests (`homeclaw sync --expand`): generation time and retrieval with vs.
without them, with the real small model (benchmarks/llm).

    python benchmarks/bench_expand.py [--llm-host URL] [--sets own,toollens] [--out FILE]

Per corpus, two HOMECLAW_HOMEs under ~/.cache/homeclaw-bench/expand/ (kept, so a rerun reuses
the generated examples and costs no LLM call):
  <corpus>-plain : `homeclaw sync`, then `homeclaw eval retrieval` (no examples)
  <corpus>       : `homeclaw sync --expand` (the model writes examples from each descriptor
                   alone, never from the queries), then the same evals
Corpora: `own` (benchmarks/retrieval, 80 plugins, 585 queries) and a reduced public set
(`toollens` by default): `--queries` test queries sampled with a fixed seed, every plugin they
expect, plus distractors up to `--plugins` in all: random ones, or with `--hard` the ones the
default retrieval ranks highest for those queries on the whole set (so the reduced corpus keeps
the competitors that decide the top ranks). Generating for a whole public set (450 to 1,413
plugins) is too slow on a shared 2-core CPU; before and after are scored on the same reduced
corpus. Without --llm-host, one llama.cpp server is started (benchmarks/llm/server.py,
1 thread: the machine is shared). The load average is recorded with every generation figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE / "public"))

from convert import write_queries  # noqa: E402  (benchmarks/public/convert.py)
from run import complete_at_5, homeclaw  # noqa: E402  (benchmarks/public/run.py)

CACHE = Path.home() / ".cache" / "homeclaw-bench"
SEED = 20261124
MODEL = "qwen2.5-coder-1.5b-instruct"


def reduce_set(
    source: Path, out: Path, *, queries: int, plugins: int, hard: bool = False, seed: int = SEED
) -> Path:
    """A smaller copy of a converted public set: sampled queries, their plugins, distractors
    (random ones, or with `hard` the ones retrieval confuses with the expected plugins)."""
    rng = random.Random(seed)
    lines = [json.loads(x) for x in (source / "queries.jsonl").read_text().splitlines() if x]
    kept = sorted(rng.sample(range(len(lines)), min(queries, len(lines))))
    chosen = [lines[i] for i in kept]
    needed = sorted({pid for q in chosen for pid in q["expected"]})
    room = max(0, plugins - len(needed))
    if hard:
        extra = hard_distractors(source, chosen, room)
    else:
        others = sorted(p.name for p in (source / "plugins").iterdir() if p.name not in needed)
        extra = rng.sample(others, min(room, len(others)))
    if out.exists():
        shutil.rmtree(out)
    (out / "plugins").mkdir(parents=True)
    for pid in [*needed, *extra]:
        shutil.copytree(source / "plugins" / pid, out / "plugins" / pid)
    write_queries(out, chosen)
    return out


def hard_distractors(source: Path, queries: list[dict[str, Any]], count: int) -> list[str]:
    """The `count` plugins the default retrieval ranks highest for `queries` on the whole set
    that no query expects (1/rank summed over each query's top 20): the competitors a reduced
    corpus keeps so that its top ranks look like the full set's."""
    sys.path.insert(0, str(HERE / "retrieval"))
    from variants import rankings, settings_for, sync  # benchmarks/retrieval/variants.py

    settings = settings_for(
        CACHE / "expand-corpora" / f"{source.name}-full", source / "plugins", {}
    )
    sync(settings, kinds=["plugins"])
    ranks, _ = rankings(settings, queries)
    needed = {pid for query in queries for pid in query["expected"]}
    weight: Counter[str] = Counter()
    for ranked in ranks:
        for rank, (pid, _score) in enumerate(ranked, 1):
            if pid not in needed:
                weight[pid] += 1 / rank
    return [pid for pid, _ in weight.most_common(count)]


def own_corpus(out: Path) -> Path:
    """benchmarks/retrieval with a pairs file (one line per expected plugin of each query)."""
    source = HERE / "retrieval"
    out.mkdir(parents=True, exist_ok=True)
    link = out / "plugins"
    if link.is_symlink() and link.resolve() != (source / "plugins").resolve():
        link.unlink()  # made by another checkout (perhaps one removed since)
    if not link.exists():
        link.symlink_to(source / "plugins", target_is_directory=True)
    lines = [json.loads(x) for x in (source / "queries.jsonl").read_text().splitlines() if x]
    write_queries(out, lines)
    return out


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def score(binary: str, home: Path, corpus: Path) -> dict[str, Any]:
    """R@1, R@5, MRR, complete@5 of `homeclaw eval retrieval` (default method) in `home`."""
    plugins = corpus / "plugins"
    lines = (corpus / "queries.jsonl").read_text().splitlines()
    multi = {f"q{n}" for n, x in enumerate(lines, 1) if len(json.loads(x)["expected"]) > 1}
    main = homeclaw(binary, home, plugins, "eval", "retrieval", str(corpus / "queries.jsonl"))
    pairs = homeclaw(
        binary, home, plugins, "eval", "retrieval", str(corpus / "queries_pairs.jsonl")
    )
    complete, _ = complete_at_5(pairs, multi)
    overall = main["overall"]
    return {
        "queries": overall["queries"],
        "multi": len(multi),
        "recall@1": overall["recall@1"],
        "recall@5": overall["recall@5"],
        "mrr": overall["mrr"],
        "complete@5": round(complete, 4),
    }


def covered_corpus(corpus: Path, home: Path, out: Path) -> Path:
    """`corpus` cut down to the plugins `home` has generated examples for, and the queries
    whose expected plugins are all among them (when a generation run was stopped early)."""
    done = {p.stem for p in (home / "data" / "index" / "examples" / "plugins").glob("*.json")}
    if out.exists():
        shutil.rmtree(out)
    (out / "plugins").mkdir(parents=True)
    for folder in sorted((corpus / "plugins").iterdir()):
        if folder.name in done:
            shutil.copytree(folder, out / "plugins" / folder.name)
    lines = [json.loads(x) for x in (corpus / "queries.jsonl").read_text().splitlines() if x]
    kept = [q for q in lines if set(q["expected"]) <= done]
    write_queries(out, kept)
    return out


def cached_seconds(home: Path) -> dict[str, Any]:
    """Generation time per plugin as recorded in the example cache (one entry per LLM call)."""
    per_item = []
    for file in (home / "data" / "index" / "examples" / "plugins").glob("*.json"):
        models = json.loads(file.read_text())["models"]
        per_item.append(sum(e["seconds"] for caps in models.values() for e in caps.values()))
    mean = sum(per_item) / len(per_item) if per_item else 0.0
    return {"items": len(per_item), "seconds_per_plugin": round(mean, 1)}


def run_corpus(
    binary: str, name: str, corpus: Path, llm_env: dict[str, str], *, generate: bool
) -> dict[str, Any]:
    """Plain and expanded homes for one corpus; their scores and the generation figures.

    generate=False scores with the examples already cached (no LLM call; a stopped
    generation run is then scored on the plugins it finished, see covered_corpus)."""
    plain, expanded = CACHE / "expand" / f"{name}-plain", CACHE / "expand" / name
    result: dict[str, Any] = {"corpus": name}
    for home in (plain, expanded):
        (home / "data").mkdir(parents=True, exist_ok=True)
    os.environ.update(llm_env)
    load_before = load_average()
    started = time.perf_counter()
    if generate:
        homeclaw(binary, expanded, corpus / "plugins", "sync", "--expand")
    else:
        corpus = covered_corpus(corpus, expanded, corpus.with_name(corpus.name + "-covered"))
    result["expand"] = {
        **cached_seconds(expanded),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "load_before": load_before,
        "load_after": load_average(),
    }
    for home in (plain, expanded):  # a plain sync attaches whatever the cache holds
        sync = homeclaw(binary, home, corpus / "plugins", "sync")
    result["plugins"] = sync["added"] + sync["updated"] + sync["unchanged"]
    result["without"] = score(binary, plain, corpus)
    result["with"] = score(binary, expanded, corpus)
    print(json.dumps(result), flush=True)
    return result


def markdown(results: list[dict[str, Any]]) -> str:
    """The RESULTS table: before/after per corpus, then generation cost."""
    out = [
        "| corpus | plugins | queries (multi) | examples | R@1 | R@5 | MRR | complete@5 |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        for label in ("without", "with"):
            f = r[label]
            complete = f"{f['complete@5']:.3f}" if f["multi"] else "-"
            out.append(
                f"| {r['corpus']} | {r['plugins']} | {f['queries']} ({f['multi']}) | {label} | "
                f"{f['recall@1']:.3f} | {f['recall@5']:.3f} | {f['mrr']:.3f} | {complete} |"
            )
    out += [
        "",
        "| corpus | plugins with generated examples | s per plugin (LLM time) |",
        "|---|---:|---:|",
    ]
    for r in results:
        e = r["expand"]
        out.append(f"| {r['corpus']} | {e['items']} | {e['seconds_per_plugin']} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Build the corpora, generate (or reuse) examples, score with and without them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="own,toollens", help="own and/or a public set name")
    parser.add_argument("--queries", type=int, default=30, help="public queries sampled")
    parser.add_argument("--plugins", type=int, default=100, help="public corpus size (<=150)")
    parser.add_argument(
        "--hard",
        action="store_true",
        help="distractors retrieval confuses with the expected plugins, not random ones",
    )
    parser.add_argument("--llm-host", help="a running OpenAI-compatible server (else start one)")
    parser.add_argument("--homeclaw", default=shutil.which("homeclaw") or "homeclaw")
    parser.add_argument("--out", type=Path, default=HERE / "EXPAND_RESULTS.json")
    parser.add_argument(
        "--no-generate",
        action="store_true",
        help="score with the cached examples only, on the plugins that have them",
    )
    args = parser.parse_args(argv)
    results = []
    with ExitStack() as stack:
        host = args.llm_host or "http://127.0.0.1:9"
        if args.llm_host is None and not args.no_generate:
            from benchmarks.llm.server import llm_server

            host = stack.enter_context(llm_server(port=0, threads=1)).base_url
        env = {
            "HOMECLAW_LLM__PROVIDER": "openai",
            "HOMECLAW_LLM__HOST": host,
            "HOMECLAW_MODEL": MODEL,
            "HOMECLAW_LLM__TIMEOUT_SEC": "900",
        }
        for name in args.sets.split(","):
            if name == "own":
                corpus = own_corpus(CACHE / "expand-corpora" / "own")
            else:
                size = f"{args.queries}q-{args.plugins}p" + ("-hard" if args.hard else "")
                corpus = CACHE / "expand-corpora" / f"{name}-{size}"
                if not (corpus / "queries.jsonl").exists():
                    reduce_set(
                        CACHE / "sets" / name,
                        corpus,
                        queries=args.queries,
                        plugins=args.plugins,
                        hard=args.hard,
                    )
            results.append(
                run_corpus(args.homeclaw, name, corpus, env, generate=not args.no_generate)
            )
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
