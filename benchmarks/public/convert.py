"""Turn public tool-retrieval data into homeclaw plugin manifests plus a queries.jsonl.

    python benchmarks/public/convert.py [--raw DIR] [--out DIR] [--queries N] [--distractors N]
                                        [SET ...]

SET is one of toollens, toolbench-g1, toolbench-g2, toolbench-g3 (default: all four).
Reads the raw files from --raw (default ~/.cache/homeclaw-bench, laid out as in README.md)
and writes --out/<set>/plugins/<id>/plugin.yaml, --out/<set>/queries.jsonl (our format) and
--out/<set>/queries_pairs.jsonl (one line per (query, expected tool), for complete@5).

One plugin per API: both datasets label the API (ToolBench's "relevant APIs" are
(tool, api) pairs; COLT's corpus rows are single APIs), so that is the unit retrieval must
find. The API's parameters become the parameters of the plugin's single capability.

Sampling (seeded, so every run converts the same subset): each set keeps at most --queries
test queries; the tools are every API those queries could be retrieved among (see the
loaders), plus distractors.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DEFAULT_RAW = Path.home() / ".cache" / "homeclaw-bench"
SETS = ("toollens", "toolbench-g1", "toolbench-g2", "toolbench-g3")
TOOLBENCH_FILES = {
    "toolbench-g1": ("G1_instruction", "G1_category", "G1_tool"),
    "toolbench-g2": ("G2_instruction", "G2_category"),
    "toolbench-g3": ("G3_instruction",),
}
SEED = 20240717
MAX_QUERIES = 100
G3_DISTRACTORS = 400
PARAM_TYPES = {
    "string": "string",
    "number": "number",
    "integer": "number",
    "float": "number",
    "boolean": "boolean",
    "array": "array",
    "list": "array",
    "object": "object",
}
METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}
# The manifests are descriptors only; nothing is ever called, so any valid URL does.
BASE_URL = "http://127.0.0.1:9"


@dataclass
class Api:
    """One API of the source data, the unit a query is labelled with."""

    category: str
    tool: str
    name: str
    description: str
    required: list[dict[str, Any]] = field(default_factory=list)
    optional: list[dict[str, Any]] = field(default_factory=list)
    method: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.tool, self.name)


@dataclass
class Query:
    text: str
    expected: list[tuple[str, str]]
    tags: list[str]


def slug(text: str, limit: int) -> str:
    """Lowercase ASCII id fragment: 'Worldwide Recipes!' -> 'worldwide-recipes'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:limit].strip("-")


def assign_ids(apis: Iterable[Api]) -> dict[tuple[str, str], str]:
    """A unique, stable plugin id per API: '<tool>-<api>', numbered on collision."""
    ids: dict[tuple[str, str], str] = {}
    used: set[str] = set()
    for api in sorted(apis, key=lambda a: a.key):
        base = "-".join(p for p in (slug(api.tool, 40), slug(api.name, 40)) if p) or "api"
        ids[api.key] = unique_id(base, used)
    return ids


def unique_id(base: str, used: set[str]) -> str:
    """`base`, or `base-2`, `base-3`... when taken; the result is added to `used`."""
    candidate, n = base, 2
    while candidate in used:
        candidate, n = f"{base}-{n}", n + 1
    used.add(candidate)
    return candidate


def _parameters(api: Api) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for required, params in ((True, api.required), (False, api.optional)):
        for param in params:
            name = re.sub(r"[^A-Za-z0-9_-]", "_", str(param.get("name") or ""))
            if not name or name in seen:
                continue
            if not re.match(r"[A-Za-z_]", name):
                name = f"_{name}"
            seen.add(name)
            kind = PARAM_TYPES.get(str(param.get("type", "")).lower(), "string")
            out.append(
                {
                    "name": name,
                    "type": kind,
                    "required": required,
                    "description": str(param.get("description") or "").strip(),
                }
            )
    return out


