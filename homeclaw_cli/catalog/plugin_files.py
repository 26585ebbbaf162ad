"""Where a plugin's executables and own Python dependencies live, and how its process finds them.

`homeclaw plugin install --with-deps` runs `pip install --target <plugin>/.homeclaw-deps`
(never the user's site-packages). The folder travels with the plugin through the atomic
swap, so an upgrade or rollback always pairs code with its dependencies. Runners put it first
on sys.path (inline) or PYTHONPATH (subprocess and MCP stdio plugins).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.core.manifest import InlineConfig, PluginManifest
from homeclaw_cli.core.plugin_needs import unmet_needs

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


PYTHON_ALIASES = frozenset({"python", "python3"})


def resolve_command(command: str, folder: Path | None) -> str | None:
    """The executable to run for `command`, or None when it cannot be found."""
    if command in PYTHON_ALIASES:
        return sys.executable
    folder = folder.resolve() if folder is not None else None
    if "/" in command:
        path = Path(command).expanduser()
        if not path.is_absolute() and folder is not None:
            path = folder / path
        return str(path) if path.exists() else None
    search: list[str] = []
    if folder is not None:
        search.append(str(folder / "node_modules" / ".bin"))
    search.append(os.environ.get("PATH", os.defpath))
    search.append(str(Path(sys.executable).parent))
    return shutil.which(command, path=os.pathsep.join(search))


class PluginConfigError(ValueError):
    """A plugin's config file that cannot be read, or is not a mapping of settings."""


def read_plugin_config(path: Path) -> dict[str, Any]:
    """An inline plugin's settings from its config file; {} when there is none."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PluginConfigError(f"cannot read {path.name}: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PluginConfigError(f"{path.name} must be a mapping of settings")
    return data


def plugin_config_values(folder: Path | None, manifest: PluginManifest) -> dict[str, Any]:
    """The settings `requires.config` keys are looked up in: an inline plugin's config file;
    {} for other plugins and for a broken file (the runner reports that one when it loads)."""
    if folder is None or not isinstance(manifest.config, InlineConfig):
        return {}
    try:
        return read_plugin_config(folder / manifest.config.config_file)
    except PluginConfigError:
        return {}


def config_file_name(manifest: PluginManifest) -> str:
    """The name of the plugin's config file, as `requires` messages show it."""
    return (
        manifest.config.config_file if isinstance(manifest.config, InlineConfig) else "config.yml"
    )


def unmet_requirements(folder: Path | None, manifest: PluginManifest) -> list[str]:
    """What the plugin's `requires` still misses here, as the user would set it."""
    if not manifest.requires:
        return []
    values = plugin_config_values(folder, manifest)
    return unmet_needs(manifest.requires, values, config_file=config_file_name(manifest))
