"""ToolAlpaca's evaluation tools as two retrieval sets: a plugin store and a rich catalogue.

    python benchmarks/public/toolalpaca.py [--raw DIR] [--out DIR]

Reads ToolAlpaca/data/{public_apis,eval_simulated,eval_real}.json from --raw (default
~/.cache/homeclaw-bench) and writes two sets next to the other public ones:

* toolalpaca: one plugin per entry of the public-apis catalogue ToolAlpaca built its tools
  from (name, one-line description, category), 1,400+ plugins of the same short form;
  the queries are the evaluation tools' user instructions, each labelled with its tool.
  Many catalogue entries do the same job as the labelled one (a dozen holiday or currency
  APIs), so R@1 is a lower bound: a plugin-store query among near duplicates.
* toolalpaca-rich: only the 21 evaluation tools, each with its introduction as
  description_long (when ToolAlpaca wrote one) and its functions as capabilities with
  their parameters: a small store whose entries carry a long text for the model.

Plugin-level labels: ToolAlpaca labels a function of a tool, and a tool is one plugin.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from convert import BASE_URL, DEFAULT_RAW, slug, unique_id, write_plugins, write_queries

EVAL_FILES = ("eval_simulated", "eval_real")
PARAMS = re.compile(r"^Parameters: (\{.*\})$", re.MULTILINE)


def _entry(name: str, description: str, category: str) -> dict[str, Any]:
    """A catalogue entry as a manifest: its one description on plugin and capability."""
    text = " ".join(description.split()) or f"The {name} API."
    return {
        "name": name.strip(),
        "description": text,
        "keywords": [category] if category else [],
        "type": "http",
        "config": {"base_url": BASE_URL, "path": "/run"},
        "capabilities": [
            {"id": slug(name, 60) or "call", "name": name.strip(), "description": text}
        ],
    }


def _parameter(name: str, text: str) -> dict[str, Any]:
    """'Required. string. Two-character country code.' -> a manifest parameter."""
    parts = [p.strip() for p in str(text).split(".", 2)]
    required = parts[0].lower() == "required"
    kind = parts[1].lower() if len(parts) > 1 else "string"
    return {
        "name": re.sub(r"[^A-Za-z0-9_-]", "_", name) or "value",
        "type": {"integer": "number", "number": "number", "boolean": "boolean"}.get(kind, "string"),
        "required": required,
        "description": parts[2] if len(parts) > 2 else "",
    }


def _capability(function: str, text: str) -> dict[str, Any]:
    first = text.split("\nParameters:", 1)[0].strip()
    match = PARAMS.search(text)
    params = json.loads(match[1]) if match else {}
    return {
        "id": slug(function, 60) or "call",
        "name": function,
        "description": " ".join(first.split()) or f"{function} endpoint.",
        "parameters": [_parameter(k, v) for k, v in params.items()],
    }


def _rich(tool: dict[str, Any]) -> dict[str, Any]:
    out = _entry(tool["Name"], tool["Description"], tool.get("Category", ""))
    if tool.get("Introduction"):
        out["description_long"] = " ".join(tool["Introduction"].split())
    out["capabilities"] = [
        _capability(name, text) for name, text in tool["Function_Description"].items()
    ]
    return out


def convert(raw: Path, out: Path) -> dict[str, tuple[int, int]]:
    """Write both sets; return {set: (plugins, queries)}."""
    data = raw / "ToolAlpaca" / "data"
    catalogue = json.loads((data / "public_apis.json").read_text(encoding="utf-8"))["entries"]
    tools = [
        tool
        for name in EVAL_FILES
        for tool in json.loads((data / f"{name}.json").read_text(encoding="utf-8"))
    ]
    used: set[str] = set()
    store: dict[str, dict[str, Any]] = {}
    ids: dict[str, str] = {}
    for entry in catalogue:
        if entry["API"] in ids:  # a handful of names are listed twice; keep the first
            continue
        ids[entry["API"]] = unique_id(slug(entry["API"], 60) or "api", used)
        store[ids[entry["API"]]] = _entry(entry["API"], entry["Description"], entry["Category"])
    for tool in tools:  # an evaluation tool missing from the catalogue joins it
        if tool["Name"] not in ids:
            ids[tool["Name"]] = unique_id(slug(tool["Name"], 60) or "api", used)
            store[ids[tool["Name"]]] = _entry(tool["Name"], tool["Description"], tool["Category"])
    queries = [
        {"query": " ".join(text.split()), "expected": [ids[tool["Name"]]], "tags": ["single"]}
        for tool in tools
        for text in tool["Instructions"]
    ]
    rich = {ids[tool["Name"]]: _rich(tool) for tool in tools}
    for name, manifests in (("toolalpaca", store), ("toolalpaca-rich", rich)):
        write_plugins(out / name, manifests)
        write_queries(out / name, queries)
    return {"toolalpaca": (len(store), len(queries)), "toolalpaca-rich": (len(rich), len(queries))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", type=Path, default=DEFAULT_RAW)
    parser.add_argument("--out", type=Path, default=DEFAULT_RAW / "sets")
    args = parser.parse_args(argv)
    for name in ("toolalpaca", "toolalpaca-rich"):
        if (args.out / name).exists():
            print(f"{args.out / name} exists; delete it to convert again", file=sys.stderr)
            return 1
    for name, (plugins, queries) in convert(args.raw, args.out).items():
        print(f"{name}: {plugins} plugins, {queries} queries -> {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