def manifest(api: Api, plugin_id: str) -> dict[str, Any]:
    """The plugin.yaml for one API; the dataset gives one description, used on both levels."""
    description = " ".join(api.description.split()) or f"{api.name} endpoint of {api.tool}."
    capability: dict[str, Any] = {
        "id": slug(api.name, 60) or "call",
        "name": api.name.strip() or api.tool,
        "description": description,
        "parameters": _parameters(api),
    }
    if api.method in METHODS:
        capability["method"] = api.method
    return {
        "id": plugin_id,
        "name": f"{api.tool.strip()}: {api.name.strip()}",
        "description": description,
        "keywords": [api.category] if api.category else [],
        "type": "http",
        "config": {"base_url": BASE_URL, "path": "/run"},
        "capabilities": [capability],
    }


def _colt_api(text: str) -> Api:
    """Parse one COLT corpus row: 'category_name:C, tool_name:T, api_name:A, api_description:
    D, required_params: [...], optional_params: [...], return_schema: ...'."""
    match = re.match(
        r"category_name:(.*?), tool_name:(.*?), api_name:(.*?), api_description:", text
    )
    if not match:
        raise ValueError(f"unexpected corpus row: {text[:80]!r}")
    rest = text[match.end() :]
    cut = rest.find(", required_params: [")
    if cut < 0:
        return Api(match[1], match[2], match[3], rest)
    decoder = json.JSONDecoder()
    required, end = decoder.raw_decode(rest, cut + len(", required_params: "))
    optional: list[dict[str, Any]] = []
    marker = ", optional_params: "
    if rest.startswith(marker, end):
        optional, _ = decoder.raw_decode(rest, end + len(marker))
    return Api(match[1], match[2], match[3], rest[:cut], required, optional)


def _read_colt_corpus(path: Path) -> dict[str, Api]:
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {row["_id"]: _colt_api(row["text"]) for row in rows}


