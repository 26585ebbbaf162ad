"""The models the LLM server offers (`homeclaw models`, `/model`), and what to say when the
configured one is not there (chat and doctor name the installed ones and the key to set)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from homeclaw_cli.core.ports import LLM, ModelInfo, ModelServer
from homeclaw_cli.errors import HomeclawError, NotFoundError
from homeclaw_cli.settings import Settings

CONFIG_KEY = "llm.model"
ENV_VAR = "HOMECLAW_MODEL"


def same_model(a: str, b: str) -> bool:
    """Ollama resolves a name without a tag to `:latest`."""

    def full(name: str) -> str:
        return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"

    return a == b or full(a) == full(b)


@dataclass
class ModelListing:
    """The server's models and the configured one."""

    provider: str
    host: str
    configured: str
    models: list[ModelInfo]

    def find(self, name: str) -> ModelInfo | None:
        return next((m for m in self.models if same_model(m.name, name)), None)

    @property
    def configured_installed(self) -> bool:
        # A server with one model (llama-server) answers to any name.
        single = self.provider == "openai" and len(self.models) == 1
        return single or self.find(self.configured) is not None

    def suggestion(self) -> ModelInfo | None:
        """A model to switch to: the first that supports tools, else the first one."""
        with_tools = [m for m in self.models if m.tools]
        return next(iter(with_tools or self.models), None)

    def to_json(self) -> dict[str, Any]:
        """The `models --json` shape."""
        return {
            "provider": self.provider,
            "host": self.host,
            "configured": self.configured,
            "configured_installed": self.configured_installed,
            "models": [
                {
                    "name": m.name,
                    "tools": m.tools,
                    "context_length": m.context_length,
                    "size": m.size,
                    "details": m.details,
                    "configured": same_model(m.name, self.configured),
                }
                for m in self.models
            ],
        }


async def list_models(settings: Settings, llm: LLM) -> ModelListing:
    """Ask the server behind `llm` for its models (UnavailableError when it is down)."""
    models = await llm.models() if isinstance(llm, ModelServer) else []
    return ModelListing(settings.llm.provider, settings.llm.host, llm.model, models)


async def stand_in(settings: Settings, llm: LLM) -> str | None:
    """The one model of an OpenAI-compatible server that lists another name than `llm`'s
    (llama-server answers to any name with it), None otherwise."""
    if settings.llm.provider != "openai":
        return None
    try:
        listing = await list_models(settings, llm)
    except HomeclawError:
        return None
    if len(listing.models) != 1 or listing.find(listing.configured) is not None:
        return None
    return listing.models[0].name


def stand_in_warning(settings: Settings, model: str, other: str, *, in_chat: bool = False) -> str:
    """What to tell a user whose `model` the one model `other` answers for (in a chat, how
    /model switches to it)."""
    fix = (
        f"`/model {other}` switches to it"
        if in_chat
        else f"set {CONFIG_KEY} or pass --model {other}"
    )
    return (
        f"{model} is not a model of the server at {settings.llm.host}; its one model, "
        f"{other}, answers instead ({fix})"
    )


def describe(model: ModelInfo) -> str:
    """`name (tools)` / `name (no tools)` / `name` when the server does not say."""
    if model.tools is None:
        return model.name
    return f"{model.name} ({'tools' if model.tools else 'no tools'})"


def missing_model(listing: ModelListing, *, in_chat: bool = False) -> NotFoundError:
    """The error for a configured model the server does not have: what is there instead,
    the key to set (in a chat: the /model command) and a model that supports tools."""
    where = f"{'Ollama' if listing.provider == 'ollama' else 'the server'} at {listing.host}"
    if not listing.models:
        pull = f"`ollama pull {listing.configured}`" if listing.provider == "ollama" else ""
        return NotFoundError(
            f"model {listing.configured} is not installed and {where} has no models",
            hint=f"install one ({pull or 'load a model into the server'}), then set "
            f"{CONFIG_KEY} in the config or {ENV_VAR}=NAME",
        )
    names = ", ".join(describe(m) for m in listing.models[:12])
    more = f" and {len(listing.models) - 12} more" if len(listing.models) > 12 else ""
    best = listing.suggestion()
    assert best is not None
    why = " (it supports tools)" if best.tools else ""
    pull = f", or `ollama pull {listing.configured}`" if listing.provider == "ollama" else ""
    hint = (
        f"`/model {best.name}`{why} switches to it{pull}"
        if in_chat
        else f"set {CONFIG_KEY} in the config or {ENV_VAR}={best.name}{why}, "
        f"or pass --model {best.name}{pull}"
    )
    return NotFoundError(
        f"model {listing.configured} is not installed on {where}; installed: {names}{more}",
        hint=hint,
    )


async def explain_missing(
    settings: Settings, llm: LLM, error: NotFoundError, *, in_chat: bool = False
) -> NotFoundError:
    """`error` (the model was not found) with the installed models; as is when the listing
    fails or shows the model is there after all (the error was about something else)."""
    try:
        listing = await list_models(settings, llm)
    except Exception:
        return error
    return error if listing.configured_installed else missing_model(listing, in_chat=in_chat)
