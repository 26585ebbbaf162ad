"""Which plugins of a folder sync embeds without their name (it reads as a brand), per folder.

    HF_HUB_OFFLINE=1 python benchmarks/retrieval/brand_names.py PLUGINS_DIR... [--list]

The same decision as `homeclaw sync` (homeclaw_cli/core/embedded_text.py): a name whose words
are not all in the description is embedded with it, and left out when the two vectors' cosine
is under BRAND_MAX_COSINE and the description has enough meaningful words
(benchmarks/retrieval/RESULTS.md, "Brand names").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from homeclaw_cli.adapters.embedder import sentence_transformer  # noqa: E402
from homeclaw_cli.app.sync_embed import brand_names  # noqa: E402
from homeclaw_cli.catalog.plugin_loader import is_plugin_folder, load_plugin  # noqa: E402
from homeclaw_cli.core.embedded_text import NameCheck, name_check  # noqa: E402


def checks_in(folder: Path) -> tuple[int, list[NameCheck]]:
    """How many plugins `folder` holds, and the name checks sync would run for them."""
    loaded = [load_plugin(p) for p in sorted(folder.iterdir()) if is_plugin_folder(p)]
    manifests = [r.manifest for r in loaded if r.manifest is not None]
    return len(manifests), [c for c in map(name_check, manifests) if c is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--list", action="store_true", help="print each brand-like name")
    args = parser.parse_args(argv)
    embedder = sentence_transformer(args.model)
    for folder in args.folders:
        total, checks = checks_in(folder)
        brands = brand_names(embedder, checks)
        print(f"{folder}: {total} plugins, {len(checks)} checked, {len(brands)} without the name")
        if args.list:
            for n, (cosine, _) in brands.items():
                print(f"  {cosine:5.2f}  {checks[n].name} | {checks[n].description[:70]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
