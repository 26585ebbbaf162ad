"""Generated example requests, kept next to the index: one JSON file per plugin or skill.

`<index dir>/examples/<kind>s/<id>.json` holds, per model, per capability (`"*"` for a skill
or a plugin's implicit entry point), the descriptor hash the examples were written from and the
examples themselves:

    {"models": {"qwen2.5:1.5b": {"get_weather": {"hash": "…", "examples": ["…"], "seconds": 4.1}}}}

A file is rewritten atomically after each item, so an interrupted `sync --expand` keeps every
item it finished and the next run resumes with the rest. An entry is used only while its hash
matches the current descriptor: a changed plugin is generated again, an unchanged one never.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeclaw_cli.fsutil import atomic_write_text
from homeclaw_cli.settings import Settings

WHOLE_ITEM = "*"  # the capability key of a skill, or of a plugin without capabilities
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def cache_dir(settings: Settings) -> Path:
    """Inside a local index folder; under data_dir when the index is remote."""
    uri = settings.index_uri
    base = settings.data_dir / "index" if "://" in uri else Path(uri)
    return base / "examples"


@dataclass
class CachedExamples:
    """One capability's examples and how they were made."""

    hash: str
    examples: list[str]
    seconds: float = 0.0


class ExampleCache:
    """Read and write the per-item example files of one index."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def for_settings(cls, settings: Settings) -> ExampleCache:
        return cls(cache_dir(settings))

    def path(self, kind: str, item_id: str) -> Path:
        return self.root / f"{kind}s" / f"{_UNSAFE.sub('_', item_id)}.json"

    def load(self, kind: str, item_id: str) -> dict[str, dict[str, CachedExamples]]:
        """model -> capability -> examples; empty when the file is missing or unreadable."""
        try:
            data = json.loads(self.path(kind, item_id).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        models: dict[str, dict[str, CachedExamples]] = {}
        for model, caps in _dict(data.get("models") if isinstance(data, dict) else None).items():
            models[model] = {
                cap: CachedExamples(
                    str(entry.get("hash", "")),
                    [str(e) for e in entry.get("examples", []) if isinstance(e, str)],
                    float(entry.get("seconds", 0.0) or 0.0),
                )
                for cap, entry in _dict(caps).items()
                if isinstance(entry, dict)
            }
        return models

    def lookup(
        self, kind: str, item_id: str, hashes: dict[str, str], model: str | None
    ) -> dict[str, list[str]]:
        """Capability -> examples whose hash matches `hashes`: `model`'s first, then any
        other model's (so a new chat model keeps the old examples until it writes its own)."""
        models = self.load(kind, item_id)
        order = [model] if model in models else []
        order += sorted(m for m in models if m != model)
        found: dict[str, list[str]] = {}
        for name in order:
            for cap, entry in models[name].items():
                if cap not in found and hashes.get(cap) == entry.hash and entry.examples:
                    found[cap] = entry.examples
        return found

    def save(self, kind: str, item_id: str, model: str, entries: dict[str, CachedExamples]) -> None:
        """Replace `model`'s entries of one item (other models' stay), atomically."""
        models = self.load(kind, item_id)
        models[model] = entries
        document = {
            "kind": kind,
            "id": item_id,
            "models": {
                name: {
                    cap: {"hash": e.hash, "examples": e.examples, "seconds": round(e.seconds, 2)}
                    for cap, e in sorted(caps.items())
                }
                for name, caps in sorted(models.items())
            },
        }
        path = self.path(kind, item_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")

    def prune(self, kind: str, keep: set[str]) -> int:
        """Delete the files of items that no longer exist; how many went."""
        folder = self.root / f"{kind}s"
        if not folder.is_dir():
            return 0
        wanted = {_UNSAFE.sub("_", k) for k in keep}
        gone = 0
        for file in folder.glob("*.json"):
            if file.stem not in wanted:
                file.unlink(missing_ok=True)
                gone += 1
        return gone


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
