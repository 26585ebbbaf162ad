"""The configurable sections of homeclaw's settings (one pydantic model each).

`homeclaw config show` lists every key with its default; settings.py joins them into one
Settings and reads them from the config file, the environment and flags.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class RetrievalSettings(Section):
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
    best_over_threshold: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="nothing is offered unless the best match clears similarity_threshold by "
        "this much; the others need similarity_threshold",
    )
    fusion: Literal["none", "max", "centroid", "weighted"] = Field(
        default="weighted",
        description="how example and capability vectors join the descriptor's score",
    )
    fusion_weight: float = Field(default=0.5, ge=0.0, le=1.0, description="for fusion: weighted")
    fusion_centroid: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="for fusion: weighted, the share of the facet side taken by the mean of a "
        "plugin's example and capability vectors (the rest: its best one)",
    )
    name_bonus: float = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="added when the query uses a word of the id/name that no other id has",
    )
    split_clauses: bool = Field(
        default=True, description="also search each part of a two-need request on its own"
    )
    refresh_on_startup: bool = True
    incremental_sync: bool = True
    # Every path setting is expanded and anchored as data_dir is (settings_paths.py).
    dirs: list[Path] = Field(
        default_factory=list, description="extra folders to scan (relative: as data_dir)"
    )
    user_dir: Path | None = Field(default=None, description="default: <data_dir>/<kind>")


class PluginSettings(RetrievalSettings):
    table: str = "homeclaw_plugins"
    similarity_threshold: float = Field(
        default=0.2,
        ge=-1.0,
        le=1.0,
        description="calibrated on recall and on no-plugin turns: benchmarks/retrieval/CUT.md",
    )
    best_over_threshold: float = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="nothing is offered unless the best match clears similarity_threshold by "
        "this much; the others need similarity_threshold (benchmarks/retrieval/CUT.md)",
    )
    embed_text: Literal["full", "description"] = Field(
        default="full",
        description="what a plugin's vector embeds: full (name, descriptions, keywords, "
        "capabilities) or description (description + description_long)",
    )
    text_facets: bool = Field(
        default=False,
        description="also embed `name: description` and description_long as their own vectors, "
        "fused like examples (benchmarks/retrieval/RESULTS.md)",
    )
    trust_workspace: bool = Field(
        default=False, description="load ./plugins of the cwd (a cloned repository's, too)"
    )
    inline_timeout_sec: float = Field(
        default=60.0, gt=0, description="how long an inline plugin call may take"
    )


class SkillEntrySettings(Section):
    """Per-skill switches, OpenClaw's `skills.entries.<id>`."""

    enabled: bool = True
    env: dict[str, str] = Field(
        default_factory=dict, description="env vars given to this skill's scripts"
    )


class SkillSettings(RetrievalSettings):
    table: str = "homeclaw_skills"
    similarity_threshold: float = Field(
        default=0.3,
        ge=-1.0,
        le=1.0,
        description="calibrated on skill requests and general questions: "
        "benchmarks/retrieval/CUT.md, Skills",
    )
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


