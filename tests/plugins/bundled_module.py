"""A bundled inline plugin's code, imported from its folder the way its tests read it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


def bundled_module(plugin_id: str) -> ModuleType:
    """plugins/<plugin_id>/plugin.py as a module of its own (`<plugin_id>_plugin`)."""
    path = PLUGINS / plugin_id / "plugin.py"
    spec = importlib.util.spec_from_file_location(f"{plugin_id}_plugin", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
