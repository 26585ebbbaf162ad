"""`homeclaw sync --expand`: example requests written by the chat model where authors gave none.

For every plugin capability (and every skill) without author examples, the configured LLM is
asked for `index.expand_count` requests a user might type, from the descriptor alone
(core/example_gen.py). Results are cached per item next to the index (state/example_cache.py),
keyed by the descriptor's hash and the model: an unchanged plugin is never asked about again, a
changed one is. Each item is saved as soon as it is done, so Ctrl-C keeps the finished ones and a
rerun resumes. An unreachable model ends the expansion with one clear message; the sync that
follows runs as usual. This runs before the sync takes the index lock, so a slow model never
holds the index.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from homeclaw_cli.app.context import AppContext, build_llm
from homeclaw_cli.catalog.registry import PluginEntry
from homeclaw_cli.catalog.skills import TEST_PREFIX, Skill
from homeclaw_cli.core.example_gen import (
    ExampleTarget,
    ParamInfo,
    clean_examples,
    generation_messages,
    parse_examples,
    reply_token_cap,
)
from homeclaw_cli.core.examples import Example, capabilities_without_examples
from homeclaw_cli.core.ports import LLM
from homeclaw_cli.errors import HomeclawError, NotFoundError, UnavailableError
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.example_cache import WHOLE_ITEM, CachedExamples, ExampleCache

PROBE_TIMEOUT_SEC = 10.0
# A reply with no usable example (a refusal, a reply that lost the list) is asked once more in
# the same run: the model samples, so a second reply usually has them.
ATTEMPTS = 2


class ExpandProgress(Protocol):
    def start(self, total: int) -> None: ...
    def item(self, label: str, examples: int, seconds: float, error: str | None) -> None: ...


@dataclass
class ItemTargets:
    """The generation targets of one plugin or skill, by capability key."""

    kind: str
    item_id: str
    targets: dict[str, ExampleTarget]

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.item_id}"

    def hashes(self, count: int) -> dict[str, str]:
        return {cap: t.content_hash(count) for cap, t in self.targets.items()}


@dataclass
class ExpandReport:
    """What one expansion did: items served from the cache, generated, failed."""

    model: str
    items: int = 0
    cached: int = 0
    generated: int = 0
    examples: int = 0
    calls: int = 0
    llm_seconds: float = 0.0
    seconds: float = 0.0
    skipped_author: int = 0
    failed: list[str] = field(default_factory=list)
    unreachable: str | None = None
    pending: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "items": self.items,
            "cached": self.cached,
            "generated": self.generated,
            "pending": self.pending,
            "examples": self.examples,
            "llm_calls": self.calls,
            "llm_seconds": round(self.llm_seconds, 2),
            "seconds_per_item": round(self.llm_seconds / self.generated, 2)
            if self.generated
            else None,
            "seconds": round(self.seconds, 2),
            "skipped_author": self.skipped_author,
            "failed": self.failed,
            "unreachable": self.unreachable,
        }


def plugin_targets(entry: PluginEntry) -> ItemTargets:
    """One target per capability the author wrote no examples for
    (core.examples.capabilities_without_examples)."""
    manifest = entry.manifest
    description = manifest.description
    if manifest.description_long:
        description = f"{description} {manifest.description_long}"
    targets: dict[str, ExampleTarget] = {}
    for cap in capabilities_without_examples(manifest):
        key = cap.id if manifest.capabilities else WHOLE_ITEM
        targets[key] = ExampleTarget(
            kind="plugin",
            item_id=manifest.id,
            name=manifest.name,
            description=description,
            capability=cap.id,
            capability_name=cap.name,
            capability_description=cap.description,
            keywords=tuple(manifest.keywords),
            parameters=tuple(
                ParamInfo(
                    p.name, p.type, p.description, p.required, tuple(str(v) for v in p.enum or ())
                )
                for p in cap.parameters
                if manifest.capabilities  # the implicit `run` input says nothing
            ),
        )
    return ItemTargets("plugin", manifest.id, targets)


def skill_targets(skill: Skill) -> ItemTargets:
    """A skill is one target, unless its frontmatter carries examples."""
    if skill.examples:
        return ItemTargets("skill", skill.id, {})
    target = ExampleTarget(
        kind="skill", item_id=skill.id, name=skill.name, description=skill.description
    )
    return ItemTargets("skill", skill.id, {WHOLE_ITEM: target})


def collect(context: AppContext, kinds: Iterable[str]) -> list[ItemTargets]:
    """Every plugin and skill of `kinds` ("plugins", "skills"), test skills left out."""
    wanted = set(kinds)
    items: list[ItemTargets] = []
    if "plugins" in wanted:
        items += [plugin_targets(e) for e in context.registry.plugins.values()]
    if "skills" in wanted:
        items += [
            skill_targets(s)
            for s in context.skill_registry.skills.values()
            if not s.id.startswith(TEST_PREFIX)
        ]
    return items


def plugins_unchanged(context: AppContext) -> bool:
    """True when the plugin folders (and the example cache) are as the last finished sync saw
    them (a stat walk, no manifest parsed): `index.expand: auto` has nothing to ask about."""
    from homeclaw_cli.app import scan_fingerprint as fp

    saved = fp.load_state(context.settings).get("fingerprint")
    if not saved:
        return False
    current = fp.plugin_fingerprint(context.settings)
    source = CachedExampleSource.for_context(context)
    if source is not None:  # app/sync.py saves the plugins' and the cache's fingerprints
        current += ":" + source.fingerprint()
    return bool(saved == current)


def generation_llm(settings: Settings) -> LLM:
    """The chat model with the expansion's own temperature (varied requests, not routing) and
    a cap on its reply: a small model that starts repeating itself would otherwise write until
    its context is full (minutes on a CPU) for a handful of short lines."""
    index = settings.index
    update = {
        "temperature": index.expand_temperature,
        "max_reply_tokens": reply_token_cap(index.expand_count),
    }
    llm = settings.llm.model_copy(update=update)
    return build_llm(settings.model_copy(update={"llm": llm}))


def expand(
    context: AppContext,
    *,
    kinds: Iterable[str] = ("plugins", "skills"),
    progress: ExpandProgress | None = None,
    llm: LLM | None = None,
) -> ExpandReport:
    """Generate the missing examples of `kinds`; see the module docstring."""
    return asyncio.run(expand_async(context, kinds=kinds, progress=progress, llm=llm))


async def expand_async(
    context: AppContext,
    *,
    kinds: Iterable[str] = ("plugins", "skills"),
    progress: ExpandProgress | None = None,
    llm: LLM | None = None,
) -> ExpandReport:
    """The async body of `expand` (one event loop for every call of the run)."""
    settings = context.settings
    started = time.perf_counter()
    report = ExpandReport(model=settings.llm.model)
    cache = ExampleCache.for_settings(settings)
    count = settings.index.expand_count
    todo: list[tuple[ItemTargets, dict[str, CachedExamples]]] = []
    for item in collect(context, kinds):
        if not item.targets:
            report.skipped_author += 1
            continue
        report.items += 1
        hashes = item.hashes(count)
        kept = {
            cap: entry
            for cap, entry in cache.load(item.kind, item.item_id).get(report.model, {}).items()
            if hashes.get(cap) == entry.hash
        }
        if set(kept) >= set(hashes):
            report.cached += 1
        else:
            todo.append((item, kept))
    report.pending = len(todo)
    if todo:
        owned = llm is None
        llm = llm or generation_llm(settings)
        try:
            await _Run(llm, cache, report, count, progress).all(todo)
        finally:
            if owned:
                closer = getattr(llm, "aclose", None)
                if closer is not None:
                    await closer()
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class _Run:
    """One expansion's generation calls, saving each item as soon as it is done."""

    llm: LLM
    cache: ExampleCache
    report: ExpandReport
    count: int
    progress: ExpandProgress | None

    async def all(self, todo: list[tuple[ItemTargets, dict[str, CachedExamples]]]) -> None:
        report = self.report
        problem = await probe(self.llm)
        if problem is not None:
            report.unreachable = problem
            return
        if self.progress is not None:
            self.progress.start(len(todo))
        for item, kept in todo:
            took = time.perf_counter()
            try:
                entries, errors = await self.item(item, kept)
            except (UnavailableError, NotFoundError) as exc:
                report.unreachable = _describe(exc)
                return
            if entries != kept:
                self.cache.save(item.kind, item.item_id, report.model, entries)
            made = sum(len(e.examples) for cap, e in entries.items() if cap not in kept)
            report.examples += made
            report.pending -= 1
            if errors:
                report.failed.extend(f"{item.label}: {e}" for e in errors)
            else:
                report.generated += 1
            if self.progress is not None:
                seconds = time.perf_counter() - took
                self.progress.item(item.label, made, seconds, "; ".join(errors) or None)

    async def item(
        self, item: ItemTargets, kept: dict[str, CachedExamples]
    ) -> tuple[dict[str, CachedExamples], list[str]]:
        entries = dict(kept)
        errors: list[str] = []
        for cap, target in item.targets.items():
            if cap in kept:
                continue
            try:
                examples, seconds = await self.examples(target)
            except (UnavailableError, NotFoundError):
                raise
            except HomeclawError as exc:
                errors.append(f"{cap}: {exc.message}")
                continue
            if not examples:
                errors.append(f"{cap}: the model's reply held no usable example")
                continue
            entries[cap] = CachedExamples(target.content_hash(self.count), examples, seconds)
        return entries, errors

    async def examples(self, target: ExampleTarget) -> tuple[list[str], float]:
        """The usable examples of up to ATTEMPTS replies for `target` (the first that has
        any), with the model's seconds spent on them."""
        examples: list[str] = []
        seconds = 0.0
        for _ in range(ATTEMPTS):
            reply = await self.llm.chat(generation_messages(target, self.count))
            self.report.calls += 1
            self.report.llm_seconds += reply.seconds
            seconds += reply.seconds
            examples = clean_examples(parse_examples(reply.content), limit=self.count)
            if examples:
                break
        return examples, seconds


