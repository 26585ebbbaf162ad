"""How a manifest's `command` becomes an executable path (subprocess and MCP stdio plugins).

Resolution order:
  1. `python` / `python3`: the interpreter homeclaw runs on (sys.executable), so bundled
     Python plugins work inside homeclaw's virtualenv without activating it.
  2. A command containing '/': relative to the plugin folder (or absolute).
  3. The plugin folder's node_modules/.bin (an npm dependency in the plugin's package.json).
  4. PATH.
  5. The bin folder of homeclaw's Python environment (console scripts installed with
     homeclaw, e.g. mcp-server-time, work without activating the venv).
Arguments may use `{plugin_dir}`, `{data_dir}` and `{plugin_data}` (the plugin's own data
folder, created when used); `~` and $VARS are expanded.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

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


def plugin_data_dir(data_dir: Path, plugin_id: str) -> Path:
    """The folder a plugin may keep files in (the same one BasePlugin.data_dir gives)."""
    return data_dir / "plugin-data" / plugin_id


def expand_args(
    args: list[str], folder: Path | None, data_dir: Path, plugin_id: str = ""
) -> list[str]:
    """Fill `{plugin_dir}`, `{data_dir}` and `{plugin_data}` (created when used) and expand
    `~` and $VARS in manifest arguments."""
    out = []
    own = plugin_data_dir(data_dir, plugin_id)
    for arg in args:
        value = arg
        if "{plugin_data}" in value and plugin_id:
            own.mkdir(parents=True, exist_ok=True)
            value = value.replace("{plugin_data}", str(own))
        value = value.replace("{plugin_dir}", str(folder or ".")).replace(
            "{data_dir}", str(data_dir)
        )
        value = os.path.expandvars(value)
        out.append(str(Path(value).expanduser()) if value.startswith("~") else value)
    return out


#: Inherited by every plugin process; anything else (API keys...) only when the manifest's
#: `env` asks for it, e.g. `env: {NEWSAPI_KEY: "${NEWSAPI_KEY}"}`.
BASE_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "TMPDIR",
    "SYSTEMROOT",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
)


def plugin_env(extra: dict[str, str], plugin_id: str, data_dir: Path) -> dict[str, str]:
    """The environment of a plugin process: a minimal base (BASE_ENV and LC_*), the
    manifest's `env` with $VARS expanded from homeclaw's environment, and two markers."""
    env = {k: v for k, v in os.environ.items() if k in BASE_ENV or k.startswith("LC_")}
    env.update({key: os.path.expandvars(value) for key, value in extra.items()})
    env["HOMECLAW_PLUGIN_ID"] = plugin_id
    env["HOMECLAW_PLUGIN_DATA"] = str(plugin_data_dir(data_dir, plugin_id))
    return env
