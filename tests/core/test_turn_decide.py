"""When `llm.decide: auto` checks a free answer: retrieval sure of a plugin, or a figure for a
plugin that only looks things up."""

from __future__ import annotations

from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult
from homeclaw_cli.core.turn_decide import sure_of_a_plugin


def plugin(plugin_id: str, effects: str) -> PluginManifest:
    return PluginManifest.model_validate(
        {
            "id": plugin_id,
            "name": plugin_id,
            "description": "Does a thing.",
            "type": "inline",
            "effects": effects,
            "capabilities": [{"id": "go", "name": "Go", "description": "Go."}],
        }
    )


def retrieved(plugin_id: str, score: float) -> RetrievalResult:
    hit = RetrievalHit(plugin_id, "plugin", score, score, None, 1, True, "kept")
    return RetrievalResult("q", [hit], [hit])


def test_a_high_score_is_sure_whatever_the_request() -> None:
    offered = [plugin("units", "write")]
    assert sure_of_a_plugin(retrieved("units", 0.6), "ounces in grams", offered, 0.5)


def test_a_figure_for_a_read_only_plugin_is_checked_under_the_score() -> None:
    offered = [plugin("units", "read")]
    assert sure_of_a_plugin(retrieved("units", 0.3), "how many grams is 3 ounces", offered, 0.5)
    assert not sure_of_a_plugin(retrieved("units", 0.3), "grams in an ounce", offered, 0.5)


def test_a_figure_for_a_plugin_that_changes_things_is_not() -> None:
    offered = [plugin("notes", "write")]
    assert not sure_of_a_plugin(retrieved("notes", 0.3), "note the code 7391", offered, 0.5)
    assert not sure_of_a_plugin(RetrievalResult("q", [], []), "3 ounces", offered, 0.5)
