"""Disk usage summary of one folder: total, largest entries, largest file types."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"


def resolve(raw: str) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path(os.environ.get("HOMECLAW_CWD") or Path.cwd()) / path
    return path


def measure(root: Path) -> dict[str, object]:
    children: Counter[str] = Counter()
    extensions: Counter[str] = Counter()
    largest: list[tuple[int, str]] = []
    files = dirs = errors = total = 0
    for current, dirnames, filenames in os.walk(root, onerror=lambda _e: None):
        dirs += len(dirnames)
        for name in filenames:
            full = os.path.join(current, name)  # noqa: PTH118 - str paths: faster on big trees
            try:
                st = os.lstat(full)
            except OSError:
                errors += 1
                continue
            size = st.st_blocks * 512 if hasattr(st, "st_blocks") else st.st_size
            files += 1
            total += size
            rel = os.path.relpath(full, root)
            children[rel.split(os.sep, 1)[0]] += size
            extensions[os.path.splitext(name)[1].lower() or "(none)"] += size  # noqa: PTH122
            largest.append((size, rel))
    largest.sort(reverse=True)
    return {
        "path": str(root),
        "total_bytes": total,
        "files": files,
        "folders": dirs,
        "unreadable": errors,
        "children": children,
        "extensions": extensions,
        "largest_files": largest,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", nargs="?", default=".")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    root = resolve(opts.path)
    if not root.is_dir():
        print(f"error: {root} is not a folder", file=sys.stderr)
        return 2
    data = measure(root)
    top = max(1, opts.top)
    children: Counter[str] = data["children"]  # type: ignore[assignment]
    extensions: Counter[str] = data["extensions"]  # type: ignore[assignment]
    largest: list[tuple[int, str]] = data["largest_files"]  # type: ignore[assignment]
    if opts.json:
        print(
            json.dumps(
                {
                    **{
                        k: v
                        for k, v in data.items()
                        if k not in ("children", "extensions", "largest_files")
                    },
                    "top_entries": children.most_common(top),
                    "top_types": extensions.most_common(top),
                    "largest_files": largest[:top],
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{root}: {human(data['total_bytes'])} in {data['files']} files, {data['folders']} folders"
    )  # type: ignore[arg-type]
    if data["unreadable"]:
        print(f"({data['unreadable']} entries could not be read)")
    print("\nLargest entries:")
    for name, size in children.most_common(top):
        print(f"  {human(size):>10}  {name}")
    print("\nBy file type:")
    for ext, size in extensions.most_common(top):
        print(f"  {human(size):>10}  {ext}")
    print("\nLargest files:")
    for size, rel in largest[:top]:
        print(f"  {human(size):>10}  {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
