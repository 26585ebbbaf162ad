"""A small subprocess plugin folder to install from (for the `plugin install` tests)."""

from __future__ import annotations

import json
from pathlib import Path


def source_plugin(folder: Path, plugin_id: str) -> Path:
    """`folder` holding a valid plugin `plugin_id` that prints hi."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "id": plugin_id,
        "name": plugin_id.title(),
        "description": "Says hello to people by name.",
        "type": "subprocess",
        "config": {"command": "python3", "args": ["main.py"]},
    }
    (folder / "plugin.yaml").write_text(json.dumps(manifest) + "\n")
    (folder / "main.py").write_text("print('hi')\n")
    return folder