class LLMSettings(Section):
    provider: Literal["ollama", "openai"] = "ollama"
    host: str = "http://127.0.0.1:11434"
    model: str = "llama3.2"
    max_rounds: int = Field(default=6, ge=1, le=50)
    timeout_sec: float = Field(default=120.0, gt=0)
    api_key: str | None = Field(default=None, description="provider openai: bearer token")
    api_key_env: str | None = Field(default=None, description="env var holding the API key")
    headers: dict[str, str] = Field(default_factory=dict, description="e.g. a proxy's auth")
    retries: int = Field(default=2, ge=0, le=10, description="retries of a failed connection")
    connect_timeout_sec: float = Field(default=5.0, gt=0, le=300)
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
    # Servers generate without end by default (Ollama num_predict -1, llama.cpp n_predict -1,
    # shifting the context when it is full): a small model that loops after its answer held a
    # 2-core CPU for half an hour. 2048 tokens is far above any chat answer measured.
    max_reply_tokens: int | None = Field(
        default=2048,
        ge=16,
        description="cap on the tokens of one reply (Ollama num_predict, OpenAI max_tokens); "
        "null: the server's default, which may never end",
    )
    tool_mode: Literal["auto", "native", "json"] = Field(
        default="auto", description="auto: native tool calls when /api/show lists `tools`"
    )
    decide: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="a constrained tool-or-answer decision when the model answered without "
        "calling an offered plugin: auto (retrieval confident, an answer stating its own "
        "figure for a request with a number, in digits or words, to a plugin that takes "
        "figures and only looks things up, or a follow-up to a plugin turn), always (small "
        "models), never; except with never, also before a first call only to weakly "
        "retrieved plugins",
    )
    search_tools: bool = Field(
        default=False,
        description="offer search_plugins/search_skills in chat (small models call them for "
        "small talk)",
    )
    each_need: bool = Field(
        default=True,
        description='two needs in one request ("5 miles in km and 17 times 23", "... Also, ..."):'
        " a part no plugin call served, whose offered plugin retrieval is sure of, is asked on "
        "its own",
    )

    @field_validator("host")
    @classmethod
    def _a_server_url(cls, value: str) -> str:
        """A URL the HTTP client can open, checked here so a typo is a config error."""
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(value)
            _ = parts.port  # a port that is not a number from 0 to 65535 raises here
        except ValueError as exc:
            raise ValueError(f"{value!r} is not a server URL ({exc})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{value!r} is not a server URL such as http://127.0.0.1:11434")
        return value


class ToolSettings(Section):
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


class EmbeddingSettings(Section):
    model: str = DEFAULT_EMBEDDING_MODEL
    batch_size: int = Field(default=64, ge=1)
    int8_queries: bool = Field(
        default=False,
        description="embed queries with an int8 copy of the model: about twice as fast for"
        " a large one (all-mpnet-base-v2); sync writes it",
    )


class IndexSettings(Section):
    """A folder, or s3:// gs:// az:// object storage (docs/team.md)."""

    uri: str | None = Field(
        default=None, description="default: <data_dir>/index; a folder is expanded as data_dir"
    )
    snapshots: bool = Field(default=True, description="fast local read-only snapshots for queries")
    endpoint: str | None = Field(default=None, description="S3-compatible server URL; none: AWS")
    region: str | None = Field(default=None, description="object-store region")
    allow_http: bool = Field(default=False, description="allow a plain-http endpoint")
    profile: str | None = Field(default=None, description="AWS named profile for the keys")
    storage_options: dict[str, str] = Field(
        default_factory=dict, description="more LanceDB storage options (secrets masked)"
    )
    connect_timeout_sec: float = Field(default=3.0, gt=0, le=300)
    timeout_sec: float = Field(default=30.0, gt=0, le=3600, description="one object-store request")
    max_retries: int = Field(default=2, ge=0, le=20, description="object-store request retries")
    refresh_interval_sec: float = Field(
        default=30.0, ge=0, description="object store: snapshot age before a version check"
    )
    expand: Literal["off", "auto"] = Field(
        default="off",
        description="auto: sync writes example requests with the chat model when it is "
        "reachable (as `sync --expand`); off: only `sync --expand` does",
    )
    expand_count: int = Field(
        default=5, ge=1, le=10, description="example requests generated per capability or skill"
    )
    expand_temperature: float = Field(
        default=0.7, ge=0, le=2, description="sampling temperature of the example generation"
    )

    @field_validator("expand", mode="before")
    @classmethod
    def _yaml_switch(cls, value: Any) -> Any:
        """`expand: off` is what people write; YAML reads a bare off/on as a boolean."""
        if isinstance(value, bool):
            return "auto" if value else "off"
        return value


class ServeSettings(Section):
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
