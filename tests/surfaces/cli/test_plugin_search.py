from __future__ import annotations

import re
from typing import Any

import pytest

from tests.fakes.index import write_plugin, write_skill
from tests.json_output import payload


def test_search_before_sync_says_to_sync(cli: Any, index_env: dict[str, Any]) -> None:
    result = cli("plugin", "search", "weather")
    assert result.exit_code != 0
    assert "homeclaw sync" in result.stderr


def test_search_prints_kept_plugins(cli: Any, index_env: dict[str, Any]) -> None:
    cli("sync")
    result = cli("plugin", "search", "weather", "forecast", "for", "rain")
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0].split("\t")
    assert first[0] == "weather"
    assert "forecast" in first[2]


def test_search_json_and_explain(cli: Any, index_env: dict[str, Any]) -> None:
    cli("sync")
    data = payload(cli("plugin", "search", "slack", "--explain", "--json"))
    assert data["hits"][0]["id"] == "slack"
    assert data["method"] == "hybrid"
    cand = data["candidates"][0]
    assert set(cand) >= {"dense_score", "keyword_score", "rank", "kept", "reason", "score"}
    text = cli("plugin", "search", "slack", "--explain").stdout
    rows = [line.split("\t") for line in text.splitlines()]
    assert rows[0][1] == "slack" and rows[0][5] == "kept" and rows[0][6] == "kept"
    assert any(r[5] == "dropped" for r in rows[1:])


def test_search_fallback_is_explained(cli: Any, index_env: dict[str, Any]) -> None:
    cli("sync")
    result = cli(
        "plugin", "search", "tell me a joke", env={"HOMECLAW_PLUGINS__SIMILARITY_THRESHOLD": "0.95"}
    )
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "no plugin was close enough to offer; closest:" in result.stderr


def test_search_offers_nothing_when_the_best_match_is_under_the_best_threshold(
    cli: Any, index_env: dict[str, Any]
) -> None:
    cli("sync")
    offered = payload(cli("plugin", "search", "slack", "--json"))
    best = offered["hits"][0]["score"]
    over = round(best - 0.2 + 0.01, 3)  # the best match misses similarity_threshold + over
    strict = {"HOMECLAW_PLUGINS__BEST_OVER_THRESHOLD": str(over)}
    data = payload(cli("plugin", "search", "slack", "--explain", "--json", env=strict))
    assert data["hits"] == [] and data["fallback"]
    reasons = {c["reason"] for c in data["candidates"] if c["score"] >= 0.2}
    assert reasons == {f"below threshold: the best match is under {0.2 + over:.3g}"}


def test_bad_method_is_a_usage_error(cli: Any, index_env: dict[str, Any]) -> None:
    result = cli("plugin", "search", "x", "--method", "bm42")
    assert result.exit_code == 2
    assert "dense, fts, hybrid" in result.stderr


def test_skill_search(cli: Any, index_env: dict[str, Any]) -> None:
    cli("sync")
    data = payload(cli("skill", "search", "summarize this document", "--json"))
    assert data["hits"][0]["id"] == "summarize"
    assert data["hits"][0]["kind"] == "skill"


def test_explain_table_on_a_terminal_names_every_column(
    cli: Any, index_env: dict[str, Any], monkeypatch: Any
) -> None:
    cli("sync")
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # Rich output, as on a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    result = cli("plugin", "search", "slack message", "--explain")
    assert result.exit_code == 0, result.output
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    header = next(line for line in shown.splitlines() if "RANK" in line)
    assert [cell.strip() for cell in header.split("┃")] == [
        *("RANK", "ID", "SCORE", "DENSE", "KEYWORD", "RESULT", "WHY", "MATCHED")
    ]


