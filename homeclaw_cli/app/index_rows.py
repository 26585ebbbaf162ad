"""What sync indexes: one IndexRow per plugin and skill, with its author examples and the
generated ones `sync --expand` cached (attached through an ExampleSource)."""

from __future__ import annotations

from typing import Literal, Protocol

from homeclaw_cli.adapters.vector_store import IndexRow
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.catalog.skills import TEST_PREFIX
from homeclaw_cli.core.embedded_text import name_check, plugin_text
from homeclaw_cli.core.examples import Example, merge_examples
from homeclaw_cli.core.manifest import PluginManifest

SyncKind = Literal["plugins", "skills"]


class ExampleSource(Protocol):
    """Generated example requests for index rows (what `sync --expand` caches)."""

    def examples_for(self, kind: SyncKind, row: IndexRow) -> list[Example]:
        """The generated examples of `row`, looked up by row.id and row.descriptor_hash.

        Called on every sync, so it must be cheap: read a cache, never load a model.
        Returned examples carry source="generated" and, when they were written for one
        capability, its id.
        """
        ...

    def fingerprint(self) -> str:
        """Changes whenever examples_for would answer differently (e.g. the cache's mtime),
        so a sync after new examples were generated does not take the no-change shortcut."""
        ...


def attach_generated_examples(
    kind: SyncKind, rows: list[IndexRow], source: ExampleSource | None
) -> None:
    """Add each row's generated examples to its author examples, before rows are compared and
    embedded: the hook `sync --expand` fills through `example_source`.

    A row whose examples changed gets a new content_hash and is re-embedded (its examples
    too); rows without new examples are left as they are and never re-embedded.
    """
    if source is None:
        return
    for row in rows:
        generated = [
            Example(e.text, "generated", e.capability) for e in source.examples_for(kind, row)
        ]
        row.examples = merge_examples(row.examples, generated)


def plugin_rows(context: AppContext) -> tuple[list[IndexRow], list[str]]:
    """Index rows for every loadable plugin, and one error line per broken one."""
    from homeclaw_cli.catalog.registry import describe_entry

    registry, settings = context.registry, context.settings
    rows = []
    for entry in registry.plugins.values():
        manifest = entry.manifest
        text = plugin_text(manifest, settings.plugins.embed_text)
        capabilities = manifest.capabilities if len(manifest.capabilities) > 1 else []
        rows.append(
            IndexRow(
                id=entry.id,
                kind="plugin",
                source=entry.source,
                text=text,
                search_text=search_text(entry.id, text),
                descriptor_hash=entry.content_hash,
                descriptor=describe_entry(entry),
                examples=manifest.author_examples(),
                capabilities=[(c.id, f"{c.name}: {c.description}") for c in capabilities],
                pieces=text_pieces(manifest) if settings.plugins.text_facets else [],
                not_for=list(manifest.not_for),
                name_check=name_check(manifest, settings.plugins.embed_text),
            )
        )
    errors = [f"plugin {b.folder}: {b.summary}" for b in registry.broken]
    return rows, errors


def text_pieces(manifest: PluginManifest) -> list[str]:
    """The parts of a plugin's embedded text that also get a vector of their own: the name with
    the description, and description_long (in one long text the short one's match is diluted)."""
    pieces = [f"{manifest.name}: {manifest.description}"]
    if manifest.description_long:
        pieces.append(manifest.description_long)
    return pieces


def skill_rows(context: AppContext) -> tuple[list[IndexRow], list[str]]:
    """Index rows for every skill (ineligible ones marked), and one error line per broken one."""
    registry = context.skill_registry
    rows = []
    for skill in registry.skills.values():
        text = skill.embedding_text()
        rows.append(
            IndexRow(
                id=skill.id,
                kind="skill",
                source=skill.source,
                text=text,
                search_text=search_text(skill.id.removeprefix(TEST_PREFIX), text),
                descriptor_hash=skill.content_hash,
                descriptor=skill.to_descriptor(),
                status="ok" if skill.eligible else "ineligible",
                status_detail=skill.ineligible_reason or "",
                examples=[Example(text) for text in skill.examples],
                not_for=list(skill.not_for),
            )
        )
    errors = [f"skill {b.folder}: {b.error}" for b in registry.broken]
    return rows, errors


def search_text(item_id: str, text: str) -> str:
    """What the keyword index sees: the id's words (so `hn`, `f1`, `ssh` match) and the text."""
    words = item_id.replace("-", " ").replace("_", " ")
    return f"{item_id} {words}\n{text}"