async def probe(llm: LLM) -> str | None:
    """None when the model's server answers; otherwise what is wrong and how to fix it."""
    lister = getattr(llm, "list_models", None)
    if lister is None:
        return None
    try:
        await asyncio.wait_for(lister(), timeout=PROBE_TIMEOUT_SEC)
    except TimeoutError:
        return f"the LLM server did not answer within {PROBE_TIMEOUT_SEC:g}s"
    except HomeclawError as exc:
        return _describe(exc)
    return None


def _describe(exc: HomeclawError) -> str:
    return f"{exc.message} ({exc.hint})" if exc.hint else exc.message


def generated_examples(
    settings: Settings, item: ItemTargets, cache: ExampleCache | None = None
) -> dict[str, list[str]]:
    """The cached examples still valid for `item`'s current descriptor (capability -> list)."""
    if not item.targets:
        return {}
    cache = cache or ExampleCache.for_settings(settings)
    hashes = item.hashes(settings.index.expand_count)
    return cache.lookup(item.kind, item.item_id, hashes, settings.llm.model)


class CachedExampleSource:
    """The ExampleSource of app/index_rows.py: every sync attaches the cached examples still valid
    for each row's descriptor. Reads one small file per item; never calls a model."""

    def __init__(self, context: AppContext, cache: ExampleCache) -> None:
        self.context = context
        self.cache = cache

    @classmethod
    def for_context(cls, context: AppContext) -> CachedExampleSource | None:
        """None when nothing was ever generated (then a sync costs nothing extra)."""
        cache = ExampleCache.for_settings(context.settings)
        return cls(context, cache) if cache.root.is_dir() else None

    def examples_for(self, kind: str, row: Any) -> list[Example]:
        """The generated examples of index row `row` (matched by id, current descriptor)."""
        item = self._item(kind, str(row.id))
        if item is None:
            return []
        found = generated_examples(self.context.settings, item, self.cache)
        return [
            Example(text, "generated", None if cap == WHOLE_ITEM else cap)
            for cap, texts in found.items()
            for text in texts
        ]

    def _item(self, kind: str, item_id: str) -> ItemTargets | None:
        if kind == "plugins":
            entry = self.context.registry.plugins.get(item_id)
            return plugin_targets(entry) if entry is not None else None
        skill = self.context.skill_registry.skills.get(item_id)
        if skill is None or item_id.startswith(TEST_PREFIX):
            return None
        return skill_targets(skill)

    def fingerprint(self) -> str:
        """The cache folders' mtimes (an atomic write renames into them), the chat model and
        the example count (both pick which entries apply)."""
        parts = [self.context.settings.llm.model, str(self.context.settings.index.expand_count)]
        for folder in ("plugins", "skills"):
            try:
                parts.append(str((self.cache.root / folder).stat().st_mtime_ns))
            except OSError:
                parts.append("-")
        return "|".join(parts)
