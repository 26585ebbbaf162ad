"""Sync each converted set into a temporary HOMECLAW_HOME and score dense, fts and hybrid.

    python benchmarks/public/run.py [--sets DIR] [--homeclaw PATH] [--out FILE] [SET ...]

Everything goes through the CLI: `homeclaw sync`, then `homeclaw eval retrieval --json` on
queries.jsonl (recall@1/@5, MRR: any expected tool counts) and on queries_pairs.jsonl, one
line per (query, expected tool) tagged q<N>, whose per-tag recall@5 is the share of query
N's tools in the top 5: complete@5 is the share of multi-tool queries where that is 1.
Writes RESULTS.md (and the figures as results.json next to it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_SETS = Path.home() / ".cache" / "homeclaw-bench" / "sets"
SETS = ("toollens", "toolbench-g1", "toolbench-g2", "toolbench-g3")
METHODS = ("dense", "fts", "hybrid")


@dataclass
class Row:
    """One set x method line of the results table."""

    set: str
    method: str
    figures: dict[str, Any]


def homeclaw(binary: str, home: Path, plugins: Path, *args: str) -> dict[str, Any]:
    """Run one CLI command with --json in `home` (also the cwd, so no ./plugins joins)."""
    env = {**os.environ, "HOMECLAW_HOME": str(home), "HOMECLAW_NO_BUNDLED": "1"}
    env.setdefault("HF_HUB_OFFLINE", "1")
    command = [binary, "--plugins-dir", str(plugins), *args, "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=home, env=env, capture_output=True, text=True)
    took = time.perf_counter() - started
    print(f"  {took:6.1f} s  {' '.join(args)}", file=sys.stderr, flush=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)["data"]  # the --json envelope's payload
    return result


def complete_at_5(pairs_report: dict[str, Any], multi: set[str]) -> tuple[float, float]:
    """(complete@5 over multi-tool queries, mean share of expected tools in the top 5)."""
    by_tag = pairs_report["by_tag"]
    shares = [tag["recall@5"] for tag in by_tag.values()]
    complete = [by_tag[name]["recall@5"] == 1.0 for name in multi]
    return sum(complete) / max(len(complete), 1), sum(shares) / max(len(shares), 1)


def score_set(binary: str, folder: Path, home: Path, models: Path) -> tuple[list[Row], float]:
    """Sync `folder`'s plugins into `home`, evaluate every method; (rows, sync seconds)."""
    (home / "data").mkdir(parents=True)
    (home / "data" / "models").symlink_to(models, target_is_directory=True)
    plugins = folder / "plugins"
    sync = homeclaw(binary, home, plugins, "sync")
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    multi = {f"q{n}" for n, line in enumerate(lines, 1) if len(json.loads(line)["expected"]) > 1}
    rows = []
    for method in METHODS:
        main = homeclaw(
            binary, home, plugins, "eval", "retrieval", str(folder / "queries.jsonl"),
            "--method", method,
        )  # fmt: skip
        pairs = homeclaw(
            binary, home, plugins, "eval", "retrieval", str(folder / "queries_pairs.jsonl"),
            "--method", method,
        )  # fmt: skip
        complete, share = complete_at_5(pairs, multi)
        overall = main["overall"]
        any5 = sum(t["recall@5"] > 0 for t in pairs["by_tag"].values()) / len(pairs["by_tag"])
        if abs(any5 - overall["recall@5"]) > 1e-3:  # both files must rank alike
            raise SystemExit(f"{folder.name} {method}: pairs say R@5 {any5}, queries say {overall}")
        figures = {
            "queries": overall["queries"],
            "multi": len(multi),
            "recall@1": overall["recall@1"],
            "recall@5": overall["recall@5"],
            "mrr": overall["mrr"],
            "complete@5": round(complete, 4),
            "tools@5": round(share, 4),
            "latency_ms_p50": main["latency_ms_p50"],
            "plugins": sync["added"] + sync["unchanged"],
        }
        rows.append(Row(folder.name, method, figures))
    return rows, float(sync["seconds"])


def markdown(rows: list[Row], syncs: dict[str, float], seconds: float, binary: str) -> str:
    """RESULTS.md: the table, what each column means and how to reproduce it."""
    head = "| set | plugins | queries (multi) | method | R@1 | R@5 | MRR | complete@5 | tools@5 |"
    out = [head, "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        f = row.figures
        out.append(
            f"| {row.set} | {f['plugins']} | {f['queries']} ({f['multi']}) | {row.method} | "
            f"{f['recall@1']:.3f} | {f['recall@5']:.3f} | {f['mrr']:.3f} | "
            f"{f['complete@5']:.3f} | {f['tools@5']:.3f} |"
        )
    sync_text = ", ".join(f"{name} {secs:.0f} s" for name, secs in syncs.items())
    table = "\n".join(out)
    return TEMPLATE.format(
        table=table, sync=sync_text, seconds=seconds, binary=binary, date=time.strftime("%Y-%m-%d")
    )


TEMPLATE = """# Public tool-retrieval results

homeclaw's plugin retrieval on public data it was not tuned on (sources, licences and the
conversion are in README.md). Run {date}, whole run {seconds:.0f} s (sync: {sync}).

{table}

* R@k: a query counts when any of its expected tools is among the first k candidates;
  MRR over the first expected tool (0 when none is in the 20-candidate pool).
* complete@5: share of the multi-tool queries (the number in brackets) whose expected tools
  are *all* in the top 5 (COLT's COMP@5). tools@5: mean share of a query's expected tools
  in the top 5, over all queries.
* Model all-MiniLM-L6-v2 (384 dimensions), homeclaw defaults otherwise; one plugin per API.

## Reproduce

```sh
# raw data into ~/.cache/homeclaw-bench (see README.md), then:
python benchmarks/public/convert.py          # -> ~/.cache/homeclaw-bench/sets/<set>/
python benchmarks/public/run.py --homeclaw {binary}
```

For each set run.py does, in a fresh temporary HOMECLAW_HOME (also the working directory)
with HOMECLAW_NO_BUNDLED=1:

```sh
homeclaw --plugins-dir SET/plugins sync --json
for m in dense fts hybrid; do
  homeclaw --plugins-dir SET/plugins eval retrieval SET/queries.jsonl --method $m --json
  homeclaw --plugins-dir SET/plugins eval retrieval SET/queries_pairs.jsonl --method $m --json
done
```
"""


def main(argv: list[str] | None = None) -> int:
    """Score the requested sets (default all four) and write the results files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"any of {', '.join(SETS)}")
    parser.add_argument("--sets-dir", type=Path, default=DEFAULT_SETS)
    parser.add_argument("--homeclaw", default=shutil.which("homeclaw") or "homeclaw")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    names = args.sets or list(SETS)
    missing = [n for n in names if not (args.sets_dir / n / "queries.jsonl").is_file()]
    if missing:
        parser.error(f"not converted yet: {', '.join(missing)} (run convert.py first)")
    started = time.perf_counter()
    rows: list[Row] = []
    syncs: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="homeclaw-pubbench-") as tmp:
        models = Path(tmp) / "models"
        models.mkdir()
        for name in names:
            set_rows, syncs[name] = score_set(
                args.homeclaw, args.sets_dir / name, Path(tmp) / name, models
            )
            rows.extend(set_rows)
            for row in set_rows:
                print(name, row.method, json.dumps(row.figures), flush=True)
    seconds = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(rows, syncs, seconds, args.homeclaw), encoding="utf-8")
    data = [{"set": r.set, "method": r.method, **r.figures} for r in rows]
    args.out.with_name("results.json").write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out} in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
