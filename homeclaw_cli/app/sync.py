"""`homeclaw sync`: bring the LanceDB index in line with the plugin and skill folders.

Incremental by default: rows are compared by content hash, only new and changed
descriptors are embedded, removed ids are deleted, and when nothing changed the embedding
model is never loaded. Skills in the test dir (`test__` ids) are re-embedded every time
(seed 002 §8.5). A table embedded with another model is rebuilt in one commit.

Writers hold `state_dir/index.lock`, so cron and a REPL never write at once. Each write is
one atomic LanceDB commit (see adapters/vector_store.py); a sync killed at any point leaves
whole rows only, and the next sync finishes the job (hash diff + text-index check).

On a shared object-store index several machines write: the local lock cannot see them, so
LanceDB's commit protocol orders the commits (a merge that meets another commit is retried)
and a sync deletes only the ids it wrote itself (`state_dir/index-owned-<table>.json`),
never another machine's rows. See docs/team.md.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from homeclaw_cli.adapters.vector_store import RECIPE, IndexRow, StoredMeta, VectorStore, open_store
from homeclaw_cli.app import scan_fingerprint as fp
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.index_rows import (
    ExampleSource,
    SyncKind,
    attach_generated_examples,
    plugin_rows,
    skill_rows,
)
from homeclaw_cli.app.sync_embed import embed_rows
from homeclaw_cli.app.sync_repair import drop_if_damaged
from homeclaw_cli.app.sync_upsert import upsert_rows
from homeclaw_cli.catalog.skills import TEST_PREFIX
from homeclaw_cli.core.changes import ChangeSet
from homeclaw_cli.fsutil import atomic_write_text, file_lock
from homeclaw_cli.settings import Settings

if TYPE_CHECKING:
    from homeclaw_cli.app.expand import ExpandReport

KINDS: tuple[SyncKind, ...] = ("plugins", "skills")


class SyncProgress(Protocol):
    def start(self, kind: str, total: int) -> None: ...
    def advance(self, count: int) -> None: ...


def example_source(context: AppContext) -> ExampleSource | None:
    """The generated examples every sync attaches (app/expand.py's cache); None while
    `sync --expand` never ran here."""
    from homeclaw_cli.app.expand import CachedExampleSource

    return CachedExampleSource.for_context(context)


@dataclass(kw_only=True)
class KindReport(ChangeSet):
    """The rows one table gained, changed and lost, and why it was rebuilt, if it was."""

    kind: str
    unchanged: int = 0
    rebuilt: str | None = None

    @property
    def stale(self) -> bool:
        return not self.empty or self.rebuilt is not None


@dataclass(kw_only=True)
class SyncReport(ChangeSet):
    """Every kind's changes as `plugin:<id>` / `skill:<id>`, and how the sync went."""

    unchanged: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kinds: dict[str, KindReport] = field(default_factory=dict)
    model: str = ""
    model_loaded: bool = False
    embedder: str = ""  # "onnx" (the exported twin) or "reference" (sentence-transformers)
    check: bool = False
    warnings: list[str] = field(default_factory=list)
    expansion: ExpandReport | None = None  # `sync --expand` / index.expand: auto

    @property
    def stale(self) -> bool:
        return any(k.stale for k in self.kinds.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "errors": self.errors,
            "seconds": round(self.seconds, 3),
            "model": self.model,
            "model_loaded": self.model_loaded,
            "embedder": self.embedder,
            "check": self.check,
            "stale": self.stale,
            "warnings": self.warnings,
            "expand": self.expansion.to_json() if self.expansion else None,
            "kinds": {
                name: {
                    "added": k.added,
                    "updated": k.updated,
                    "removed": k.removed,
                    "unchanged": k.unchanged,
                    "rebuilt": k.rebuilt,
                }
                for name, k in self.kinds.items()
            },
        }


def table_name(settings: Settings, kind: SyncKind) -> str:
    return settings.plugins.table if kind == "plugins" else settings.skills.table


def models_dir(settings: Settings) -> Path:
    """Where the ONNX twins of embedding models are exported."""
    return settings.data_dir / "models"


def index_lock_path(settings: Settings) -> Path:
    """Held by every writer of the index (sync, stale-row cleanup)."""
    return settings.state_dir / "index.lock"


def read_owned(settings: Settings, table: str) -> set[str]:
    """The ids this home wrote to a shared (object-store) index at its last sync."""
    try:
        data = json.loads((settings.state_dir / f"index-owned-{table}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(i) for i in data} if isinstance(data, list) else set()


def write_owned(settings: Settings, table: str, ids: list[str]) -> None:
    """Remember the ids this home indexed: only these may it delete from a shared index."""
    atomic_write_text(settings.state_dir / f"index-owned-{table}.json", json.dumps(sorted(ids)))


@dataclass
class _Plan:
    kind: SyncKind
    table: str
    rows: list[IndexRow]
    embed: list[IndexRow]
    remove: list[str]
    report: KindReport
    rebuild: bool
    text_index_stale: bool
    snapshot_missing: bool = False


def _plan(
    kind: SyncKind,
    table: str,
    rows: list[IndexRow],
    stored: dict[str, StoredMeta],
    *,
    model: str,
    full: bool,
    refresh_test: bool,
) -> _Plan:
    report = KindReport(kind=kind)
    dims = {m.dim for m in stored.values()}
    stored_models = {m.model for m in stored.values()}
    rebuild = full
    if stored and any(f":{RECIPE}:" not in m.content_hash for m in stored.values()):
        report.rebuilt = "index format changed: this homeclaw embeds rows differently"
        rebuild = True
    elif stored and stored_models != {model}:
        report.rebuilt = f"embedding model changed ({', '.join(sorted(stored_models))} -> {model})"
        rebuild = True
    elif len(dims) > 1:
        report.rebuilt = f"mixed dimensions in the table ({', '.join(map(str, sorted(dims)))})"
        rebuild = True
    elif full:
        report.rebuilt = "--full"
    # A model change re-embeds every row and rewrites the table in one commit, so no reader
    # ever meets vectors of two dimensions.
    current = {r.id: r for r in rows}
    embed: list[IndexRow] = []
    for row in rows:
        old = stored.get(row.id)
        if old is None:
            report.added.append(row.id)
            embed.append(row)
        elif rebuild or old.content_hash != row.content_hash or old.status != row.status:
            report.updated.append(row.id)
            embed.append(row)
        elif refresh_test and row.id.startswith(TEST_PREFIX):
            embed.append(row)  # seed 002 §8.5: the test dir is re-embedded every time
            report.unchanged += 1
        else:
            report.unchanged += 1
    remove = sorted(set(stored) - set(current))
    report.removed = remove
    return _Plan(kind, table, rows, embed, remove, report, rebuild, False)


def sync(
    settings: Settings,
    *,
    kinds: Iterable[str] = KINDS,
    full: bool = False,
    check: bool = False,
    progress: SyncProgress | None = None,
    lock_timeout: float = 30.0,
    context: AppContext | None = None,
    on_lock_wait: Callable[[str], None] | None = None,
) -> SyncReport:
    """Sync the index for `kinds`; with check=True only report what a sync would change.

    `context` lends its registries (scanned only if the plugin fingerprint changed); without
    one the folders are scanned afresh. Waiting for another process's index lock is told to
    `on_lock_wait`, or else to `context.notice`.
    """
    started = time.perf_counter()
    context = context or AppContext(settings)
    report = SyncReport(model=settings.embedding.model, check=check)
    wanted: list[SyncKind] = [k for k in KINDS if k in set(kinds)]
    store = open_store(settings)
    if check:
        _check(settings, context, store, wanted, report, full=full)
        report.seconds = time.perf_counter() - started
        return report
    lock = index_lock_path(settings)
    notice = on_lock_wait or context.notice
    hint = "wait for it to finish, or run `homeclaw sync --lock-timeout SECONDS` to wait longer"
    with file_lock(lock, timeout=lock_timeout, what="the index", on_wait=notice, hint=hint):
        source = example_source(context)
        for kind in wanted:
            fingerprint = _unchanged_plugins(
                settings, store, kind, report, full=full, source=source
            )
            if fingerprint is None:
                continue
            damage = drop_if_damaged(store, table_name(settings, kind)) if full else None
            plan = _make_plan(
                context, store, kind, full=full, refresh_test=True, report=report, source=source
            )
            plan.report.rebuilt = damage or plan.report.rebuilt
            _apply(settings, store, plan, report, progress)
            if store.remote:
                write_owned(settings, plan.table, [r.id for r in plan.rows])
            _merge(report, plan.report)
            if kind == "plugins":
                generation = store.snapshot_generation(plan.table)
                if generation:
                    errors = [e for e in report.errors if e.startswith("plugin ")]
                    fp.save_state(settings, fingerprint, generation, len(plan.rows), errors)
        if settings.embedding.int8_queries:
            _ensure_int8_queries(settings, report)
    report.seconds = time.perf_counter() - started
    return report


def _check(
    settings: Settings,
    context: AppContext,
    store: VectorStore,
    wanted: list[SyncKind],
    report: SyncReport,
    *,
    full: bool,
) -> None:
    """`sync --check`: what a sync would change, written into `report`; nothing is written."""
    source = example_source(context)
    for kind in wanted:
        if _unchanged_plugins(settings, store, kind, report, full=full, source=source) is None:
            continue
        plan = _make_plan(
            context, store, kind, full=full, refresh_test=False, report=report, source=source
        )
        if plan.text_index_stale and not plan.report.stale:
            plan.report.rebuilt = "full-text index out of date"
        elif plan.snapshot_missing and not plan.report.stale:
            plan.report.rebuilt = "query snapshot missing"
        _merge(report, plan.report)


def _ensure_int8_queries(settings: Settings, report: SyncReport) -> None:
    from homeclaw_cli.adapters.int8_twin import ensure_int8_twin

    warning = ensure_int8_twin(models_dir(settings), settings.embedding.model)
    report.warnings.extend([warning] if warning else [])


def _unchanged_plugins(
    settings: Settings,
    store: VectorStore,
    kind: SyncKind,
    report: SyncReport,
    *,
    full: bool,
    source: ExampleSource | None = None,
) -> str | None:
    """None when the plugin folders and the index are exactly as the last sync left them
    (then `report` gets the unchanged count); otherwise the fingerprint to save afterwards."""
    if kind != "plugins":
        return ""
    fingerprint = fp.plugin_fingerprint(settings)
    if source is not None:
        fingerprint += ":" + source.fingerprint()
    if full or not settings.plugins.incremental_sync:
        return fingerprint
    state = fp.load_state(settings)
    # a shared index another machine changed gets a new snapshot, so it is looked at again
    store.ensure_fresh(table_name(settings, kind), max_age=0)
    generation = store.snapshot_generation(table_name(settings, kind))
    if (
        generation
        and state.get("fingerprint") == fingerprint
        and (state.get("generation") == generation)
    ):
        _merge(report, KindReport(kind=kind, unchanged=int(state.get("count", 0))))
        report.errors.extend(str(e) for e in state.get("errors", []))
        return None
    return fingerprint


def _make_plan(
    context: AppContext,
    store: VectorStore,
    kind: SyncKind,
    *,
    full: bool,
    refresh_test: bool,
    report: SyncReport,
    source: ExampleSource | None,
) -> _Plan:
    settings = context.settings
    rows, errors = plugin_rows(context) if kind == "plugins" else skill_rows(context)
    attach_generated_examples(kind, rows, source)
    report.errors.extend(errors)
    table = table_name(settings, kind)
    section = settings.plugins if kind == "plugins" else settings.skills
    incremental = section.incremental_sync
    store.ensure_fresh(table, max_age=0)  # a shared index: diff against its newest version
    fast = store.meta_from_snapshot(table)
    if fast is None and not store.may_exist(table):
        # nothing indexed yet: no need to open LanceDB, which would create the folder
        # (`--check` writes nothing, and may run where it cannot write)
        fast = {}
    plan = _plan(
        kind,
        table,
        rows,
        fast if fast is not None else store.meta(table),
        model=settings.embedding.model,
        full=full or (not incremental and refresh_test),  # --check compares hashes only
        refresh_test=refresh_test,
    )
    if store.remote:  # other machines' rows are theirs to delete (docs/team.md)
        owned = read_owned(settings, table)
        plan.remove = [i for i in plan.remove if i in owned]
        plan.report.removed = plan.remove
    if (
        fast is None
    ):  # otherwise the snapshot proves the last sync finished (see meta_from_snapshot)
        plan.text_index_stale = store.text_index_stale(table)
        plan.snapshot_missing = store.exists(table) and store.snapshot_missing(table)
    return plan


def _merge(report: SyncReport, kind_report: KindReport) -> None:
    report.kinds[kind_report.kind] = kind_report
    report.extend(kind_report, prefix=kind_report.kind.removesuffix("s") + ":")
    report.unchanged += kind_report.unchanged


def _progress_pair(
    kind: str, progress: SyncProgress | None
) -> tuple[Callable[[int], None], Callable[[int], None]] | None:
    if progress is None:
        return None
    return (lambda total: progress.start(kind, total)), progress.advance


def _apply(
    settings: Settings,
    store: VectorStore,
    plan: _Plan,
    report: SyncReport,
    progress: SyncProgress | None,
) -> None:
    model = settings.embedding.model
    if plan.embed:
        done = embed_rows(
            plan.embed,
            store=store,
            table=plan.table,
            model=model,
            models_dir=models_dir(settings),
            batch_size=settings.embedding.batch_size,
            rebuild=plan.rebuild,
            reuse=plan.report.updated,
            progress=_progress_pair(plan.kind, progress),
        )
        if done.embedder:
            report.model_loaded = True
            report.embedder = done.embedder
        if done.warning:
            report.warnings.append(done.warning)
        if plan.rebuild:
            store.replace_all(
                plan.table, plan.rows, done.vectors, model, done.dim, facets=done.facets
            )
        else:
            upsert_rows(store, plan.table, plan.embed, done, model)
    if plan.remove:
        store.delete(plan.table, plan.remove)
    changed_rows = bool(plan.embed or plan.remove)
    if (changed_rows and not plan.rebuild) or plan.text_index_stale:
        store.rebuild_text_index(plan.table)
    if changed_rows:
        store.optimize(plan.table)
    if changed_rows or plan.rebuild or plan.snapshot_missing:
        store.refresh_snapshot(plan.table)
