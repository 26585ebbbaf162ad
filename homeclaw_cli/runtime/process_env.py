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
folder, created when used); `~` and $VARS are expanded, $VARS only from the environment the
plugin may see (base variables and the env vars granted to it), so a manifest cannot pull a
secret it was not granted into its arguments or `env`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from homeclaw_cli.catalog.plugin_files import with_deps_env
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.permissions import BASE_ENV_VARS, allowed_env, expand_vars

if TYPE_CHECKING:
    from homeclaw_cli.runtime.runners.base import RunTarget


def plugin_data_dir(data_dir: Path, plugin_id: str) -> Path:
    """The folder a plugin may keep files in (the same one BasePlugin.data_dir gives)."""
    return data_dir / "plugin-data" / plugin_id


def expand_args(
    args: list[str],
    folder: Path | None,
    data_dir: Path,
    plugin_id: str = "",
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """Fill `{plugin_dir}`, `{data_dir}` and `{plugin_data}` (created when used) and expand
    `~` and $VARS in manifest arguments.

    $VARS come from `env` (the plugin's allowed environment); by default only base variables.
    """
    source = allowed_env(Permissions()) if env is None else env
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
        value = expand_vars(value, source)
        out.append(str(Path(value).expanduser()) if value.startswith("~") else value)
    return out


#: Inherited by every plugin process; anything else (API keys...) only when granted: declared
#: under `permissions.env_vars` or referenced by the manifest's `env`, e.g.
#: `env: {NEWSAPI_KEY: "${NEWSAPI_KEY}"}`, and approved at `homeclaw plugin install`.
BASE_ENV = BASE_ENV_VARS


def plugin_env(
    extra: dict[str, str],
    plugin_id: str,
    data_dir: Path,
    *,
    permissions: Permissions | None = None,
    folder: Path | None = None,
    pass_through: Collection[str] | None = None,
) -> dict[str, str]:
    """The environment of a plugin process: a minimal base (BASE_ENV and LC_*), the granted
    env vars named in `pass_through` (default: all granted), the manifest's `env` with $VARS
    expanded from the granted environment, two markers, and its `--with-deps` folder first
    on PYTHONPATH. A var the manifest only references (`API_KEY: ${WEATHER_KEY}`) reaches the
    process under the manifest's name only."""
    perms = permissions or Permissions()
    source = allowed_env(perms)
    names = [n for n in perms.env_vars if pass_through is None or n in pass_through]
    env = allowed_env(perms.model_copy(update={"env_vars": names}))
    env.update({key: expand_vars(value, source) for key, value in extra.items()})
    env["HOMECLAW_PLUGIN_ID"] = plugin_id
    env["HOMECLAW_PLUGIN_DATA"] = str(plugin_data_dir(data_dir, plugin_id))
    return with_deps_env(folder, env)


def process_env_and_args(
    target: RunTarget, env: dict[str, str], args: list[str]
) -> tuple[dict[str, str], list[str]]:
    """The environment and expanded arguments of a plugin process, both limited to what the
    plugin was granted (subprocess plugins and MCP stdio servers)."""
    granted = target.granted
    process_env = plugin_env(
        env,
        target.plugin_id,
        target.data_dir,
        permissions=granted,
        folder=target.folder,
        pass_through=target.manifest.permissions.env_vars,
    )
    expanded = expand_args(
        args, target.folder, target.data_dir, target.plugin_id, allowed_env(granted)
    )
    return process_env, expanded
