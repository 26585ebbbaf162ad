"""What a plugin's vector embeds, and whether its name is in it.

The `full` text is the name, the descriptions, the keywords and the capabilities;
`description` is description + description_long alone (seed 000 §4).

A store's plugins are named like products: "Kayak", "1pt", "Zillow", "WeCanTrack". An
embedder reads such a name as an ordinary word (a boat) or as word pieces that mean nothing,
and embedded with the description it pulls the plugin's vector away from the requests the
plugin serves. A descriptive name ("Air Quality: Current Air Quality", "Weather") agrees with
its description and stays. So a name whose vector is far from its description's leaves the
embedded text, unless the description is too short to stand alone ("-", "Testing", "gets you
the data"): then the name is the best clue there is. A name left out is embedded alone, as
a facet of the plugin's row, and still counts for the keyword index and the name bonus, so a
request that names the plugin ("kayak flights to Lisbon") still finds it.

Measured on the public sets, benchmarks/retrieval/RESULTS.md ("Brand names").
"""

from __future__ import annotations

from dataclasses import dataclass

from homeclaw_cli.core.keywords import search_words
from homeclaw_cli.core.manifest import PluginManifest

# Cosine of the name's and the description's vectors (all-MiniLM-L6-v2) under which the
# name says nothing the description says.
BRAND_MAX_COSINE = 0.3
# Meaningful words a description needs to be embedded without its name.
BRAND_MIN_DESCRIPTION_WORDS = 5


@dataclass(frozen=True)
class NameCheck:
    """What decides whether a plugin's name is embedded: the name, the description it is
    compared with, and the text embedded instead when the name reads as a brand."""

    name: str
    description: str
    text_without_name: str


def plugin_text(manifest: PluginManifest, style: str = "full", *, with_name: bool = True) -> str:
    """The text embedded for `manifest` in `style` (`full` or `description`).

    Without the name, a capability line that only repeats the description goes too: its
    name is usually the brand again.
    """
    if style == "description":
        return description_text(manifest)
    parts = [manifest.name] if with_name else []
    parts.append(manifest.description)
    if manifest.description_long:
        parts.append(manifest.description_long)
    if manifest.keywords:
        parts.append("Keywords: " + ", ".join(manifest.keywords))
    parts.extend(
        f"{c.name}: {c.description}"
        for c in manifest.capabilities
        if with_name or c.description.strip() != manifest.description.strip()
    )
    return "\n".join(parts)


def description_text(manifest: PluginManifest) -> str:
    return "\n".join(p for p in (manifest.description, manifest.description_long) if p)


def reads_as_brand(cosine: float, description: str) -> bool:
    """True when a name whose vector has `cosine` to its description's is better left out."""
    if cosine >= BRAND_MAX_COSINE:
        return False
    return len(search_words(description)) >= BRAND_MIN_DESCRIPTION_WORDS


def names_its_description(name: str, description: str) -> bool:
    """True when every meaningful word of `name` is in `description` ("Weather" for
    "Current weather and forecast"): such a name is descriptive without asking the model."""
    words = set(search_words(name))
    return words <= set(search_words(description)) if words else False


def name_check(manifest: PluginManifest, style: str = "full") -> NameCheck | None:
    """What sync needs to decide whether the plugin's name is embedded; None when that needs
    no model: the `description` style never embeds it, and a name whose words are all in the
    description says what the plugin does."""
    description = description_text(manifest)
    if style == "description" or names_its_description(manifest.name, description):
        return None
    return NameCheck(manifest.name, description, plugin_text(manifest, style, with_name=False))
