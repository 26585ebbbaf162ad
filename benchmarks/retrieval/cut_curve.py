"""Offered recall against the number of plugins offered, from variants.py --curve outputs.

    python benchmarks/retrieval/cut_curve.py NAME=RESULTS.json[:VARIANT] ... [--out CUT.md]

Every (threshold, relative margin, cap) cut is replayed on each set's no-cut ranking;
a cut's figures are the mean over the sets. The table lists, for each budget of plugins
offered on average, the cut with the best mean offered recall whose average stays within
that budget on *every* set, so no set pays for another's gain.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BUDGETS = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
# The default cut: the best mean offered recall that keeps every set within 4 offered (the
# issue's bound); a cut within TOLERANCE of it that offers fewer would win a tie.
TOLERANCE = 0.0


def load(spec: str) -> tuple[str, list[dict[str, Any]]]:
    name, _, rest = spec.partition("=")
    path, _, variant = rest.partition(":")
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    chosen = data[variant] if variant else next(iter(data.values()))
    return name, chosen["curve"]


def cuts(curves: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per cut: its settings, per-set figures and their means."""
    keyed: dict[tuple[float, float, int], dict[str, Any]] = {}
    for name, rows in curves.items():
        for row in rows:
            key = (row["threshold"], row["margin"], row["cap"])
            entry = keyed.setdefault(key, {"cut": key, "sets": {}})
            entry["sets"][name] = row
    out = []
    for entry in keyed.values():
        sets = entry["sets"].values()
        entry["recall"] = sum(r["offered_recall"] for r in sets) / len(entry["sets"])
        entry["offered"] = sum(r["avg_offered"] for r in sets) / len(entry["sets"])
        entry["worst_offered"] = max(r["avg_offered"] for r in sets)
        out.append(entry)
    return out


def markdown(rows: list[dict[str, Any]], names: list[str]) -> str:
    head = ["budget", "threshold", "margin", "cap", "mean offered recall", "mean offered"]
    head += [f"{n} recall / offered" for n in names]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for budget in BUDGETS:
        fits = [r for r in rows if r["worst_offered"] <= budget]
        if not fits:
            continue
        best = max(fits, key=lambda r: (round(r["recall"], 4), -r["offered"]))
        t, m, k = best["cut"]
        cells = [f"<= {budget}", f"{t}", "none" if m >= 2 else f"{m}", f"{k}"]
        cells += [f"{best['recall']:.3f}", f"{best['offered']:.2f}"]
        cells += [
            f"{best['sets'][n]['offered_recall']:.3f} / {best['sets'][n]['avg_offered']:.2f}"
            for n in names
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def chosen(rows: list[dict[str, Any]], names: list[str], budget: float = 4.0) -> str:
    """The recommended cut as a markdown line."""
    fits = [r for r in rows if r["worst_offered"] <= budget]
    best = max(r["recall"] for r in fits)
    pick = min((r for r in fits if r["recall"] >= best - TOLERANCE), key=lambda r: r["offered"])
    t, m, k = pick["cut"]
    per_set = ", ".join(
        f"{n} {pick['sets'][n]['offered_recall']:.3f} / {pick['sets'][n]['avg_offered']:.2f}"
        for n in names
    )
    return (
        f"Chosen: threshold {t}, margin {m}, at most {k}: mean offered recall "
        f"{pick['recall']:.3f} with {pick['offered']:.2f} offered (best within {budget}: "
        f"{best:.3f}); per set (recall / offered): {per_set}.\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="+", help="NAME=variants.json[:VARIANT]")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    curves = dict(load(spec) for spec in args.specs)
    rows = cuts(curves)
    table = markdown(rows, list(curves)) + "\n" + chosen(rows, list(curves))
    print(table)
    if args.out:
        args.out.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
