"""The path settings, made absolute once, where they are read: `~` and `$VAR` / `${VAR}`
expanded, and a relative path joined to the folder it was written against.

The rule: a relative path in the config file is relative to the config file's folder (the file
is read from anywhere, so the current folder would move the data each time); one from the
environment or a flag is relative to the current folder, as a shell path is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Every setting that names a local folder (index.uri only when it has no scheme).
PATH_KEYS = (
    "data_dir",
    "index.uri",
    "plugins.dirs",
    "plugins.user_dir",
    "skills.dirs",
    "skills.user_dir",
    "skills.test_dir",
    "tools.allowed_dirs",
)

_VAR_REF = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def expand_path(text: str, env: Mapping[str, str]) -> str:
    """`~` and `$VAR` / `${VAR}` from `env` (an unknown name stays as written, as in
    os.path.expandvars and the `${TOKEN}` of llm.headers)."""
    expanded = _VAR_REF.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)
    return str(Path(expanded).expanduser())


def absolute_paths(
    values: dict[str, Any], sources: Mapping[str, str], env: Mapping[str, str], cwd: Path
) -> None:
    """Expand and anchor every path setting in `values` (dotted keys) in place; a value of the
    wrong type is left for validation to report."""
    for key in PATH_KEYS:
        if key not in values:
            continue
        origin = sources.get(key, "")
        config_file = origin.removeprefix("config ")
        base = cwd / Path(config_file).parent if origin.startswith("config ") else cwd
        value = values[key]
        if isinstance(value, list):
            values[key] = [_anchor(item, base, env) for item in value]
        elif key != "index.uri" or (isinstance(value, str) and "://" not in value):
            values[key] = _anchor(value, base, env)


def _anchor(value: Any, base: Path, env: Mapping[str, str]) -> Any:
    if not isinstance(value, str | Path) or not str(value):
        return value
    return str(base / expand_path(str(value), env))
