"""Stand-ins the chat uses while the index (issue 3) and the runners (issue 4) are not merged.

`services/chat.py` imports the real RetrievalService and PluginCaller when they exist and only
falls back to these: a keyword retriever over the scanned registry and an in-process caller
for inline plugins. Both speak the same shapes as the contracts in CONTRACTS.md.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.domain.manifest import InlineConfig, PluginManifest
from homeclaw_cli.domain.plugin_loader import inline_module_path, method_name
from homeclaw_cli.domain.registry import Registry
from homeclaw_cli.errors import NotFoundError, UsageError
from homeclaw_cli.sdk import BasePlugin
from homeclaw_cli.suggest import did_you_mean

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "can",
        "do",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "the",
        "to",
        "what",
        "whats",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


@dataclass
class KeywordHit:
    id: str
    kind: str
    score: float
    descriptor: dict[str, Any]
    rank: int = 0
    kept: bool = True
    reason: str = "kept"
    dense_score: float | None = None
    keyword_score: float | None = None


@dataclass
class KeywordResult:
    query: str
    hits: list[KeywordHit]
    candidates: list[KeywordHit]
    fallback: bool
    fallback_names: list[str]
    timings: dict[str, float] = field(default_factory=dict)


class KeywordRetriever:
    """Word-overlap ranking of the registry's plugins (no index, no embeddings)."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_in_prompt: int = 5,
        skills: Callable[[], dict[str, tuple[str, dict[str, Any]]]] | None = None,
    ) -> None:
        self.registry = registry
        self.max_in_prompt = max_in_prompt or 1000
        self._docs: dict[str, set[str]] | None = None
        self._skills = skills
        self._skill_docs: dict[str, tuple[set[str], dict[str, Any]]] | None = None

    def _documents(self) -> dict[str, set[str]]:
        if self._docs is None:
            self._docs = {
                pid: _words(e.manifest.embedding_text() + " " + pid.replace("-", " "))
                for pid, e in self.registry.plugins.items()
            }
        return self._docs

    def search_plugins(self, query: str, *, limit: int | None = None) -> KeywordResult:
        docs = self._documents()

        def descriptor(plugin_id: str) -> dict[str, Any]:
            return self.registry.plugins[plugin_id].manifest.model_dump(mode="json")

        return self._rank(query, "plugin", docs, descriptor, limit)

    def search_skills(self, query: str, *, limit: int | None = None) -> KeywordResult:
        if self._skills is None:
            return KeywordResult(query, [], [], False, [])
        if self._skill_docs is None:
            self._skill_docs = {
                sid: (_words(text + " " + sid.replace("-", " ")), desc)
                for sid, (text, desc) in self._skills().items()
            }
        skill_docs = self._skill_docs
        docs = {sid: words for sid, (words, _) in skill_docs.items()}
        return self._rank(query, "skill", docs, lambda sid: skill_docs[sid][1], limit)

    def _rank(
        self,
        query: str,
        kind: str,
        docs: dict[str, set[str]],
        descriptor: Callable[[str], dict[str, Any]],
        limit: int | None,
    ) -> KeywordResult:
        started = time.perf_counter()
        words = _words(query)
        scored = [
            KeywordHit(item_id, kind, len(words & doc) / max(len(words), 1), {})
            for item_id, doc in docs.items()
        ]
        scored.sort(key=lambda h: (-h.score, h.id))
        cap = limit or self.max_in_prompt
        for rank, hit in enumerate(scored, 1):
            hit.rank = rank
            hit.keyword_score = hit.score
            if hit.score <= 0:
                hit.kept, hit.reason = False, "below threshold"
            elif rank > cap:
                hit.kept, hit.reason = False, "top-k cut"
        hits = [h for h in scored if h.kept]
        for hit in hits:
            hit.descriptor = descriptor(hit.id)
        names = [h.id for h in scored[:20]] if not hits else []
        timings = {"total": time.perf_counter() - started}
        return KeywordResult(query, hits, scored, not hits, names, timings)


@dataclass
class FallbackResult:
    request_id: str
    plugin_id: str
    success: bool
    text: str = ""
    error: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class FallbackOutcome:
    result: FallbackResult
    post_process: bool
    post_process_prompt: str | None
    seconds: float


class InlinePluginCaller:
    """Calls inline plugins in-process; other types report that their runner is missing."""

    def __init__(self, registry: Registry, data_dir: Path) -> None:
        self.registry = registry
        self.data_dir = data_dir
        self._instances: dict[str, BasePlugin] = {}

    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> FallbackOutcome:
        entry = self.registry.get(plugin_id)
        manifest = entry.manifest
        caps = manifest.callable_capabilities()
        capability = next((c for c in caps if c.id == (capability_id or caps[0].id)), None)
        if capability is None:
            valid = [c.id for c in caps]
            raise NotFoundError(
                f"plugin {plugin_id} has no capability `{capability_id}`"
                f"{did_you_mean(capability_id or '', valid)}; valid: {', '.join(valid)}"
            )
        known = {p.name for p in capability.parameters}
        for name in parameters:
            if name not in known:
                raise UsageError(
                    f"capability {plugin_id}.{capability.id} has no parameter `{name}`"
                )
        args = {p.name: p.default for p in capability.parameters if p.has_default}
        args.update(parameters)
        started = time.perf_counter()
        request_id = uuid.uuid4().hex
        try:
            if not isinstance(manifest.config, InlineConfig) or entry.folder is None:
                raise RuntimeError(f"no runner for {manifest.type} plugins in this build")
            plugin = self._instance(manifest, entry.folder)
            plugin.user_input = user_input
            value = getattr(plugin, method_name(capability.id))(**args)
            if inspect.isawaitable(value):
                value = await value
            text = value.get("text", "") if isinstance(value, dict) else str(value)
            result = FallbackResult(request_id, plugin_id, True, str(text))
        except Exception as exc:  # a plugin failure is a result, never a crash
            result = FallbackResult(request_id, plugin_id, False, error=str(exc) or repr(exc))
        return FallbackOutcome(
            result,
            capability.post_process,
            capability.post_process_prompt,
            time.perf_counter() - started,
        )

    def _instance(self, manifest: PluginManifest, folder: Path) -> BasePlugin:
        cached = self._instances.get(manifest.id)
        if cached is not None:
            return cached
        assert isinstance(manifest.config, InlineConfig)
        path = inline_module_path(folder, manifest.config)
        spec = importlib.util.spec_from_file_location(f"homeclaw_plugin_{manifest.id}", path)
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cls = next(
            v
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, BasePlugin) and v is not BasePlugin
        )
        config_path = folder / manifest.config.config_file
        config = yaml.safe_load(config_path.read_text()) if config_path.is_file() else {}
        plugin: BasePlugin = cls(
            plugin_id=manifest.id, folder=folder, config=config or {}, data_dir=self.data_dir
        )
        plugin.initialize()
        self._instances[manifest.id] = plugin
        return plugin

    async def aclose(self) -> None:
        self._instances.clear()
        await asyncio.sleep(0)
