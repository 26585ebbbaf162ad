"""`homeclaw doctor`: is everything the chat needs in place, and how to fix what is not."""

from __future__ import annotations

import importlib.util
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.models import CONFIG_KEY, ENV_VAR, explain_missing, stand_in
from homeclaw_cli.errors import ConfigError, HomeclawError, NotFoundError, index_store_error
from homeclaw_cli.settings import Settings

Status = Literal["ok", "warn", "fail"]


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


async def run_checks(context: AppContext) -> list[Check]:
    """Every check, in the order a user would fix them."""
    settings = context.settings
    checks: list[Check] = []
    try:
        checks.extend(await _llm_checks(settings, context.llm))
    finally:
        await context.aclose()
    store_checks = _index_store_checks(settings)
    checks.extend(store_checks)
    if all(c.status == "ok" for c in store_checks):
        checks.append(_index_check(context))
    checks.append(_embedding_check(settings))
    checks.extend(_plugin_checks(context))
    checks.extend(await _managed_checks(context))
    checks.append(_examples_check(context))
    return checks


async def _llm_checks(settings: Settings, llm: Any) -> list[Check]:  # an adapter: version()
    server = "Ollama" if settings.llm.provider == "ollama" else "LLM server"
    try:
        version = await llm.version()
    except HomeclawError as exc:
        return [
            Check("llm server", "fail", exc.message, exc.hint or ""),
            Check(
                "model",
                "fail",
                f"{settings.llm.model}: not checked (no server)",
                (
                    f"start the server first, then `ollama pull {settings.llm.model}` if missing"
                    if settings.llm.provider == "ollama"
                    else "start the server first, then rerun `homeclaw doctor`"
                ),
            ),
        ]
    checks = [Check("llm server", "ok", f"{server} {version} at {settings.llm.host}")]
    try:
        tools = await llm.supports_tools()
    except HomeclawError as exc:
        if isinstance(exc, NotFoundError):
            exc = await explain_missing(settings, llm, exc)
        checks.append(Check("model", "fail", exc.message, exc.hint or ""))
        return checks
    if (other := await stand_in(settings, llm)) is not None:
        checks.append(
            Check(
                "model",
                "warn",
                f"{settings.llm.model} is not a model of the server at {settings.llm.host}; "
                f"its one model, {other}, answers to any name",
                f"set {CONFIG_KEY} in the config or {ENV_VAR}={other}, or pass --model {other}",
            )
        )
    elif tools:
        checks.append(Check("model", "ok", f"{settings.llm.model} (native tool calls)"))
    else:
        checks.append(
            Check(
                "model",
                "warn",
                f"{settings.llm.model} has no tool support; routing uses JSON replies",
                "for better routing pull a model with tools, e.g. `ollama pull qwen2.5:3b`",
            )
        )
    return checks


def _index_check(context: AppContext) -> Check:
    settings = context.settings
    uri = settings.index_uri
    path = Path(uri)
    if "://" not in uri and (not path.is_dir() or not any(path.iterdir())):
        return Check(
            "index",
            "warn",
            f"no index at {path}; the chat builds it on start (or run `homeclaw sync`)",
            "run `homeclaw sync`",
        )
    from homeclaw_cli.app.sync import sync

    try:
        plan = sync(settings, check=True, context=context)
    except HomeclawError as exc:
        return Check("index", "fail", f"{uri}: {exc.message}", exc.hint or "")
    except (RuntimeError, OSError, ValueError) as exc:
        damaged = index_store_error(uri, exc)
        if damaged is None:
            raise
        return Check("index", "fail", damaged.message, damaged.hint or "")
    if plan.stale:
        changes = f"{len(plan.added)} new, {len(plan.updated)} changed, {len(plan.removed)} gone"
        return Check("index", "warn", f"{uri} is out of date ({changes})", "run `homeclaw sync`")
    counts = " and ".join(
        f"{k.unchanged} {kind.removesuffix('s')}" for kind, k in plan.kinds.items()
    )
    return Check("index", "ok", f"{uri} ({counts or 'no'} descriptors, up to date)")


def _index_store_checks(settings: Settings) -> list[Check]:
    """An object-store index: can this machine reach the store and write to it?"""
    from homeclaw_cli.adapters.vector_store import open_store

    uri = settings.index_uri
    if "://" not in uri or uri.startswith("file://"):
        return []
    endpoint = settings.index.endpoint or "the provider's default endpoint"
    try:
        open_store(settings).probe_write()
    except HomeclawError as exc:
        return [Check("index store", "fail", exc.message, exc.hint or "")]
    except (RuntimeError, OSError, ValueError) as exc:
        known = index_store_error(uri, exc)
        if known is None:
            detail = str(exc).splitlines()[0][:200]
            return [
                Check(
                    "index store",
                    "fail",
                    f"{uri}: {detail}",
                    "check index.uri, index.endpoint and index.storage_options",
                )
            ]
        return [Check("index store", "fail", known.message, known.hint or "")]
    return [Check("index store", "ok", f"{uri} at {endpoint}: reachable and writable")]


