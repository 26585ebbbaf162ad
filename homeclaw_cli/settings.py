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
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from homeclaw_cli.errors import ConfigError, missing_path
from homeclaw_cli.suggest import did_you_mean

APP_NAME = "homeclaw"
REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_PLUGINS_DIR = REPO_ROOT / "plugins"
BUNDLED_SKILLS_DIR = REPO_ROOT / "skills"
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
MAX_CONFIG_BYTES = 1024 * 1024


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class RetrievalSettings(_Section):
    """Seed 002 §8.4 keys, shared by plugins and skills."""

    use_vector_search: bool = True
    method: Literal["dense", "fts", "hybrid"] = Field(
        default="hybrid", description="retrieval method (benchmarks/retrieval/RESULTS.md)"
    )
    table: str
    max_retrieved: int = Field(default=5, ge=1, le=100)
    similarity_threshold: float = Field(
        default=0.2, ge=-1.0, le=1.0, description="tuned on benchmarks/retrieval (RESULTS.md)"
    )
    max_in_prompt: int = Field(default=5, ge=0, description="0 = no limit")
    relative_margin: float = Field(
        default=0.15, ge=0.0, le=2.0, description="drop hits this far below the best one"
    )
    fusion: Literal["none", "max", "centroid", "weighted"] = Field(
        default="weighted",
        description="how example and capability vectors join the descriptor's score",
    )
    fusion_weight: float = Field(default=0.5, ge=0.0, le=1.0, description="for fusion: weighted")
    refresh_on_startup: bool = True
    incremental_sync: bool = True
    dirs: list[Path] = Field(default_factory=list, description="extra folders to scan")
    user_dir: Path | None = Field(default=None, description="default: <data_dir>/<kind>")


class PluginSettings(RetrievalSettings):
    table: str = "homeclaw_plugins"
    embed_text: Literal["full", "description"] = Field(
        default="full",
        description="what a plugin's vector embeds: full (name, descriptions, keywords, "
        "capabilities) or description (description + description_long)",
    )
    trust_workspace: bool = Field(
        default=False, description="load ./plugins of the cwd (a cloned repository's, too)"
    )
    inline_timeout_sec: float = Field(
        default=60.0, gt=0, description="how long an inline plugin call may take"
    )


class SkillEntrySettings(_Section):
    """Per-skill switches, OpenClaw's `skills.entries.<id>`."""

    enabled: bool = True
    env: dict[str, str] = Field(
        default_factory=dict, description="env vars given to this skill's scripts"
    )


class SkillSettings(RetrievalSettings):
    table: str = "homeclaw_skills"
    test_dir: Path | None = None
    trust_workspace: bool = Field(default=False, description="load ./skills of the cwd")
    script_allowlist: list[str] = Field(
        default_factory=lambda: ["*"],
        description="glob patterns of `<skill id>/<script>` run_skill may run",
    )
    script_timeout_sec: float = Field(default=30.0, gt=0, le=3600)
    script_max_output_bytes: int = Field(default=64 * 1024, ge=1024, le=16 * 1024 * 1024)
    entries: dict[str, SkillEntrySettings] = Field(default_factory=dict)
    config: dict[str, Any] = Field(
        default_factory=dict, description="values metadata requires.config paths look up"
    )


class LLMSettings(_Section):
    provider: Literal["ollama", "openai"] = "ollama"
    host: str = "http://127.0.0.1:11434"
    model: str = "llama3.2"
    max_rounds: int = Field(default=6, ge=1, le=50)
    timeout_sec: float = Field(default=120.0, gt=0)
    api_key: str | None = Field(default=None, description="provider openai: bearer token")
    num_ctx: int | None = Field(
        default=None, ge=512, description="context window to request (Ollama num_ctx)"
    )
    temperature: float | None = Field(
        default=0.2,
        ge=0,
        le=2,
        description="sampling temperature sent to the server (low: steady tool routing); "
        "null: the server's default",
    )
    tool_mode: Literal["auto", "native", "json"] = Field(
        default="auto", description="auto: native tool calls when /api/show lists `tools`"
    )
    decide: Literal["auto", "always", "never"] = Field(
        default="auto", description="constrained tool-or-answer step (README, Configuration)"
    )
    search_tools: bool = Field(default=False, description="offer search_plugins in chat")


class ToolSettings(_Section):
    """The chat's built-in tools (seed 002 §5)."""

    allowed_dirs: list[Path] = Field(
        default_factory=list,
        description="folders read_file/list_dir may read; none: the file tools are not offered",
    )
    approve: Literal["ask", "auto", "never"] = Field(
        default="ask",
        description="model tool calls that are not read-only: ask (default), auto (run), never",
    )
    approve_rules: dict[str, Literal["ask", "auto", "never"]] = Field(
        default_factory=dict,
        description="per plugin or capability, e.g. {notes: auto, notes.delete_note: never}",
    )
    fetch_max_bytes: int = Field(default=512 * 1024, ge=1024)
    fetch_timeout_sec: float = Field(default=15.0, gt=0, le=300)
    fetch_allow_private: bool = Field(default=False, description="allow 127.0.0.1/LAN URLs")
    plugin_allowed: list[str] = Field(
        default_factory=lambda: ["current_time", "fetch_url"],
        description="built-in tools plugins may call",
    )


class EmbeddingSettings(_Section):
    model: str = DEFAULT_EMBEDDING_MODEL
    batch_size: int = Field(default=64, ge=1)


