"""What a plugin's vector embeds: the full text, and the same without a brand-like name."""

from __future__ import annotations

from homeclaw_cli.core.embedded_text import (
    BRAND_MAX_COSINE,
    name_check,
    names_its_description,
    plugin_text,
    reads_as_brand,
)
from homeclaw_cli.core.manifest import PluginManifest

LONG = "Search flights, stays and rental cars on your budget."


def _manifest(name: str, description: str, **extra: object) -> PluginManifest:
    return PluginManifest.model_validate(
        {
            "id": "p",
            "name": name,
            "description": description,
            "type": "subprocess",
            "config": {"command": "python3"},
            **extra,
        }
    )


def test_the_text_without_the_name_drops_capability_lines_that_repeat_the_description() -> None:
    manifest = _manifest(
        "Kayak",
        LONG,
        keywords=["travel"],
        capabilities=[
            {"id": "search", "name": "Kayak", "description": LONG},
            {"id": "explore", "name": "Explore", "description": "Places to go for a budget."},
        ],
    )
    assert plugin_text(manifest) == (
        f"Kayak\n{LONG}\nKeywords: travel\nKayak: {LONG}\nExplore: Places to go for a budget."
    )
    assert plugin_text(manifest, with_name=False) == (
        f"{LONG}\nKeywords: travel\nExplore: Places to go for a budget."
    )
    assert plugin_text(manifest, "description") == LONG


def test_a_name_whose_words_are_in_the_description_needs_no_check() -> None:
    assert names_its_description("Weather", "Current weather and forecast for a city.")
    assert not names_its_description("Kayak", LONG)
    assert not names_its_description("?", LONG)  # no meaningful word: nothing to go by
    assert name_check(_manifest("Weather", "Current weather and forecast.")) is None
    assert name_check(_manifest("Kayak", LONG), "description") is None
    check = name_check(_manifest("Kayak", LONG, description_long="Also hotels."))
    assert check is not None
    assert check.name == "Kayak" and check.description == f"{LONG}\nAlso hotels."
    assert check.text_without_name == f"{LONG}\nAlso hotels."


def test_a_far_name_is_a_brand_unless_the_description_is_too_short_to_stand_alone() -> None:
    far, near = BRAND_MAX_COSINE - 0.1, BRAND_MAX_COSINE + 0.1
    assert reads_as_brand(far, LONG)
    assert not reads_as_brand(near, LONG)
    assert not reads_as_brand(far, "Testing")
    assert not reads_as_brand(far, "gets you the data")