def test_search_warns_in_one_line_when_plugins_changed_since_the_sync(
    cli: Any, index_env: dict[str, Any]
) -> None:
    cli("sync")
    fresh = cli("plugin", "search", "weather")
    assert fresh.exit_code == 0 and "homeclaw sync" not in fresh.stderr
    write_plugin(index_env["plugins"], "tides", "Tides", "High and low tide times.")
    stale = cli("plugin", "search", "weather")
    assert stale.exit_code == 0
    assert stale.stderr.count("\n") == 1 and "run `homeclaw sync`" in stale.stderr
    cli("sync")
    assert "homeclaw sync" not in cli("plugin", "search", "weather").stderr


def test_an_example_request_finds_its_plugin_and_explain_names_it(
    cli: Any, index_env: dict[str, Any]
) -> None:
    write_plugin(
        index_env["plugins"],
        "mathx",
        "Mathx",
        "Exact integer arithmetic.",
        examples=["7 factorial pls", "gcd of 12 and 18"],
        capabilities=[
            {"id": "gcd", "name": "Gcd", "description": "Greatest common divisor."},
            {
                "id": "factorial",
                "name": "Factorial",
                "description": "n!",
                "examples": ["factorial of 20"],
            },
        ],
    )
    cli("sync")
    data = payload(cli("plugin", "search", "factorial of 9 pls", "--explain", "--json"))
    top = data["hits"][0]
    assert top["id"] == "mathx"
    assert top["matched"] in ("7 factorial pls", "factorial of 20")
    assert top["capabilities"] == ["factorial", "gcd"]
    assert top["facet_score"] > top["dense_score"] - 1e-6 or top["facet_score"] > 0.5
    text = cli("plugin", "search", "factorial of 9 pls", "--explain").stdout
    first = text.splitlines()[0].split("\t")
    assert first[1] == "mathx" and "factorial" in first[7] and "capabilities: factorial" in first[7]


CLOCK = "The clock: what time it is now in any city, or at seven tomorrow."
CLOCK_EXAMPLES = ["what time is it in Paris", "time in Tokyo now"]


@pytest.mark.parametrize("snapshots", ["true", "false"])
def test_a_request_a_plugin_is_not_for_is_not_offered_it(
    cli: Any, index_env: dict[str, Any], snapshots: str
) -> None:
    """A world clock that names alarms in `not_for` is not offered "clock alarm for seven",
    which reads closer to that than to the clock (the timer is offered instead); `plugin show`
    lists them and explain says why. The time in a city still finds it, and so does the
    clause of a two-need request that asks for it."""
    env = {"HOMECLAW_INDEX__SNAPSHOTS": snapshots}
    plugins = index_env["plugins"]
    write_plugin(plugins, "clock", "Clock", CLOCK, examples=CLOCK_EXAMPLES)
    cli("sync", env=env)
    alarm = "clock alarm for seven"
    assert _offered(cli, alarm, env) == ["clock"]
    write_plugin(
        plugins,
        "clock",
        "Clock",
        CLOCK,
        examples=CLOCK_EXAMPLES,
        not_for=["set an alarm clock for seven am"],
    )
    cli("sync", env=env)
    assert "not for: set an alarm clock for seven am" in cli("plugin", "show", "clock").stdout
    data = payload(cli("plugin", "search", alarm, "--explain", "--json", env=env))
    assert [h["id"] for h in data["hits"]] == ["timer"]
    clock = next(c for c in data["candidates"] if c["id"] == "clock")
    assert not clock["kept"]
    assert clock["reason"].startswith(
        "not for this request: closer to 'set an alarm clock for seven am' ("
    ) and clock["reason"].endswith("than to anything it is for (0.55)")
    assert _offered(cli, "what time is it in Lima", env) == ["clock"]
    both = _offered(cli, "set the alarm clock for seven and what time is it in Lima", env)
    assert set(both) == {"clock", "timer"}


