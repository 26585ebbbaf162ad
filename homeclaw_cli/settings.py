"""Config file + HOMECLAW_* environment + command-line flags -> one Settings object.

Precedence, lowest to highest: built-in defaults, the YAML config file, environment variables,
flags. Every leaf value remembers where it came from (`homeclaw config show`).

Environment variables:
  HOMECLAW_HOME=DIR            config, data and index all under DIR (tests, CI, profiles)
  HOMECLAW_CONFIG=FILE         the config file to read
  HOMECLAW_PLUGINS_PATH=A:B    extra plugin folders (os.pathsep separated)
  HOMECLAW_SKILLS_PATH=A:B     extra skill folders
  HOMECLAW_NO_BUNDLED=1        leave the bundled plugins and skills out
  HOMECLAW_MODEL=NAME          the chat model (llm.model)
  OLLAMA_HOST=URL              the Ollama server (llm.host), as the ollama CLI reads it
  HOMECLAW_<SECTION>__<KEY>    any other key, e.g. HOMECLAW_PLUGINS__MAX_RETRIEVED=3
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError

from homeclaw_cli.errors import ConfigError, missing_path
from homeclaw_cli.settings_paths import absolute_paths
from homeclaw_cli.settings_sections import (
    DEFAULT_EMBEDDING_MODEL,
    EmbeddingSettings,
    IndexSettings,
    LLMSettings,
    PluginSettings,
    RetrievalSettings,
    Section,
    ServeSettings,
    SkillSettings,
    ToolSettings,
)
from homeclaw_cli.suggest import closest, did_you_mean
from homeclaw_cli.yaml_keys import first_duplicate_key

__all__ = [
    "BUNDLED_PLUGINS_DIR",
    "BUNDLED_SKILLS_DIR",
    "DEFAULT_EMBEDDING_MODEL",
    "RetrievalSettings",
    "Settings",
    "effective_values",
    "load_settings",
    "mask_secret",
]

APP_NAME = "homeclaw"
REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_PLUGINS_DIR = REPO_ROOT / "plugins"
BUNDLED_SKILLS_DIR = REPO_ROOT / "skills"
MAX_CONFIG_BYTES = 1024 * 1024


class Settings(Section):
    """Everything a command needs to know about its environment, passed down explicitly."""

    data_dir: Path = Field(
        description="models, state and the index; `~` and $VAR expanded, a relative path is "
        "relative to the config file's folder (from the environment or a flag: the current one)"
    )
    bundled: bool = True
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    plugins: PluginSettings = Field(default_factory=PluginSettings)
    skills: SkillSettings = Field(default_factory=SkillSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)

    # Not configurable keys: where this Settings came from.
    config_path: Path = Field(exclude=True)
    cwd: Path = Field(exclude=True)
    sources: dict[str, str] = Field(default_factory=dict, exclude=True)
    extra_plugin_dirs: list[Path] = Field(default_factory=list, exclude=True)
    extra_skill_dirs: list[Path] = Field(default_factory=list, exclude=True)

    @property
    def index_uri(self) -> str:
        return self.index.uri or str(self.data_dir / "index")

    @property
    def user_plugins_dir(self) -> Path:
        return self.plugins.user_dir or self.data_dir / "plugins"

    @property
    def user_skills_dir(self) -> Path:
        return self.skills.user_dir or self.data_dir / "skills"

    @property
    def external_plugins_file(self) -> Path:
        return self.data_dir / "external_plugins.json"

    @property
    def state_dir(self) -> Path:
        """Small state files: health results, locks, history."""
        return self.data_dir / "state"


CONFIGURABLE_SECTIONS: dict[str, type[Section]] = {
    "llm": LLMSettings,
    "embedding": EmbeddingSettings,
    "index": IndexSettings,
    "plugins": PluginSettings,
    "skills": SkillSettings,
    "tools": ToolSettings,
    "serve": ServeSettings,
}
TOP_LEVEL_KEYS = ("data_dir", "bundled")


def default_paths(env: Mapping[str, str]) -> tuple[Path, Path]:
    """(config file, data dir) before any override: HOMECLAW_HOME or the platform dirs."""
    home = env.get("HOMECLAW_HOME")
    if home:
        root = Path(home).expanduser().resolve()
        return root / "config.yaml", root / "data"
    import platformdirs

    return (
        platformdirs.user_config_path(APP_NAME) / "config.yaml",
        platformdirs.user_data_path(APP_NAME),
    )


def load_settings(
    *,
    config_file: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    extra_plugin_dirs: list[Path] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Build Settings from defaults, the config file, `env` and `flags` (dotted keys)."""
    env = os.environ if env is None else env
    cwd = (cwd or Path.cwd()).resolve()
    default_config, default_data = default_paths(env)
    config_path, config_source = _config_location(config_file, env, default_config)

    values: dict[str, Any] = {"data_dir": str(default_data)}
    sources: dict[str, str] = {}
    problems: list[str] = []  # every bad key and value, reported together
    if config_source == "env" and not config_path.exists():
        hint = f"create it, or unset HOMECLAW_CONFIG to use {default_config}"
        raise missing_path(f"config file {config_path} (from HOMECLAW_CONFIG)", hint=hint)
    if config_path.exists() and not config_path.is_file():
        raise ConfigError(
            f"config file {config_path} is a folder, not a file",
            hint=f"remove or rename that folder, then create the file {config_path}",
        )
    if config_path.is_file():
        data, problems = _read_config_file(config_path)
        for key, value in _flatten(data).items():
            values[key] = value
            sources[key] = f"config {config_path}"

    env_values, env_problems = _env_values(env)
    problems += env_problems
    for key, (value, var) in env_values.items():
        values[key] = value
        sources[key] = f"env {var}"
    for key, value in (flags or {}).items():
        if value is not None:
            values[key] = value
            sources[key] = f"flag --{key.split('.')[-1].replace('_', '-')}"

    absolute_paths(values, sources, env, cwd)
    nested = _unflatten(values)
    nested.update(config_path=config_path, cwd=cwd, sources=sources)
    nested["extra_plugin_dirs"] = [
        *(extra_plugin_dirs or []),
        *_env_paths(env, "HOMECLAW_PLUGINS_PATH"),
    ]
    nested["extra_skill_dirs"] = _env_paths(env, "HOMECLAW_SKILLS_PATH")
    try:
        settings = Settings.model_validate(nested)
    except ValidationError as exc:
        raise _config_error(problems + _value_problems(exc, sources)) from None
    if problems:
        raise _config_error(problems)
    settings.sources.setdefault("config_path", config_source)
    return settings


