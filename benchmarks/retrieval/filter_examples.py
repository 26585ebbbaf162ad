"""Filter generated examples the Doc2Query-- way, into copies of an expanded home to score.

    python benchmarks/retrieval/filter_examples.py CORPUS EXPANDED_HOME OUT_ROOT
    python benchmarks/retrieval/variants.py CORPUS/plugins CORPUS/queries.jsonl \
        --home OUT_ROOT/<variant> --variant default

CORPUS is a `bench_expand.py` corpus (plugins/ with plugin.yaml, queries.jsonl), EXPANDED_HOME
the home `sync --expand` wrote its examples in. Each generated example is embedded (MiniLM) with
every plugin's name and description; a variant keeps an example when its own plugin ranks in
the first k for it (`rank1`..`rank5`) or when its cosine to its plugin reaches a level
(`cos03`, `cos04`). Each variant is a home with only the examples' cache, hashes kept, so a sync
of it reads them as the cache of the unchanged plugins. benchmarks/EXPAND.md reports them.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from homeclaw_cli.adapters.embedder import resolve_model_path, sentence_transformer  # noqa: E402

CACHE = Path("data") / "index" / "examples" / "plugins"


def main() -> None:
    corpus, home, out_root = (Path(a) for a in sys.argv[1:4])
    plugins = sorted(p for p in (corpus / "plugins").iterdir() if (p / "plugin.yaml").is_file())
    manifests = {p.name: yaml.safe_load((p / "plugin.yaml").read_text()) for p in plugins}
    ids = sorted(manifests)
    embedder = sentence_transformer(resolve_model_path("all-MiniLM-L6-v2"))
    texts = [f"{manifests[i]['name']}: {manifests[i].get('description', '')}" for i in ids]
    descriptors = np.asarray(embedder.embed(texts))
    files = {f.stem: json.loads(f.read_text()) for f in (home / CACHE).glob("*.json")}
    flat = [
        (pid, model, cap, text)
        for pid, data in files.items()
        for model, caps in data["models"].items()
        for cap, entry in caps.items()
        for text in entry["examples"]
    ]
    sims = np.asarray(embedder.embed([f[3] for f in flat])) @ descriptors.T
    at = {pid: n for n, pid in enumerate(ids)}
    own = np.array([sims[k, at[f[0]]] for k, f in enumerate(flat)])
    rank = (sims > own[:, None]).sum(axis=1) + 1
    variants = {f"rank{k}": rank <= k for k in (1, 2, 3, 5)}
    variants |= {"cos03": own >= 0.3, "cos04": own >= 0.4}
    for name, keep in variants.items():
        target = out_root / name
        shutil.rmtree(target, ignore_errors=True)
        (target / CACHE).mkdir(parents=True)
        kept: dict[tuple[str, str, str], list[str]] = {}
        for k, (pid, model, cap, text) in enumerate(flat):
            if keep[k]:
                kept.setdefault((pid, model, cap), []).append(text)
        for pid, data in files.items():
            copy = json.loads(json.dumps(data))
            for model, caps in copy["models"].items():
                for cap, entry in caps.items():
                    entry["examples"] = kept.get((pid, model, cap), [])
            (target / CACHE / f"{pid}.json").write_text(json.dumps(copy, indent=1))
        print(f"{name}: {int(keep.sum())} of {len(flat)} examples kept")


if __name__ == "__main__":
    main()