def test_a_request_a_skill_is_not_for_is_not_offered_it(
    cli: Any, index_env: dict[str, Any]
) -> None:
    """SKILL.md takes `not_for` too: the haiku skill names limericks, so a limerick request
    is not offered it, and `skill show` lists what it is not for."""
    write_skill(index_env["skills"], "haiku", "haiku", "Write a haiku poem about a topic.")
    cli("sync")
    limerick = "write a limerick poem about my cat"
    assert _skills(cli, limerick) == ["haiku"]
    skill_md = index_env["skills"] / "haiku" / "SKILL.md"
    text = skill_md.read_text(encoding="utf-8")
    skill_md.write_text(
        text.replace("---\n\n", 'not_for: ["a limerick poem about a cat"]\n---\n\n', 1),
        encoding="utf-8",
    )
    cli("sync")
    assert "not for: a limerick poem about a cat" in cli("skill", "show", "haiku").stdout
    assert "haiku" not in _skills(cli, limerick)
    data = payload(cli("skill", "search", limerick, "--explain", "--json"))
    haiku = next(c for c in data["candidates"] if c["id"] == "haiku")
    assert haiku["reason"].startswith("not for this request: closer to 'a limerick poem")
    assert _skills(cli, "write a haiku poem about the sea") == ["haiku"]


def _skills(cli: Any, query: str) -> list[str]:
    return [h["id"] for h in payload(cli("skill", "search", query, "--json"))["hits"]]


def _offered(cli: Any, query: str, env: dict[str, str]) -> list[str]:
    return [h["id"] for h in payload(cli("plugin", "search", query, "--json", env=env))["hits"]]


def test_a_two_need_request_offers_both_plugins(cli: Any, index_env: dict[str, Any]) -> None:
    cli("sync")
    query = "rain forecast for Paris and set a countdown timer for ten minutes"
    hits = [h["id"] for h in payload(cli("plugin", "search", query, "--json"))["hits"]]
    assert {"weather", "timer"} <= set(hits[:3])


def test_a_request_in_sentences_offers_the_plugin_its_last_sentences_ask_for(
    cli: Any, index_env: dict[str, Any]
) -> None:
    """Two needs, each with its own context: the request is searched in two halves, so the
    second need's plugin is offered although the first three pieces are all about the first."""
    cli("sync")
    query = (
        "Rain in Paris on Friday, wind in Paris on Friday, temperature in Paris on Friday."
        " What weather for the city? The kids nap after lunch. Set a countdown timer or an alarm."
    )
    hits = [h["id"] for h in payload(cli("plugin", "search", query, "--json"))["hits"]]
    assert {"weather", "timer"} <= set(hits)


def _airports_and_trips(cli: Any, index_env: dict[str, Any]) -> None:
    write_plugin(
        index_env["plugins"],
        "airports",
        "Airports",
        "The name, website and runways of an airport from its ICAO code.",
    )
    write_plugin(index_env["plugins"], "trips", "Trips", "Planning a trip to Germany or anywhere.")
    cli("sync")


def test_a_context_clause_does_not_outrank_what_the_whole_request_asks_for(
    cli: Any, index_env: dict[str, Any]
) -> None:
    """The clause "I'm planning a trip to Germany" matches the trip planner better on its own
    than the whole request matches anything, yet the request asks about an airport: the
    airport plugin ranks first, and the trip planner, best of its clause, is offered next."""
    _airports_and_trips(cli, index_env)
    query = (
        "I'm planning a trip to Germany and I want the website of the airport with ICAO code EDDF"
    )
    data = payload(cli("plugin", "search", query, "--explain", "--json"))
    hits = [h["id"] for h in data["hits"]]
    assert hits[:2] == ["airports", "trips"]
    trips = next(c for c in data["candidates"] if c["id"] == "trips")
    airports = next(c for c in data["candidates"] if c["id"] == "airports")
    assert trips["score"] > airports["score"]  # its clause's score, which the cut uses