def load_toollens(raw: Path, count: int) -> tuple[list[Api], list[Query]]:
    """ToolLens test split: every corpus API, `count` test queries sampled with SEED."""
    base = raw / "COLT" / "datasets" / "ToolLens"
    corpus = _read_colt_corpus(base / "corpus.jsonl")
    texts = {}
    for line in (base / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line:
            row = json.loads(line)
            texts[row["_id"]] = row["text"]
    labels: dict[str, list[str]] = {}
    for line in (base / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, cid, score = line.split("\t")
        if int(score) > 0:
            labels.setdefault(qid, []).append(cid)
    chosen = _sample(sorted(labels, key=int), count)
    queries = [_query(texts[q], [corpus[c].key for c in labels[q]], []) for q in chosen]
    return list(corpus.values()), queries


def _query(text: str, expected: list[tuple[str, str]], tags: list[str]) -> Query:
    unique = list(dict.fromkeys(expected))
    return Query(" ".join(text.split()), unique, [*tags, "multi" if len(unique) > 1 else "single"])


def _sample(items: list[Any], count: int) -> list[Any]:
    """`count` items in their original order, chosen with SEED (all when there are fewer)."""
    if count >= len(items):
        return items
    keep = set(random.Random(SEED).sample(range(len(items)), count))
    return [item for index, item in enumerate(items) if index in keep]


def load_toolbench(
    raw: Path, name: str, count: int, distractors: int
) -> tuple[list[Api], list[Query]]:
    """StableToolBench's solvable ToolBench test queries of one group, `count` sampled.

    The tools are every API in the sampled queries' api_lists (the APIs ToolBench offers
    each query, so the hard negatives are the sibling APIs of the right ones); for G3, whose
    61 queries share 44 APIs, `distractors` APIs sampled from COLT's ToolBench-G3 corpus join.
    """
    apis: dict[tuple[str, str], Api] = {}
    queries: list[Query] = []
    folder = raw / "StableToolBench" / "solvable_queries" / "test_instruction"
    items: list[tuple[str, dict[str, Any]]] = []
    for group in TOOLBENCH_FILES[name]:
        data = json.loads((folder / f"{group}.json").read_text(encoding="utf-8"))
        items.extend((group.split("_", 1)[1], item) for item in data)
    for tag, item in _sample(items, count):
        for entry in item["api_list"]:
            api = Api(
                entry.get("category_name", ""),
                entry["tool_name"],
                entry["api_name"],
                entry.get("api_description") or "",
                entry.get("required_parameters") or [],
                entry.get("optional_parameters") or [],
                str(entry.get("method", "")).upper() or None,
            )
            apis.setdefault(api.key, api)
        expected = [(tool, api_name) for tool, api_name in item["relevant APIs"]]
        queries.append(_query(item["query"], expected, [tag]))
    if name == "toolbench-g3":
        corpus = _read_colt_corpus(raw / "COLT" / "datasets" / "ToolBenchG3" / "corpus.jsonl")
        others = [api for api in corpus.values() if api.key not in apis]
        for api in _sample(others, distractors):
            apis[api.key] = api
    return list(apis.values()), queries


def write_plugins(out: Path, manifests: dict[str, dict[str, Any]]) -> None:
    """out/plugins/<id>/plugin.yaml for each manifest (its id first); out/plugins must not exist."""
    plugins = out / "plugins"
    plugins.mkdir(parents=True, exist_ok=False)
    for plugin_id, data in manifests.items():
        (plugins / plugin_id).mkdir()
        text = yaml.safe_dump({"id": plugin_id, **data}, sort_keys=False, allow_unicode=True)
        (plugins / plugin_id / "plugin.yaml").write_text(text, encoding="utf-8")


def write_queries(out: Path, rows: list[dict[str, Any]]) -> None:
    """out/queries.jsonl, and out/queries_pairs.jsonl with one line per expected plugin of each
    query, tagged q<N> (run.py's complete@5 groups them back)."""
    with (
        (out / "queries.jsonl").open("w", encoding="utf-8") as lines,
        (out / "queries_pairs.jsonl").open("w", encoding="utf-8") as pairs,
    ):
        for number, row in enumerate(rows, start=1):
            lines.write(json.dumps(row, ensure_ascii=False) + "\n")
            for plugin_id in row["expected"]:
                pair = {"query": row["query"], "expected": [plugin_id], "tags": [f"q{number}"]}
                pairs.write(json.dumps(pair, ensure_ascii=False) + "\n")


def write_set(out: Path, apis: list[Api], queries: list[Query]) -> dict[str, int]:
    """Write the manifests and both query files; return counts for the summary."""
    ids = assign_ids(apis)
    write_plugins(out, {ids[api.key]: manifest(api, ids[api.key]) for api in apis})
    write_queries(
        out,
        [
            {"query": q.text, "expected": [ids[key] for key in q.expected], "tags": q.tags}
            for q in queries
        ],
    )
    multi = sum(len(q.expected) > 1 for q in queries)
    return {"plugins": len(apis), "queries": len(queries), "multi": multi}


def main(argv: list[str] | None = None) -> int:
    """Convert the requested sets; refuses to overwrite an existing set folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"any of {', '.join(SETS)}")
    parser.add_argument("--raw", type=Path, default=DEFAULT_RAW)
    parser.add_argument("--out", type=Path, default=DEFAULT_RAW / "sets")
    parser.add_argument("--queries", type=int, default=MAX_QUERIES, help="max queries per set")
    parser.add_argument(
        "--distractors", type=int, default=G3_DISTRACTORS, help="extra COLT APIs for G3"
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.sets) - set(SETS))
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}; choose from {', '.join(SETS)}")
    for name in args.sets or SETS:
        target = args.out / name
        if target.exists():
            print(f"{target} exists; delete it to convert {name} again", file=sys.stderr)
            return 1
        if name == "toollens":
            apis, queries = load_toollens(args.raw, args.queries)
        else:
            apis, queries = load_toolbench(args.raw, name, args.queries, args.distractors)
        counts = write_set(target, apis, queries)
        print(
            f"{name}: {counts['plugins']} plugins, {counts['queries']} queries "
            f"({counts['multi']} multi-tool) -> {target}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
