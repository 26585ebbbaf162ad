"""Where a plugin's own Python dependencies live, and how its process finds them.

`homeclaw plugin install --with-deps` runs `pip install --target <plugin>/.homeclaw-deps`
(never the user's site-packages). The folder travels with the plugin through the atomic
swap, so an upgrade or rollback always pairs code with its dependencies. Runners put it first
on sys.path (inline) or PYTHONPATH (subprocess and MCP stdio plugins).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEPS_DIRNAME = ".homeclaw-deps"
REQUIREMENTS_FILE = "requirements.txt"


def deps_dir(folder: Path | None) -> Path | None:
    """The plugin's dependency folder, when it has one."""
    if folder is None:
        return None
    path = folder / DEPS_DIRNAME
    return path if path.is_dir() else None


def with_deps_env(folder: Path | None, env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the plugin's dependency folder prepended to PYTHONPATH (if it has one)."""
    out = dict(env)
    path = deps_dir(folder)
    if path is not None:
        rest = out.get("PYTHONPATH", "")
        out["PYTHONPATH"] = str(path) + (os.pathsep + rest if rest else "")
    return out