def test_a_sentence_that_says_it_is_another_need_ranks_by_its_own_score(
    cli: Any, index_env: dict[str, Any]
) -> None:
    """ "Additionally, ..." opens a need, not context: the plugin it matches best ranks by its
    own score, first here, where a context clause's would rank under the request's best."""
    _airports_and_trips(cli, index_env)
    asked = "I want the website of the airport with ICAO code EDDF. {} planning a trip to Germany."
    hits = [
        h["id"]
        for h in payload(cli("plugin", "search", asked.format("Additionally,"), "--json"))["hits"]
    ]
    assert hits[:2] == ["trips", "airports"]
    hits = [
        h["id"] for h in payload(cli("plugin", "search", asked.format("I'm"), "--json"))["hits"]
    ]
    assert hits[:2] == ["airports", "trips"]


def test_a_clause_far_from_the_whole_request_adds_a_plugin_only_when_sure_of_it(
    cli: Any, index_env: dict[str, Any]
) -> None:
    """The whole request is about the weather. "my kayak got wet" matches the boats plugin a
    little (0.34 alone, under CLAUSE_SURE): context, nothing added. "kayak canoe" is all about
    it: a need of its own, offered after the weather plugin."""
    meteo = "forecast rain wind snow sun cloud storm temperature humidity frost fog hail"
    write_plugin(index_env["plugins"], "meteo", "Meteo", meteo)
    write_plugin(index_env["plugins"], "boats", "Boats", "Rent a kayak or a canoe by the hour.")
    cli("sync")
    data = payload(cli("plugin", "search", f"my kayak got wet and {meteo}", "--explain", "--json"))
    assert [h["id"] for h in data["hits"]] == ["meteo"]
    boats = next(c for c in data["candidates"] if c["id"] == "boats")
    assert not boats["kept"] and "under the best match" in boats["reason"]
    data = payload(cli("plugin", "search", f"kayak canoe and {meteo}", "--json"))
    assert [h["id"] for h in data["hits"]][:2] == ["meteo", "boats"]
    query = "kayak canoe and rain forecast for paris"  # two needs: both plugins stay near
    assert {"boats", "weather"} <= {
        h["id"] for h in payload(cli("plugin", "search", query, "--json"))["hits"]
    }


def test_search_with_vector_search_off_shows_what_chat_offers_without_scores(
    cli: Any, index_env: dict[str, Any]
) -> None:
    """Vector search off ranks nothing: the first usable plugins in id order for any request.
    It printed a 0.000 score for each, and listed plugins chat never offers: one whose folder
    is gone since the sync, one whose health check failed."""
    import shutil

    from homeclaw_cli.state.health import HealthStore

    assert cli("sync").exit_code == 0
    shutil.rmtree(index_env["plugins"] / "calculator")
    HealthStore(index_env["home"] / "data" / "state").set("slack", False, "connection refused")
    off = {"HOMECLAW_PLUGINS__USE_VECTOR_SEARCH": "false", "HOMECLAW_PLUGINS__MAX_RETRIEVED": "1"}
    explained = cli("plugin", "search", "weather", "--explain", env=off).stdout
    rows = [line.split("\t") for line in explained.splitlines()]
    assert [r[1:3] for r in rows] == [
        ["calculator", "dropped"],
        ["slack", "dropped"],
        ["timer", "kept"],
        ["weather", "dropped"],
    ]
    assert rows[0][3].startswith("stale") and rows[1][3] == "unhealthy: connection refused"
    result = cli("plugin", "search", "weather", "forecast", env=off)
    assert result.exit_code == 0, result.output
    assert result.stdout == "timer\tSet a countdown timer or an alarm.\n"
    assert "0.000" not in result.output
    assert "plugins.use_vector_search is false: nothing is ranked; chat offers these 1" in (
        result.stderr
    )
    data = payload(cli("plugin", "search", "weather", "--json", env=off))
    assert (data["ranked"], [(h["id"], h["score"]) for h in data["hits"]]) == (
        False,
        [("timer", None)],
    )
