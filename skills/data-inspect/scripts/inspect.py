"""Describe a JSON / JSON Lines / CSV file: structure, field types, counts, samples."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

MAX_ROWS = 200_000
MAX_JSON_BYTES = 64 * 1024 * 1024


def user_folder() -> Path:
    return Path(os.environ.get("HOMECLAW_CWD") or Path.cwd())


def resolve(raw: str) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else user_folder() / path


def ending_with(raw: str, limit: int = 3) -> list[str]:
    """Files under the user's folder whose path ends with `raw`: a model may drop the first
    folders of the path the user wrote (examples/cities.csv for data/examples/cities.csv)."""
    want = Path(raw).parts
    if not want or Path(raw).is_absolute():
        return []
    base, found, seen = user_folder(), [], 0
    for folder, dirs, files in os.walk(base):
        depth = len(Path(folder).relative_to(base).parts)
        dirs[:] = [] if depth >= 5 else [d for d in dirs if d[0] != "." and d != "node_modules"]
        for name in files:
            rel = Path(folder, name).relative_to(base)
            if rel.parts[-len(want) :] == want:
                found.append(str(rel))
        seen += len(files)
        if len(found) >= limit or seen > 20_000:
            break
    return found[:limit]


def kind_of(value: Any) -> str:
    if value is None or value == "":
        return "empty"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    text = str(value).strip()
    for cast, name in ((int, "int"), (float, "float")):
        try:
            cast(text)
            return name
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return "bool"
    if len(text) >= 10 and text[4] == "-" and text[7] == "-" and text[:4].isdigit():
        return "date"
    return "text"


def profile(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    fields: dict[str, dict[str, Any]] = defaultdict(lambda: {"types": Counter(), "missing": 0})
    order: list[str] = []
    for record in records:
        for key in record:
            if key not in fields:
                order.append(key)
            fields[key]
    for record in records:
        for key in order:
            value = record.get(key)
            kind = kind_of(value)
            info = fields[key]
            if kind == "empty":
                info["missing"] += 1
                continue
            info["types"][kind] += 1
            if kind in ("int", "float"):
                number = float(value)
                info["min"] = min(info.get("min", number), number)
                info["max"] = max(info.get("max", number), number)
    out = {}
    for key in order:
        info = fields[key]
        types = info.pop("types")
        info["type"] = "/".join(t for t, _ in types.most_common()) or "empty"
        out[key] = info
    return out


def load(path: Path) -> tuple[str, list[Any], bool, dict[str, Any]]:
    ext = path.suffix.lower()
    extra: dict[str, Any] = {}
    if ext in (".jsonl", ".ndjson"):
        return ("jsonl", *read_jsonl(path), extra)
    if ext == ".json":
        return ("json", *read_json(path, extra), extra)
    if ext in (".csv", ".tsv", ".txt"):
        return ("csv", *read_csv(path, extra), extra)
    head = path.read_bytes()[:4096].lstrip()
    if head[:1] in (b"{", b"["):
        try:
            return ("json", *read_json(path, extra), extra)
        except ValueError:
            return ("jsonl", *read_jsonl(path), extra)
    return ("csv", *read_csv(path, extra), extra)


def read_json(path: Path, extra: dict[str, Any]) -> tuple[list[Any], bool]:
    if path.stat().st_size > MAX_JSON_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_JSON_BYTES >> 20} MiB; use JSON Lines")
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        extra["top_level"] = "object"
        extra["keys"] = list(data)[:50]
        lists = [(k, v) for k, v in data.items() if isinstance(v, list)]
        if not lists:
            return [data], False
        key, data = max(lists, key=lambda kv: len(kv[1]))
        extra["records_at"] = key
    else:
        extra["top_level"] = type(data).__name__
    rows = data if isinstance(data, list) else [data]
    return rows[:MAX_ROWS], len(rows) > MAX_ROWS


def read_jsonl(path: Path) -> tuple[list[Any], bool]:
    rows: list[Any] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            if len(rows) >= MAX_ROWS:
                return rows, True
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number} is not JSON: {exc.msg}") from None
    return rows, False


def read_csv(path: Path, extra: dict[str, Any]) -> tuple[list[Any], bool]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        sample = handle.read(65536)
        handle.seek(0)
        try:
            dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
        extra["delimiter"] = dialect.delimiter
        reader = csv.DictReader(handle, dialect=dialect)
        rows: list[Any] = []
        for row in reader:
            if len(rows) >= MAX_ROWS:
                return rows, True
            rows.append(row)
        extra["columns"] = reader.fieldnames or []
    return rows, False


def num(value: float) -> str:
    return f"{int(value):,}" if value.is_integer() else f"{value:,.4g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file")
    parser.add_argument("--sample", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    path = resolve(opts.file)
    if not path.is_file():
        near = ending_with(opts.file)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        print(f"error: {path} is not a file{hint}", file=sys.stderr)
        return 2
    try:
        fmt, rows, cut, extra = load(path)
    except (ValueError, UnicodeDecodeError, csv.Error) as exc:
        print(f"error: cannot read {path.name}: {exc}", file=sys.stderr)
        return 1
    records = [r if isinstance(r, dict) else {"value": r} for r in rows]
    fields = profile(records)
    report = {
        "file": str(path),
        "format": fmt,
        "bytes": path.stat().st_size,
        "records": len(rows),
        "truncated": cut,
        **extra,
        "fields": fields,
        "sample": rows[: max(0, opts.sample)],
    }
    if opts.json:
        print(json.dumps(report, indent=2, default=str))
        return 0
    more = "+" if cut else ""
    print(f"{path.name}: {fmt}, {report['bytes']} bytes, {len(rows)}{more} records")
    for key in ("top_level", "records_at", "delimiter"):
        if key in extra:
            print(f"{key}: {extra[key]!r}")
    print(f"\n{len(fields)} fields:")
    for name, info in fields.items():
        line = f"  {name}: {info['type']}"
        if info["missing"]:
            line += f", {info['missing']} missing"
        if "min" in info:
            line += f", range {num(info['min'])} .. {num(info['max'])}"
        print(line)
    if report["sample"]:
        print("\nsample:")
        for row in report["sample"]:
            print("  " + json.dumps(row, default=str, ensure_ascii=False)[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
