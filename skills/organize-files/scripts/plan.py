"""Dry-run plan for sorting a folder's files into category subfolders. Moves nothing."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections import defaultdict
from pathlib import Path

CATEGORIES = {
    "Images": {".jpg", ".jpeg", ".png", ".gif", ".webp", ".heic", ".svg", ".bmp", ".tiff"},
    "Documents": {
        ".pdf",
        ".doc",
        ".docx",
        ".odt",
        ".txt",
        ".md",
        ".rtf",
        ".xls",
        ".xlsx",
        ".ods",
        ".csv",
        ".ppt",
        ".pptx",
        ".odp",
        ".epub",
    },
    "Archives": {".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".zst"},
    "Audio": {".mp3", ".wav", ".flac", ".ogg", ".m4a", ".aac", ".opus"},
    "Video": {".mp4", ".mkv", ".mov", ".avi", ".webm", ".m4v"},
    "Code": {
        ".py",
        ".js",
        ".ts",
        ".sh",
        ".go",
        ".rs",
        ".c",
        ".h",
        ".cpp",
        ".java",
        ".rb",
        ".json",
        ".yaml",
        ".yml",
        ".toml",
        ".html",
        ".css",
        ".ipynb",
    },
    "Installers": {".deb", ".rpm", ".dmg", ".pkg", ".msi", ".exe", ".appimage", ".iso"},
}


def resolve(raw: str) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path(os.environ.get("HOMECLAW_CWD") or Path.cwd()) / path
    return path


def category(path: Path) -> str:
    suffixes = "".join(path.suffixes[-2:]).lower()
    if suffixes in (".tar.gz", ".tar.xz", ".tar.bz2"):
        return "Archives"
    ext = path.suffix.lower()
    return next((name for name, exts in CATEGORIES.items() if ext in exts), "Other")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", nargs="?", default=".")
    parser.add_argument("--by-date", action="store_true")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    root = resolve(opts.folder)
    if not root.is_dir():
        print(f"error: {root} is not a folder", file=sys.stderr)
        return 2
    plan: dict[str, list[str]] = defaultdict(list)
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.is_symlink() or not entry.is_file():
            continue
        if opts.by_date:
            target = time.strftime("%Y-%m", time.localtime(entry.stat().st_mtime))
        else:
            target = category(entry)
        plan[target].append(entry.name)
    moves = [{"file": n, "to": f} for f, names in sorted(plan.items()) for n in names]
    if opts.json:
        print(json.dumps({"folder": str(root), "dry_run": True, "moves": moves}, indent=2))
        return 0
    if not moves:
        print(f"{root}: nothing to organize (no loose files)")
        return 0
    print(f"{root}: {len(moves)} files into {len(plan)} folders (dry run, nothing moved)\n")
    for folder, names in sorted(plan.items()):
        print(f"{folder}/ ({len(names)})")
        for name in names[:20]:
            print(f"  {name}")
        if len(names) > 20:
            print(f"  ... and {len(names) - 20} more")
    print("\nto apply:")
    q = shlex.quote
    for folder in sorted(plan):
        print(f"mkdir -p {q(str(root / folder))}")
    for move in moves:
        print(f"mv -n {q(str(root / move['file']))} {q(str(root / move['to']))}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