class IndexSettings(_Section):
    uri: str | None = Field(default=None, description="default: <data_dir>/index")
    snapshots: bool = Field(
        default=True, description="fast read-only snapshots for queries (local index only)"
    )
    expand: Literal["off", "auto"] = Field(
        default="off",
        description="auto: sync writes example requests with the chat model when it is "
        "reachable (as `sync --expand`); off: only `sync --expand` does",
    )
    expand_count: int = Field(
        default=5, ge=1, le=20, description="example requests generated per capability or skill"
    )
    expand_temperature: float = Field(
        default=0.7, ge=0, le=2, description="sampling temperature of the example generation"
    )


class ServeSettings(_Section):
    """`homeclaw serve` (registration API) and the health checks of external plugins."""

    host: str = "127.0.0.1"
    port: int = Field(default=9750, ge=0, le=65535)
    require_token: bool = Field(default=True, description="bearer token for register/unregister")
    max_body_bytes: int = Field(default=256 * 1024, ge=1024)
    check_on_register: bool = Field(default=True, description="GET health_check_url first")
    health_interval_sec: float = Field(default=30.0, ge=0, description="0 = no interval checks")
    health_timeout_sec: float = Field(default=5.0, gt=0)
    unhealthy_after: int = Field(default=3, ge=1, description="failed checks before unhealthy")
    allow_command_plugins: bool = Field(
        default=False, description="accept subprocess / stdio-MCP registrations over HTTP"
    )
    sync_on_register: bool = Field(
        default=True, description="update the plugin index after each registration change"
    )


class Settings(_Section):
    """Everything a command needs to know about its environment, passed down explicitly."""

    data_dir: Path
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


CONFIGURABLE_SECTIONS: dict[str, type[_Section]] = {
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

    if config_file is not None:
        config_path, config_source = config_file.expanduser(), "flag --config"
        if not config_path.is_file():
            hint = "create it, or drop --config to use " + str(default_config)
            if not config_path.exists():
                raise missing_path(f"config file {config_path}", hint=hint)
            raise ConfigError(
                f"config file {config_path} is a folder, not a file",
                hint=hint,
            )
    elif env.get("HOMECLAW_CONFIG"):
        config_path, config_source = Path(env["HOMECLAW_CONFIG"]).expanduser(), "env"
    else:
        config_path, config_source = default_config, "default"

    values: dict[str, Any] = {"data_dir": str(default_data)}
    sources: dict[str, str] = {}
    if config_path.is_file():
        for key, value in _flatten(_read_config_file(config_path)).items():
            values[key] = value
            sources[key] = f"config {config_path}"

    for key, (value, var) in _env_values(env).items():
        values[key] = value
        sources[key] = f"env {var}"
    for key, value in (flags or {}).items():
        if value is not None:
            values[key] = value
            sources[key] = f"flag --{key.split('.')[-1].replace('_', '-')}"

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
        raise _config_error(exc, sources) from None
    settings.sources.setdefault("config_path", config_source)
    return settings


def effective_values(settings: Settings) -> list[tuple[str, Any, str]]:
    """(dotted key, value, source) for every configurable key, for `config show`."""
    rows: list[tuple[str, Any, str]] = []
    dumped = settings.model_dump(mode="json")
    for key, value in _flatten(dumped).items():
        rows.append((key, value, settings.sources.get(key, "default")))
    rows.append(("index.uri (effective)", settings.index_uri, "derived from data_dir"))
    rows.append(("plugins.user_dir (effective)", str(settings.user_plugins_dir), "derived"))
    rows.append(("skills.user_dir (effective)", str(settings.user_skills_dir), "derived"))
    return rows


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: config file is {size} bytes; the limit is 1 MiB")
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ConfigError(
            f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})",
            hint="fix the syntax at that line",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config file must be a mapping of keys to values")
    _check_known_keys(data, path)
    return data


def _check_known_keys(data: dict[str, Any], path: Path) -> None:
    known_top = [*TOP_LEVEL_KEYS, *CONFIGURABLE_SECTIONS]
    for key, value in data.items():
        if key in CONFIGURABLE_SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: `{key}` must be a mapping, e.g. `{key}: {{...}}`")
            fields = CONFIGURABLE_SECTIONS[key].model_fields
            for sub in value:
                if sub not in fields:
                    raise ConfigError(
                        f"{path}: unknown key `{key}.{sub}`{did_you_mean(sub, fields)}",
                        hint=f"valid keys under `{key}`: {', '.join(fields)}",
                    )
        elif key not in TOP_LEVEL_KEYS:
            raise ConfigError(
                f"{path}: unknown key `{key}`{did_you_mean(key, known_top)}",
                hint=f"valid top-level keys: {', '.join(known_top)}",
            )


def _env_values(env: Mapping[str, str]) -> dict[str, tuple[Any, str]]:
    out: dict[str, tuple[Any, str]] = {}
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
        if key in TOP_LEVEL_KEYS or (section in CONFIGURABLE_SECTIONS and "." in key):
            out[key] = (_parse_scalar(raw), var)
    if env.get("OLLAMA_HOST") and "llm.host" not in out:
        out["llm.host"] = (_normalize_ollama_host(env["OLLAMA_HOST"]), "OLLAMA_HOST")
    return out


def _normalize_ollama_host(raw: str) -> str:
    # The ollama CLI accepts bare "host:port" or ":port"; the HTTP client needs a URL.
    host = raw.strip()
    if host.startswith(":"):
        host = "127.0.0.1" + host
    if "://" not in host:
        host = "http://" + host
    return host


def _parse_scalar(raw: str) -> Any:
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw


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


def _config_error(exc: ValidationError, sources: Mapping[str, str]) -> ConfigError:
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        origin = sources.get(key, "default")
        lines.append(f"{key} = {err.get('input')!r} (from {origin}): {err['msg']}")
    return ConfigError("invalid configuration: " + "; ".join(lines), hint="fix the value shown")
