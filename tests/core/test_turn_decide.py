"""When `llm.decide: auto` checks a free answer for its figures: the request holds a number,
the plugin retrieval put first only looks things up, and the answer states a figure of its own."""

from __future__ import annotations

from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult
from homeclaw_cli.core.turn_decide import figures_to_check, sole_reading_tool


def plugin(
    plugin_id: str, effects: str, parameter: str = "number", example: str | None = None
) -> PluginManifest:
    go = {
        "id": "go",
        "name": "Go",
        "description": "Go.",
        "parameters": [{"name": "x", "type": parameter, "example": example}],
    }
    return PluginManifest.model_validate(
        {
            "id": plugin_id,
            "name": plugin_id,
            "description": "Does a thing.",
            "type": "inline",
            "effects": effects,
            "capabilities": [go],
        }
    )


def retrieved(plugin_id: str, score: float) -> RetrievalResult:
    hit = RetrievalHit(plugin_id, "plugin", score, score, None, 1, True, "kept")
    return RetrievalResult("q", [hit], [hit])


def test_a_number_for_a_plugin_that_only_looks_things_up() -> None:
    offered = [plugin("units", "read")]
    assert figures_to_check(retrieved("units", 0.3), "how many grams is 3 ounces", offered)
    assert not figures_to_check(retrieved("units", 0.3), "grams in an ounce", offered)
    assert not figures_to_check(RetrievalResult("q", [], []), "3 ounces", offered)


def test_not_for_a_plugin_that_changes_things_or_takes_no_number() -> None:
    offered = [plugin("notes", "write")]
    assert not figures_to_check(retrieved("notes", 0.3), "note the code 7391", offered)
    clock = [plugin("clock", "read", parameter="string")]
    assert not figures_to_check(retrieved("clock", 0.39), "a time traveler from 3000", clock)


def test_numbers_in_words_and_figures_taken_as_text() -> None:
    """The calculator takes "17.5% of 240" as text: a parameter whose example is figures."""
    calc = plugin("calc", "read", parameter="string", example="17.5% of 240")
    assert figures_to_check(retrieved("calc", 0.4), "what is twelve times eight", [calc])
    assert not figures_to_check(retrieved("calc", 0.4), "what is the square root", [calc])


def test_the_tool_a_sure_turn_calls_for_figures_is_the_best_plugins_only_reading_one() -> None:
    calc = plugin("calc", "read", parameter="string")
    assert sole_reading_tool(retrieved("calc", 0.6), [calc]) == "calc__go"
    assert sole_reading_tool(retrieved("notes", 0.6), [plugin("notes", "write")]) is None
    assert sole_reading_tool(RetrievalResult("q", [], []), [calc]) is None
    two = calc.model_copy(update={"capabilities": [*calc.capabilities, *calc.capabilities]})
    assert sole_reading_tool(retrieved("calc", 0.6), [two]) is None  # which one: ask
