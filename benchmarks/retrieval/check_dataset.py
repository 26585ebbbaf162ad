#!/usr/bin/env python3
"""Validate the plugin-retrieval evaluation set.

Checks:
  * every plugins/<dir>/plugin.yaml parses and follows the manifest schema
    (required fields, id regex, id == folder name, unique ids, valid type,
    capability/parameter shapes, method/path only on http plugins)
  * every line of queries.jsonl is valid JSON with query/expected/tags,
    every expected id exists, tags are known, no duplicate queries
  * each plugin is the expected answer of at least MIN_QUERIES_PER_PLUGIN queries
  * overall minimums (plugins, queries, non-english, none)

Prints a summary; exits 1 if any problem was found.

Usage: python check_dataset.py [--verbose]
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("pyyaml is required: pip install pyyaml")

ROOT = Path(__file__).resolve().parent
PLUGINS_DIR = ROOT / "plugins"
QUERIES_FILE = ROOT / "queries.jsonl"

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
PLUGIN_TYPES = {"inline", "subprocess", "http", "mcp"}
PARAM_TYPES = {"string", "number", "boolean", "object", "array"}
KNOWN_TAGS = {"short", "vague", "typo", "non-english", "keyword", "paraphrase", "multi", "none"}
TOP_LEVEL_KEYS = {
    "id",
    "name",
    "description",
    "description_long",
    "version",
    "keywords",
    "type",
    "config",
    "capabilities",
}
CAP_KEYS = {
    "id",
    "name",
    "description",
    "parameters",
    "output_description",
    "post_process",
    "method",
    "path",
}
PARAM_KEYS = {"name", "type", "required", "description"}

MIN_PLUGINS = 64
MIN_QUERIES = 420
MIN_NON_ENGLISH = 50
MIN_NONE = 15
MIN_QUERIES_PER_PLUGIN = 4
MAX_DESCRIPTION = 300


def check_config(pid: str, ptype: str, config, problems: list[str]) -> None:
    if config is None or config == {}:
        if ptype != "inline":
            problems.append(f"{pid}: type {ptype} needs a config")
        return
    if not isinstance(config, dict):
        problems.append(f"{pid}: config must be a mapping")
        return
    if ptype == "http":
        url = config.get("base_url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            problems.append(f"{pid}: http config needs base_url")
    elif ptype == "subprocess":
        if not isinstance(config.get("command"), str):
            problems.append(f"{pid}: subprocess config needs command")
        if "args" in config and not isinstance(config["args"], list):
            problems.append(f"{pid}: config.args must be a list")
    elif ptype == "mcp":
        if config.get("transport") not in ("stdio", "http", "sse", "streamable-http"):
            problems.append(f"{pid}: mcp config needs a transport")
        if config.get("transport") == "stdio" and not isinstance(config.get("command"), str):
            problems.append(f"{pid}: mcp stdio config needs command")
    if "timeout_sec" in config and not isinstance(config["timeout_sec"], (int, float)):
        problems.append(f"{pid}: timeout_sec must be a number")


def check_manifest(folder: Path, data, problems: list[str]) -> str | None:
    where = f"{folder.name}/plugin.yaml"
    if not isinstance(data, dict):
        problems.append(f"{where}: top level is not a mapping")
        return None
    pid = data.get("id")
    if not isinstance(pid, str) or not ID_RE.match(pid):
        problems.append(f"{where}: bad id {pid!r}")
        return None
    if pid != folder.name:
        problems.append(f"{where}: id {pid!r} does not match folder name")
    for key in sorted(set(data) - TOP_LEVEL_KEYS):
        problems.append(f"{pid}: unknown top-level key {key!r}")
    for key in ("name", "description", "version"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            problems.append(f"{pid}: missing/invalid {key} (must be a non-empty string)")
    desc = data.get("description") or ""
    if isinstance(desc, str) and len(desc) >= MAX_DESCRIPTION:
        problems.append(f"{pid}: description is {len(desc)} chars (limit {MAX_DESCRIPTION})")
    if "description_long" in data and not isinstance(data["description_long"], str):
        problems.append(f"{pid}: description_long must be a string")
    if "keywords" in data and not (
        isinstance(data["keywords"], list) and all(isinstance(k, str) for k in data["keywords"])
    ):
        problems.append(f"{pid}: keywords must be a list of strings")
    ptype = data.get("type")
    if ptype not in PLUGIN_TYPES:
        problems.append(f"{pid}: type {ptype!r} not in {sorted(PLUGIN_TYPES)}")
    else:
        check_config(pid, ptype, data.get("config"), problems)

    caps = data.get("capabilities")
    if not isinstance(caps, list) or not caps:
        problems.append(f"{pid}: capabilities must be a non-empty list")
        return pid
    cap_ids = set()
    for i, cap in enumerate(caps):
        if not isinstance(cap, dict):
            problems.append(f"{pid}: capability #{i} is not a mapping")
            continue
        cid = cap.get("id")
        if not isinstance(cid, str) or not ID_RE.match(cid):
            problems.append(f"{pid}: capability #{i} bad id {cid!r}")
            cid = f"#{i}"
        elif cid in cap_ids:
            problems.append(f"{pid}: duplicate capability id {cid!r}")
        cap_ids.add(cid)
        for key in sorted(set(cap) - CAP_KEYS):
            problems.append(f"{pid}.{cid}: unknown key {key!r}")
        for key in ("name", "description"):
            if not isinstance(cap.get(key), str) or not cap[key].strip():
                problems.append(f"{pid}.{cid}: missing {key}")
        if ("method" in cap or "path" in cap) and ptype != "http":
            problems.append(f"{pid}.{cid}: method/path only allowed on http plugins")
        if "method" in cap and cap["method"] not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            problems.append(f"{pid}.{cid}: bad method {cap['method']!r}")
        if "post_process" in cap and not isinstance(cap["post_process"], bool):
            problems.append(f"{pid}.{cid}: post_process must be boolean")
        params = cap.get("parameters", [])
        if not isinstance(params, list):
            problems.append(f"{pid}.{cid}: parameters must be a list")
            continue
        names = set()
        for p in params:
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                problems.append(f"{pid}.{cid}: parameter without name")
                continue
            if p["name"] in names:
                problems.append(f"{pid}.{cid}: duplicate parameter {p['name']!r}")
            names.add(p["name"])
            for key in sorted(set(p) - PARAM_KEYS):
                problems.append(f"{pid}.{cid}.{p['name']}: unknown key {key!r}")
            if p.get("type") not in PARAM_TYPES:
                problems.append(f"{pid}.{cid}.{p['name']}: bad type {p.get('type')!r}")
            if "required" in p and not isinstance(p["required"], bool):
                problems.append(f"{pid}.{cid}.{p['name']}: required must be boolean")
    return pid


def load_plugins(problems: list[str]) -> dict[str, dict]:
    plugins: dict[str, dict] = {}
    if not PLUGINS_DIR.is_dir():
        problems.append(f"missing {PLUGINS_DIR}")
        return plugins
    for folder in sorted(p for p in PLUGINS_DIR.iterdir() if p.is_dir()):
        f = folder / "plugin.yaml"
        if not f.is_file():
            problems.append(f"{folder.name}: no plugin.yaml")
            continue
        try:
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
        except yaml.YAMLError as e:
            problems.append(f"{folder.name}/plugin.yaml: YAML error: {e}")
            continue
        pid = check_manifest(folder, data, problems)
        if pid is None:
            continue
        if pid in plugins:
            problems.append(f"duplicate plugin id {pid!r}")
        plugins[pid] = data
    return plugins


def load_queries(plugin_ids: set[str], problems: list[str]) -> list[dict]:
    queries: list[dict] = []
    if not QUERIES_FILE.is_file():
        problems.append(f"missing {QUERIES_FILE}")
        return queries
    seen: set[str] = set()
    for n, line in enumerate(QUERIES_FILE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"queries.jsonl:{n}: invalid JSON ({e})")
            continue
        if not isinstance(q, dict) or set(q) != {"query", "expected", "tags"}:
            problems.append(f"queries.jsonl:{n}: keys must be exactly query/expected/tags")
            continue
        text, expected, tags = q["query"], q["expected"], q["tags"]
        if not isinstance(text, str) or not text.strip():
            problems.append(f"queries.jsonl:{n}: empty query")
            continue
        key = " ".join(text.lower().split())
        if key in seen:
            problems.append(f"queries.jsonl:{n}: duplicate query {text!r}")
        seen.add(key)
        if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
            problems.append(f"queries.jsonl:{n}: expected must be a list of ids")
            continue
        if len(set(expected)) != len(expected):
            problems.append(f"queries.jsonl:{n}: duplicate ids in expected")
        for e in expected:
            if e not in plugin_ids:
                problems.append(f"queries.jsonl:{n}: unknown plugin id {e!r} ({text!r})")
        if not isinstance(tags, list) or not tags or not all(isinstance(t, str) for t in tags):
            problems.append(f"queries.jsonl:{n}: tags must be a non-empty list of strings")
            continue
        for t in tags:
            if t not in KNOWN_TAGS:
                problems.append(f"queries.jsonl:{n}: unknown tag {t!r}")
        if ("none" in tags) != (not expected):
            problems.append(f"queries.jsonl:{n}: tag 'none' must be used iff expected is empty")
        if "multi" in tags and len(expected) < 2:
            problems.append(f"queries.jsonl:{n}: 'multi' query should expect >= 2 plugins")
        q["_line"] = n
        queries.append(q)
    return queries


def main() -> int:
    verbose = "--verbose" in sys.argv or "-v" in sys.argv
    problems: list[str] = []
    plugins = load_plugins(problems)
    queries = load_queries(set(plugins), problems)

    per_plugin = Counter(e for q in queries for e in q["expected"])
    per_tag = Counter(t for q in queries for t in q["tags"])
    per_type = Counter(p.get("type") for p in plugins.values())
    n_expected = Counter(len(q["expected"]) for q in queries)

    for pid in sorted(plugins):
        if per_plugin[pid] < MIN_QUERIES_PER_PLUGIN:
            problems.append(
                f"{pid}: only {per_plugin[pid]} queries (need {MIN_QUERIES_PER_PLUGIN})"
            )
    if len(plugins) < MIN_PLUGINS:
        problems.append(f"only {len(plugins)} plugins (need {MIN_PLUGINS})")
    if len(queries) < MIN_QUERIES:
        problems.append(f"only {len(queries)} queries (need {MIN_QUERIES})")
    if per_tag["non-english"] < MIN_NON_ENGLISH:
        problems.append(
            f"only {per_tag['non-english']} non-english queries (need {MIN_NON_ENGLISH})"
        )
    if per_tag["none"] < MIN_NONE:
        problems.append(f"only {per_tag['none']} no-plugin queries (need {MIN_NONE})")

    print(
        f"plugins: {len(plugins)}  ("
        + ", ".join(f"{t}={c}" for t, c in sorted(per_type.items()))
        + ")"
    )
    print(f"capabilities: {sum(len(p.get('capabilities') or []) for p in plugins.values())}")
    print(f"queries: {len(queries)}")
    print(
        "  expected ids per query: " + ", ".join(f"{k}->{v}" for k, v in sorted(n_expected.items()))
    )
    print("  per tag: " + ", ".join(f"{t}={c}" for t, c in per_tag.most_common()))
    counts = sorted(per_plugin[p] for p in plugins)
    if counts:
        print(
            f"  queries per plugin: min={counts[0]} median={counts[len(counts) // 2]} max={counts[-1]}"
        )
    if verbose:
        for pid in sorted(plugins, key=lambda p: (per_plugin[p], p)):
            print(f"    {per_plugin[pid]:3d}  {pid}")

    if problems:
        print(f"\nFAILED: {len(problems)} problem(s)")
        for p in problems:
            print("  - " + p)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