def config_file_path(config_file: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The config file homeclaw reads, found without reading it: `config path` prints it
    even when the file is invalid, exactly when the user needs to open it."""
    env = os.environ if env is None else env
    return _config_location(config_file, env, default_paths(env)[0])[0]


def _config_location(
    config_file: Path | None, env: Mapping[str, str], default_config: Path
) -> tuple[Path, str]:
    """The config file to read and where that choice came from (flag, env or default)."""
    if config_file is None:
        if env.get("HOMECLAW_CONFIG"):
            return Path(env["HOMECLAW_CONFIG"]).expanduser(), "env"
        return default_config, "default"
    config_path = config_file.expanduser()
    if not config_path.is_file():
        hint = "create it, or drop --config to use " + str(default_config)
        if not config_path.exists():
            raise missing_path(f"config file {config_path}", hint=hint)
        raise ConfigError(f"config file {config_path} is a folder, not a file", hint=hint)
    return config_path, "flag --config"


def effective_values(settings: Settings) -> list[tuple[str, Any, str]]:
    """(dotted key, value, source) for every configurable key, for `config show`."""
    rows: list[tuple[str, Any, str]] = []
    dumped = settings.model_dump(mode="json")
    for key, value in _flatten(dumped).items():
        rows.append((key, value, settings.sources.get(key, "default")))
    rows = [(key, mask_secret(key, value), source) for key, value, source in rows]
    rows.append(("index.uri (effective)", settings.index_uri, "derived from data_dir"))
    rows.append(("plugins.user_dir (effective)", str(settings.user_plugins_dir), "derived"))
    rows.append(("skills.user_dir (effective)", str(settings.user_skills_dir), "derived"))
    return rows


def mask_secret(key: str, value: Any) -> Any:
    """`value` with secrets replaced by `***`: llm.api_key, header values, storage keys."""
    if key == "llm.api_key" and value:
        return "***"
    if key in ("llm.headers", "index.storage_options") and isinstance(value, dict):
        words = ("secret", "key", "token", "password", "authorization", "sas", "credential")
        hide = [k for k in value if key == "llm.headers" or any(w in k.lower() for w in words)]
        return {k: "***" if k in hide else v for k, v in value.items()}
    return value


def _read_config_file(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The file's known keys, and one problem line per unknown key."""
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: config file is {size} bytes; the limit is 1 MiB")
        data = _load_yaml(path, path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ConfigError(
            f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})",
            hint="fix the syntax at that line",
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: the config file is not UTF-8 text (invalid byte at offset {exc.start})",
            hint="save it as UTF-8",
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read config file ({exc.strerror})",
            hint="make it readable for this user, or point --config or HOMECLAW_CONFIG elsewhere",
        ) from None
    if not isinstance(data, dict):
        held = "a list" if isinstance(data, list) else f"the {type(data).__name__} {data!r}"
        raise ConfigError(
            f"{path}: the config file holds {held}, not a mapping of keys to values",
            hint="write one `key: value` per line, e.g. `llm: {model: llama3.2}`",
        )
    return _known_keys(data, path)


