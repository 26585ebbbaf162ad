"""Plugin descriptors: the seeds' schema (seed 000 §3, seed 001 §4) as pydantic models.

One PluginManifest for bundled, user and externally registered plugins (seed 000 §7): only
`source` differs. The type-specific `config` is a union tagged by the plugin-level `type`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from homeclaw_cli.core.approval import Effect
from homeclaw_cli.core.examples import Example, ExampleError, check_examples, check_not_for
from homeclaw_cli.core.ids import check_id, check_plugin_id
from homeclaw_cli.core.param_schema import schema_problem
from homeclaw_cli.core.plugin_needs import ENV_VAR_RE, Need
from homeclaw_cli.core.server_start import ServerStart, check_http_url

PARAM_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
PluginType = Literal["inline", "subprocess", "http", "mcp"]
ParamType = Literal["string", "number", "integer", "boolean", "object", "array"]
PLUGIN_TYPES: tuple[str, ...] = ("inline", "subprocess", "http", "mcp")
MANIFEST_NAMES: tuple[str, ...] = ("plugin.yaml", "plugin.yml", "plugin.json")


def _as_list(value: Any) -> Any:
    """`effects: read` is shorthand for `effects: [read]`."""
    return [value] if isinstance(value, str) else value


def _examples(value: Any) -> list[str]:
    try:
        return check_examples(value)
    except ExampleError as exc:
        raise rule_error(exc.reason, *([] if exc.index is None else [exc.index])) from None


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def value_matches_type(value: Any, param_type: str) -> bool:
    """True when `value` is a JSON value of `param_type` (booleans are not numbers)."""
    if param_type in ("number", "integer") and isinstance(value, bool):
        return False
    return isinstance(value, _PY_TYPES[param_type])


def with_article(word: str) -> str:
    """`a string`, `an integer`, `an object`."""
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def rule_error(reason: str, *subpath: str | int) -> PydanticCustomError:
    """A validation error whose field path continues below the validated field.

    `plugin validate` appends `subpath` to pydantic's location so the reported line is the
    offending key itself (e.g. capabilities[2].method), not its parent.
    """
    return PydanticCustomError("manifest_rule", "{reason}", {"reason": reason, "subpath": subpath})


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Parameter(_Model):
    name: str
    type: ParamType
    required: bool = True
    default: Any = None
    description: str = ""
    enum: list[str | int | float | bool] | None = None  # the only values allowed
    # The JSON Schema of an object or array parameter (properties, items), shown to the model.
    json_schema: dict[str, Any] | None = None
    # For people (`plugin call` hints), never shown to the model: small models copy examples.
    example: str | int | float | bool | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not PARAM_NAME_RE.match(value):
            raise ValueError(
                f"parameter name {value!r} must start with a letter or '_' and contain only "
                "letters, digits, '_' and '-'"
            )
        return value

    @property
    def has_default(self) -> bool:
        return "default" in self.model_fields_set

    @model_validator(mode="after")
    def _default_type(self) -> Parameter:
        if (
            self.has_default
            and self.default is not None
            and not value_matches_type(self.default, self.type)
        ):
            kind = with_article(self.type)
            raise rule_error(
                f"default {self.default!r} of parameter {self.name!r} is not {kind}", "default"
            )
        for index, value in enumerate(self.enum or []):
            if not value_matches_type(value, self.type):
                raise rule_error(
                    f"enum value {value!r} is not {with_article(self.type)}", "enum", index
                )
        if self.enum and self.has_default and self.default not in self.enum:
            raise rule_error(f"default {self.default!r} is not one of the enum values", "default")
        if self.enum == []:
            raise rule_error("an empty enum allows no value; list the allowed values", "enum")
        if self.json_schema is not None and self.type not in ("object", "array"):
            raise rule_error("json_schema is only for object and array parameters", "json_schema")
        problem = schema_problem(self.json_schema or {}, self.type)
        if problem:
            raise rule_error(problem[0], "json_schema", *problem[1])
        return self


class Capability(_Model):
    id: str
    name: str
    description: str
    parameters: list[Parameter] = Field(default_factory=list)
    output_description: str | None = None
    post_process: bool = False
    post_process_prompt: str | None = None
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] | None = None
    path: str | None = None
    # What a call does to the world (read | write | network | destructive); decides whether
    # the model may run it without asking. Absent: the plugin's `effects`, else inferred.
    effects: list[Effect] | None = None
    # Requests a user would type to reach this capability (see core/examples.py).
    examples: list[str] = Field(default_factory=list)

    _one_effect = field_validator("effects", mode="before")(_as_list)
    _valid_examples = field_validator("examples", mode="before")(_examples)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_id(value, "capability id")

    @field_validator("method", mode="before")
    @classmethod
    def _upper_method(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("parameters")
    @classmethod
    def _unique_parameters(cls, value: list[Parameter]) -> list[Parameter]:
        seen: set[str] = set()
        for index, param in enumerate(value):
            if param.name in seen:
                raise rule_error(f"duplicate parameter name {param.name!r}", index, "name")
            seen.add(param.name)
        return value

    @field_validator("path")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise rule_error(f"path {value!r} must start with '/' (it is relative to base_url)")
        return value


class InlineConfig(_Model):
    type: Literal["inline"] = "inline"
    config_file: str = "config.yml"
    plugin_module: str | None = None


class SubprocessConfig(_Model):
    type: Literal["subprocess"] = "subprocess"
    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    timeout_sec: float = Field(default=30.0, gt=0, le=3600)


class HttpConfig(_Model):
    type: Literal["http"] = "http"
    base_url: str
    path: str = "/run"
    timeout_sec: float = Field(default=30.0, gt=0, le=3600)
    start: ServerStart | None = None  # homeclaw starts and stops the server itself

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_http_url(value, "base_url")


class McpConfig(_Model):
    type: Literal["mcp"] = "mcp"
    transport: Literal["stdio", "sse", "streamable-http"] = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    tool: str = "handle_request"
    tools: dict[str, str] = Field(
        default_factory=dict, description="capability id -> server tool name, where they differ"
    )
    timeout_sec: float = Field(default=60.0, gt=0, le=3600)
    start: ServerStart | None = None  # sse / streamable-http: homeclaw runs the server

    @model_validator(mode="before")
    @classmethod
    def _base_url_alias(cls, data: Any) -> Any:
        # Seed 001 §4.1 calls the SSE endpoint `base_url`; accept it as `url`.
        if isinstance(data, dict) and "base_url" in data and "url" not in data:
            data = {**data, "url": data["base_url"]}
            del data["base_url"]
        return data

    @model_validator(mode="after")
    def _transport(self) -> McpConfig:
        if self.transport == "stdio" and not self.command:
            raise rule_error("transport stdio needs `command` (and optional `args`)", "command")
        if self.transport == "stdio" and self.start is not None:
            raise rule_error(
                "`start` is for sse / streamable-http servers; a stdio server is started "
                "from `command` already",
                "start",
            )
        if self.transport != "stdio":
            if not self.url:
                raise rule_error(f"transport {self.transport} needs `url`", "url")
            check_http_url(self.url, "url")
        return self


HOST_RE = re.compile(r"^(\*|(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?)$")


def normalize_host(entry: str) -> str:
    """`https://API.example.com/x` -> `api.example.com`; `host:8080` and `*.host` stay."""
    text = entry.strip().lower()
    if "://" in text:
        text = urlparse(text).netloc
    return text.rstrip("/")


class Permissions(_Model):
    """What a plugin or skill may reach (seed 003 PluginPermissions); empty means nothing.

    network: hosts (`api.example.com`, `*.example.com`, `host:8080`, or `*` for any host);
    filesystem: absolute or `~` paths (a folder grants everything below it);
    env_vars: environment variable names; shell: may run shell commands.
    """

    network: list[str] = Field(default_factory=list)
    filesystem: list[str] = Field(default_factory=list)
    env_vars: list[str] = Field(default_factory=list)
    shell: bool = False

    @field_validator("network", mode="before")
    @classmethod
    def _network(cls, value: Any) -> Any:
        # Seed 003 writes `network: false|true`; true means any host.
        if isinstance(value, bool):
            return ["*"] if value else []
        if isinstance(value, list):
            out = []
            for index, item in enumerate(value):
                if not isinstance(item, str) or not HOST_RE.match(normalize_host(item)):
                    raise rule_error(
                        f"network entry {item!r} is not a host (e.g. api.example.com, "
                        "*.example.com, localhost:8080, or * for any host)",
                        index,
                    )
                out.append(normalize_host(item))
            return out
        return value

    @field_validator("filesystem", mode="before")
    @classmethod
    def _filesystem(cls, value: Any) -> Any:
        if isinstance(value, bool):
            if value:
                raise rule_error("filesystem: true is too broad; list the folders, e.g. [~/notes]")
            return []
        if isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, str) or not item.startswith(("/", "~")):
                    raise rule_error(
                        f"filesystem entry {item!r} must be an absolute path or start with ~",
                        index,
                    )
        return value

    @field_validator("env_vars")
    @classmethod
    def _env_vars(cls, value: list[str]) -> list[str]:
        for index, name in enumerate(value):
            if not ENV_VAR_RE.match(name):
                raise rule_error(
                    f"env var name {name!r} is not valid (e.g. WEATHER_API_KEY)", index
                )
        return value

    @property
    def empty(self) -> bool:
        return not (self.network or self.filesystem or self.env_vars or self.shell)


PluginConfig = Annotated[
    InlineConfig | SubprocessConfig | HttpConfig | McpConfig, Field(discriminator="type")
]


class PluginManifest(_Model):
    id: str
    name: str
    description: str
    description_long: str | None = None
    version: str | None = None
    keywords: list[str] = Field(default_factory=list)
    type: PluginType = "inline"
    config: PluginConfig = Field(default_factory=InlineConfig)
    capabilities: list[Capability] = Field(default_factory=list)
    health_check_url: str | None = None
    permissions: Permissions = Field(default_factory=Permissions)
    effects: list[Effect] | None = None  # the default for capabilities that declare none
    examples: list[str] = Field(default_factory=list)
    # Requests it is mistaken for but does not serve ("set an alarm for 7 am" for a world
    # clock): a request closer to one of them than to the plugin is not offered it.
    not_for: list[str] = Field(default_factory=list)
    requires: list[Need] = Field(default_factory=list)  # core/plugin_needs.py

    _one_effect = field_validator("effects", mode="before")(_as_list)
    _valid_examples = field_validator("examples", mode="before")(_examples)

    @model_validator(mode="before")
    @classmethod
    def _tag_config(cls, data: Any) -> Any:
        # The union's tag lives one level up (`type`), so copy it into `config`.
        if isinstance(data, dict):
            ptype = data.get("type", "inline")
            config = {} if data.get("config") is None else data["config"]
            if isinstance(config, dict) and isinstance(ptype, str) and ptype in PLUGIN_TYPES:
                data = {**data, "config": {**config, "type": ptype}}
        return data

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_plugin_id(value)

    @field_validator("not_for", mode="before")
    @classmethod
    def _not_for(cls, value: Any, info: ValidationInfo) -> list[str]:
        capabilities = info.data.get("capabilities") or []
        examples = [*info.data.get("examples", []), *(e for c in capabilities for e in c.examples)]
        try:
            return check_not_for(value, examples)
        except ExampleError as exc:
            raise rule_error(exc.reason, *([] if exc.index is None else [exc.index])) from None

    @field_validator("health_check_url")
    @classmethod
    def _health(cls, value: str | None) -> str | None:
        return None if value is None else check_http_url(value, "health_check_url")

    @field_validator("capabilities")
    @classmethod
    def _capabilities(cls, value: list[Capability], info: ValidationInfo) -> list[Capability]:
        seen: set[str] = set()
        for index, cap in enumerate(value):
            if cap.id in seen:
                raise rule_error(f"duplicate capability id {cap.id!r}", index, "id")
            seen.add(cap.id)
        ptype = info.data.get("type", "inline")
        if ptype != "http":
            for index, cap in enumerate(value):
                for key in ("method", "path"):
                    if getattr(cap, key) is not None:
                        raise rule_error(
                            f"capability {cap.id!r} sets `{key}`, which only http plugins use "
                            f"(this plugin is type {ptype}); remove it",
                            index,
                            key,
                        )
        return value

    def managed_start(self) -> ServerStart | None:
        """`config.start` of an http or url-transport MCP plugin: homeclaw runs its server."""
        config = self.config
        return config.start if isinstance(config, HttpConfig | McpConfig) else None

    def capability(self, capability_id: str) -> Capability | None:
        return next((c for c in self.capabilities if c.id == capability_id), None)

    def effects_of(self, cap: Capability) -> frozenset[Effect]:
        """What calling `cap` may do: as declared, else read for an HTTP GET, else write
        (an undeclared effect is treated as a change, so it is asked about by default)."""
        declared = cap.effects or self.effects
        if declared:
            return frozenset(declared)
        return frozenset({"read"}) if cap.method == "GET" else frozenset({"write"})

    def callable_capabilities(self) -> list[Capability]:
        """The capabilities a caller can pick; a plugin that declares none has one, `run`.

        Seed 001: a plugin without capabilities is a single entry point that takes the
        user's request as text.
        """
        if self.capabilities:
            return list(self.capabilities)
        return [default_capability(self)]

    def author_examples(self) -> list[Example]:
        """The plugin's and its capabilities' examples, as written in the manifest."""
        out = [Example(text) for text in self.examples]
        for cap in self.capabilities:
            out.extend(Example(text, capability=cap.id) for text in cap.examples)
        return out


DEFAULT_CAPABILITY_ID = "run"


def default_capability(manifest: PluginManifest) -> Capability:
    return Capability(
        id=DEFAULT_CAPABILITY_ID,
        name=manifest.name,
        description=manifest.description,
        parameters=[
            Parameter(
                name="input",
                type="string",
                required=False,
                description="The user's request in their own words.",
            )
        ],
    )
