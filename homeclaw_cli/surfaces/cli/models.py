"""`homeclaw models`: the models the LLM server offers, which support tools, which is set."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from homeclaw_cli.surfaces.cli.options import HostOpt, JsonFlag
from homeclaw_cli.surfaces.cli.state import llm_context
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.models import ModelListing

app = typer.Typer()


@app.command("models")
def models(ctx: typer.Context, host: HostOpt = None, as_json: JsonFlag = False) -> None:
    """List the LLM server's models: which support tool calls, which one is configured.

    Ollama: /api/tags and /api/show; OpenAI-compatible servers: /v1/models (tool support
    "unknown"). Set the chat model with llm.model in the config or HOMECLAW_MODEL.
    """
    import asyncio

    from homeclaw_cli.app.models import list_models
    from homeclaw_cli.surfaces.views import show_models

    context = llm_context(ctx, None, host)

    async def fetch() -> ModelListing:
        try:
            return await list_models(context.settings, context.llm)
        finally:
            await context.aclose()

    listing = asyncio.run(fetch())
    out = Output(json_mode=as_json)
    out.result(listing.to_json(), lambda: show_models(out, listing))
