"""An index row: what sync writes for one plugin or skill, and the texts embedded for it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.adapters.facets import CAPABILITY, EXAMPLE, NAME, NOT_FOR, TEXT, Facet
from homeclaw_cli.core.embedded_text import NameCheck
from homeclaw_cli.core.examples import Example, examples_hash

# Bumped when what a row embeds changes, so every row is re-embedded once.
RECIPE = "4"


@dataclass
class IndexRow:
    """What sync writes for one plugin or skill.

    `examples` holds the author's examples and any generated ones (Example.source says
    which); `descriptor_hash` is the hash of the descriptor alone, what generated examples
    are cached by. `content_hash` covers both, so new examples re-embed the row.
    """

    id: str
    kind: str
    source: str
    text: str
    search_text: str
    descriptor_hash: str
    descriptor: dict[str, Any]
    status: str = "ok"  # ok | ineligible
    status_detail: str = ""
    examples: list[Example] = field(default_factory=list)
    # (capability id, its text) of a plugin with several capabilities, each its own facet
    capabilities: list[tuple[str, str]] = field(default_factory=list)
    # pieces of `text` embedded alone as well (plugins.text_facets)
    pieces: list[str] = field(default_factory=list)
    # requests the plugin is not for (embedded, never fused into its score)
    not_for: list[str] = field(default_factory=list)
    # a plugin's name and the text embedded instead of `text` when the name reads as a brand
    # (decided with the model at embedding time; `text` is what the row stores and hashes)
    name_check: NameCheck | None = None
    # set by the embedding step: the name left the embedded text and is a facet of its own
    name_left_out: bool = False

    @property
    def content_hash(self) -> str:
        """What decides whether the stored row is current (text and facets included)."""
        text = hashlib.sha256("\n\n".join([self.text, *self.pieces]).encode()).hexdigest()[:12]
        return f"{self.descriptor_hash[:40]}:{RECIPE}:{examples_hash(self.examples)}:{text}"

    @property
    def facets(self) -> list[Facet]:
        """The texts embedded besides the descriptor: examples, capabilities, text pieces,
        not_for requests, then the name when it left the text."""
        out = [Facet(e.text, EXAMPLE, e.capability, e.source) for e in self.examples]
        out.extend(Facet(text, CAPABILITY, cap, "manifest") for cap, text in self.capabilities)
        out.extend(Facet(text, TEXT, None, "manifest") for text in self.pieces)
        out.extend(Facet(text, NOT_FOR, None, "author") for text in self.not_for)
        if self.name_left_out and self.name_check is not None:
            out.append(Facet(self.name_check.name, NAME, None, "manifest"))
        return out

    @property
    def keyword_text(self) -> str:
        """The full-text index's text: the search text and every example."""
        return "\n".join([self.search_text, *(e.text for e in self.examples)])


def row_examples(row: dict[str, Any]) -> list[Example]:
    """The examples stored with an index row (author and generated, see Example.source)."""
    return [Example.from_json(e) for e in json.loads(row.get("examples") or "[]")]