def _load_yaml(path: Path, text: str) -> Any:
    """yaml.safe_load, refusing a key written twice in one mapping (PyYAML keeps the last)."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        duplicate = first_duplicate_key(node) if node is not None else None
        if duplicate is not None:
            raise ConfigError(
                f"{path}:{duplicate.line}:{duplicate.column}: {duplicate.message()}",
                hint="keep one of them (the second silently replaced the first)",
            )
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def _known_keys(data: dict[str, Any], path: Path) -> tuple[dict[str, Any], list[str]]:
    known_top = [*TOP_LEVEL_KEYS, *CONFIGURABLE_SECTIONS]
    kept: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in data.items():
        if key in CONFIGURABLE_SECTIONS:
            if not isinstance(value, dict):
                problems.append(f"{path}: `{key}` must be a mapping, e.g. `{key}: {{...}}`")
                continue
            fields = CONFIGURABLE_SECTIONS[key].model_fields
            kept[key] = {sub: v for sub, v in value.items() if sub in fields}
            problems += [
                f"{path}: unknown key `{key}.{sub}`"
                + (did_you_mean(sub, fields) or f" (valid under `{key}`: {', '.join(fields)})")
                for sub in value
                if sub not in fields
            ]
        elif key in TOP_LEVEL_KEYS:
            kept[key] = value
        else:
            problems.append(
                f"{path}: unknown key `{key}`"
                + (did_you_mean(key, known_top) or f" (top-level keys: {', '.join(known_top)})")
            )
    return kept, problems


def _env_values(env: Mapping[str, str]) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """The keys HOMECLAW_* variables set, and one problem line per misspelled one."""
    out: dict[str, tuple[Any, str]] = {}
    problems: list[str] = []
    special = {"HOMECLAW_HOME", "HOMECLAW_CONFIG", "HOMECLAW_PLUGINS_PATH", "HOMECLAW_SKILLS_PATH"}
    for var, raw in sorted(env.items()):
        if not var.startswith("HOMECLAW_") or var in special:
            continue
        if var == "HOMECLAW_NO_BUNDLED":
            out["bundled"] = (raw.strip().lower() in ("", "0", "false", "no"), var)
            continue
        if var == "HOMECLAW_MODEL":
            out["llm.model"] = (raw, var)
            continue
        key = var.removeprefix("HOMECLAW_").lower().replace("__", ".")
        section = key.split(".")[0]
        problem = _unknown_env_key(var, key) if "." in key else None
        if problem:
            problems.append(problem)
        elif key in TOP_LEVEL_KEYS or (section in CONFIGURABLE_SECTIONS and "." in key):
            out[key] = (_parse_scalar(raw), var)
    if env.get("OLLAMA_HOST") and "llm.host" not in out:
        out["llm.host"] = (_normalize_ollama_host(env["OLLAMA_HOST"]), "OLLAMA_HOST")
    return out, problems


def _unknown_env_key(var: str, key: str) -> str | None:
    """`HOMECLAW_PLUGINS__MAX_RETRIEVD` -> the problem, with the variable it should be; None
    when the key exists, or when the section is not near any of ours (another program's
    HOMECLAW_ variable). A section name is matched too (HOMECLAW_PLUGIN__...)."""
    section, _, rest = key.partition(".")
    sub = rest.split(".")[0]
    fields = CONFIGURABLE_SECTIONS.get(section)
    if fields is not None and sub in fields.model_fields:
        return None
    right_section = section if fields is not None else closest(section, CONFIGURABLE_SECTIONS)
    if right_section is None:
        return None
    known = CONFIGURABLE_SECTIONS[right_section].model_fields
    right_sub = sub if sub in known else closest(sub, known)
    problem = f"{var} (env): unknown key `{key}`"
    if right_sub is None:
        return f"{problem} (valid under `{right_section}`: {', '.join(known)})"
    return f"{problem} (did you mean HOMECLAW_{right_section.upper()}__{right_sub.upper()}?)"


def _normalize_ollama_host(raw: str) -> str:
    # The ollama CLI accepts bare "host", "host:port" or ":port" (port 11434 when none is
    # given); the HTTP client needs a URL.
    host = raw.strip()
    if host.startswith(":"):
        host = "127.0.0.1" + host
    if "://" not in host:
        bare = host.rstrip("/")
        has_port = bare.rsplit("]", 1)[-1].count(":") == 1 if "[" in bare else ":" in bare
        host = "http://" + (bare if has_port else f"{bare}:11434")
    return host


def _parse_scalar(raw: str) -> Any:
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw


def check_item_dirs(settings: Settings, env: Mapping[str, str] | None = None) -> None:
    """A plugin or skill folder named in HOMECLAW_PLUGINS_PATH / HOMECLAW_SKILLS_PATH or
    `plugins.dirs` / `skills.dirs` that does not exist is exit 4, as with `--plugins-dir`:
    skipped, it would let `sync` drop its items from the index as if they had been removed."""
    env = os.environ if env is None else env
    for kind, section in (("plugin", settings.plugins), ("skill", settings.skills)):
        var = f"HOMECLAW_{kind.upper()}S_PATH"
        named = [(path, var, f"remove it from {var}") for path in _env_paths(env, var)]
        origin = settings.sources.get(f"{kind}s.dirs", "")  # "config FILE", "env VAR", a flag
        where = f"{kind}s.dirs"
        if origin.startswith("config "):
            where = f"{kind}s.dirs in {origin.removeprefix('config ')}"
        elif origin.startswith("env "):
            where = origin.removeprefix("env ")
        named += [(path, where, f"remove it from {where}") for path in section.dirs]
        for path, source, fix in named:
            if not (settings.cwd / path.expanduser()).exists():
                raise missing_path(
                    f"{kind} folder {path} (from {source})", hint=f"create it, or {fix}"
                )


def _env_paths(env: Mapping[str, str], var: str) -> list[Path]:
    return [Path(p).expanduser() for p in env.get(var, "").split(os.pathsep) if p.strip()]


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and key in CONFIGURABLE_SECTIONS and not prefix:
            flat.update(_flatten(value, f"{dotted}."))
        else:
            flat[dotted] = value
    return flat


def _unflatten(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        head, _, tail = key.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = value
        else:
            nested[head] = value
    return nested


def _value_problems(exc: ValidationError, sources: Mapping[str, str]) -> list[str]:
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        origin = sources.get(key, "default")
        lines.append(f"{key} = {err.get('input')!r} (from {origin}): {err['msg']}")
    return lines


def _config_error(problems: list[str]) -> ConfigError:
    """One error naming every problem, so one edit fixes them all."""
    if len(problems) == 1:
        return ConfigError(f"invalid configuration: {problems[0]}", hint="fix the key or value")
    return ConfigError(
        f"invalid configuration ({len(problems)} problems):\n  - " + "\n  - ".join(problems),
        hint="fix each key or value listed",
    )