def _embedding_check(settings: Settings) -> Check:
    """The configured `embedding.model` can be loaded offline: the bundled package, a model
    folder, or a name already in the Hugging Face cache (sync never downloads one)."""
    from homeclaw_cli.adapters.embedder import BUNDLED_MODEL_ALIASES, resolve_model_path

    name = settings.embedding.model
    if importlib.util.find_spec("sentence_transformers") is None:
        return Check(
            "embedding model",
            "fail",
            "sentence-transformers is not installed",
            "pip install sentence-transformers (or `make install`)",
        )
    try:
        where = Path(resolve_model_path(name))
    except ConfigError as exc:
        return Check("embedding model", "fail", exc.message, exc.hint or "")
    if name.lower() in BUNDLED_MODEL_ALIASES:
        return Check("embedding model", "ok", f"{name} (offline package)")
    if where.is_dir():
        if not (where / "modules.json").is_file() and not (where / "config.json").is_file():
            return Check(
                "embedding model",
                "fail",
                f"embedding.model {str(where)!r} is a folder without a model in it",
                "point embedding.model at a sentence-transformers model folder",
            )
        return Check("embedding model", "ok", f"{where} (local folder)")
    if _in_hub_cache(name):
        return Check("embedding model", "ok", f"{name} (Hugging Face cache)")
    return Check(
        "embedding model",
        "fail",
        f"embedding.model {name!r} is neither a local folder nor in the Hugging Face cache"
        " (homeclaw never downloads a model)",
        "set embedding.model to a model folder (`make install-mpnet` fetches"
        " all-mpnet-base-v2) or back to all-MiniLM-L6-v2",
    )


def _in_hub_cache(name: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    repo = name if "/" in name else f"sentence-transformers/{name}"
    return any(
        isinstance(try_to_load_from_cache(repo, file), str)
        for file in ("modules.json", "config.json")
    )


def _plugin_checks(context: AppContext) -> list[Check]:
    registry = context.registry
    checks = [Check("plugins", "ok", f"{len(registry.plugins)} loaded")]
    for broken in registry.broken:
        checks.append(
            Check(
                f"plugin {broken.folder.name}",
                "fail",
                broken.summary,
                f"homeclaw plugin validate {broken.folder}",
            )
        )
    checks.extend(_requirement_checks(context))
    checks.extend(_health_checks(context, list(registry.plugins)))
    return checks


def _examples_check(context: AppContext) -> Check:
    """Capabilities and skills with no example requests, from their author or generated: the
    ones retrieval finds less often (benchmarks/EXPAND.md)."""
    from homeclaw_cli.app.expand import collect, generated_examples
    from homeclaw_cli.state.example_cache import ExampleCache

    settings = context.settings
    cache = ExampleCache.for_settings(settings)
    missing = generated = 0
    for item in collect(context, ("plugins", "skills")):
        found = generated_examples(settings, item, cache) if item.targets else {}
        generated += len(found)
        missing += len(item.targets) - len(found)
    made = f"{generated} written by the chat model"
    if not missing:
        where = f"({made})" if generated else "from their authors"
        return Check("examples", "ok", f"every capability and skill has example requests {where}")
    return Check(
        "examples",
        "warn",
        f"{missing} capabilities or skills have no example requests ({made}): retrieval finds"
        " them less often",
        "run `homeclaw sync --expand` (the chat model writes them once; they are cached)",
    )


def _requirement_checks(context: AppContext) -> list[Check]:
    """Plugins the chat does not offer until a key or setting they require is set."""
    from homeclaw_cli.catalog.plugin_files import unmet_requirements

    checks = []
    for plugin_id, entry in context.registry.plugins.items():
        missing = unmet_requirements(entry.folder, entry.manifest)
        if missing:
            where = f" (in {entry.folder})" if entry.folder else ""
            checks.append(
                Check(
                    f"plugin {plugin_id}",
                    "warn",
                    f"not offered in chat: needs {', '.join(missing)}",
                    f"set {' and '.join(missing)}{where}",
                )
            )
    return checks


def _health_checks(context: AppContext, plugin_ids: list[str]) -> list[Check]:
    store = context.health
    checks = []
    for plugin_id in plugin_ids:
        if context.registry.plugins[plugin_id].manifest.managed_start() is not None:
            continue  # _managed_checks
        status = store.get(plugin_id)
        if status is not None and not status.ok:
            checks.append(
                Check(
                    f"plugin {plugin_id}",
                    "warn",
                    f"unhealthy: {status.detail}",
                    f"check its server, then `homeclaw plugin call {plugin_id} ...`",
                )
            )
    return checks


async def _managed_checks(context: AppContext) -> list[Check]:
    """Managed servers, in the words of `plugin health`: not started yet is fine (it starts
    on first use), a server already answering on its address is running, a failed start or
    a server that stopped answering is a failure with its log."""
    import httpx

    from homeclaw_cli.runtime.health import managed_health
    from homeclaw_cli.runtime.managed_server import log_path

    checks = []
    async with httpx.AsyncClient() as http:
        for plugin_id, entry in context.registry.plugins.items():
            start = entry.manifest.managed_start()
            if start is None:
                continue
            ok, detail = await managed_health(context.settings, http, plugin_id, start)
            fix = (
                ""
                if ok
                else f"see {log_path(context.settings.data_dir, plugin_id)}, then "
                f"`homeclaw plugin call {plugin_id} ...` starts it again"
            )
            checks.append(Check(f"plugin {plugin_id}", "ok" if ok else "fail", detail, fix))
    return checks
