from __future__ import annotations

from homeclaw_cli.core.retrieval import (
    KEYWORD_ADMIT,
    KEYWORD_SATURATION,
    KEYWORD_WEIGHT,
    RELATIVE_MARGIN,
    Candidate,
    RetrievalResult,
    cut_across,
    fallback_names,
    final_score,
    keyword_bonus,
    keyword_saturation,
    rank_candidates,
)
from tests.fakes.retrieval import hit


def _rank(
    cands: list[Candidate],
    method: str = "hybrid",
    threshold: float = 0.2,
    cap: int = 5,
    best_threshold: float | None = None,
):
    return rank_candidates(
        cands,
        kind="plugin",
        method=method,
        threshold=threshold,
        max_in_prompt=cap,
        best_threshold=best_threshold,
    )


def test_keyword_bonus_is_bounded_and_monotonic() -> None:
    assert keyword_bonus(None) == 0.0
    assert keyword_bonus(0.0) == 0.0
    assert 0 < keyword_bonus(1.0) < keyword_bonus(10.0) < KEYWORD_WEIGHT


def test_a_long_request_keeps_its_keyword_matches_apart() -> None:
    assert keyword_saturation(3) == keyword_saturation(8) == KEYWORD_SATURATION
    assert keyword_saturation(20) == 10.0
    # Twenty words: BM25 30 (most of them) against 15 (the common ones). A fixed saturation
    # gives both nearly the whole bonus; the request's own keeps the better match ahead.
    fixed = keyword_bonus(30.0) - keyword_bonus(15.0)
    scaled = keyword_bonus(30.0, keyword_saturation(20)) - keyword_bonus(
        15.0, keyword_saturation(20)
    )
    assert scaled > 1.5 * fixed
    near = Candidate("near", {}, dense=0.50, keyword=30.0, saturation=keyword_saturation(20))
    far = Candidate("far", {}, dense=0.52, keyword=15.0, saturation=keyword_saturation(20))
    kept, _ = _rank([far, near])
    assert [h.id for h in kept] == ["near", "far"]


def test_hybrid_lifts_an_exact_keyword_match_over_a_near_miss() -> None:
    kept, _ = _rank([Candidate("a", {}, dense=0.42), Candidate("b", {}, dense=0.40, keyword=6.0)])
    assert [h.id for h in kept] == ["b", "a"]
    assert final_score("dense", 0.40, 6.0) == 0.40


def test_a_weak_keyword_match_ranks_but_does_not_lift_over_the_threshold() -> None:
    # "how do u say good morning in spanish": notes shares a common word (BM25 2.1), dense 0.15
    weak = Candidate("notes", {}, dense=0.15, keyword=2.1)
    real = Candidate("todo", {}, dense=0.15, keyword=KEYWORD_ADMIT)
    named = Candidate("slack", {}, dense=0.15, keyword=2.1, bonus=0.06)
    kept, everything = _rank([weak, real, named])
    assert [h.id for h in kept] == ["slack", "todo"]
    reasons = {h.id: h.reason for h in everything}
    assert reasons["notes"] == "below threshold: only a weak keyword match lifts it over"
    assert [h.id for h in everything] == ["slack", "todo", "notes"]


def test_a_complete_keyword_match_lifts_over_the_threshold() -> None:
    # "do i have uncommitted changes?" among four skills: both words in git-summary's text, and
    # BM25 only 2.4, as no word can be rare among four texts
    complete = Candidate("git-summary", {}, dense=0.28, keyword=2.4, complete=True)
    partial = Candidate("disk-usage", {}, dense=0.28, keyword=2.4)
    assert not complete.weak("hybrid") and partial.weak("hybrid")
    assert partial.lifted("hybrid", 0.3) and not complete.lifted("hybrid", 0.3)
    assert not partial.lifted("hybrid", 0.2)  # over the threshold on its own
    kept, everything = _rank([complete, partial], threshold=0.3)
    assert [h.id for h in kept] == ["git-summary"]
    reasons = {h.id: h.reason for h in everything}
    assert reasons["disk-usage"] == "below threshold: only a weak keyword match lifts it over"


def test_a_ceiling_places_a_candidate_but_its_own_score_is_cut() -> None:
    # a clause's best (0.7 on its clause) ranks under the request's best (0.3) and is kept by
    # its own score, though its place is under the threshold
    request_best = Candidate("airports", {}, dense=0.3, gap=0.0)
    clause_best = Candidate("trips", {}, dense=0.7, ceiling=0.15, gap=0.0)
    kept, everything = _rank([clause_best, request_best])
    assert [h.id for h in kept] == ["airports", "trips"]
    assert [h.score for h in everything] == [0.3, 0.7]
    assert clause_best.rank("hybrid") == 0.15 and clause_best.final("hybrid") == 0.7


def test_threshold_margin_and_top_k_reasons() -> None:
    cands = [Candidate(f"p{i}", {}, dense=0.6 - i * 0.02) for i in range(6)]
    cands += [Candidate("far", {}, dense=0.6 - RELATIVE_MARGIN - 0.05)]
    cands += [Candidate("low", {}, dense=0.1)]
    kept, everything = _rank(cands, cap=3)
    assert [h.id for h in kept] == ["p0", "p1", "p2"]
    reasons = {h.id: h.reason for h in everything}
    assert reasons["p3"] == "top-k cut"
    assert reasons["far"] == "below threshold: more than 0.15 under the best match"
    assert reasons["low"] == "below threshold"
    assert [h.rank for h in everything] == list(range(1, 9))
    assert all(h.kept == (h.reason == "kept") for h in everything)


def test_nothing_is_kept_when_the_best_match_is_under_the_best_threshold() -> None:
    far_off = [Candidate("todo", {}, dense=0.22), Candidate("weather", {}, dense=0.21)]
    kept, everything = _rank(far_off, best_threshold=0.25)
    assert kept == []
    assert {h.reason for h in everything} == {"below threshold: the best match is under 0.25"}
    # A best match that reaches it brings the others over the plain threshold along.
    kept, _ = _rank([Candidate("units", {}, dense=0.3), *far_off], best_threshold=0.25)
    assert [h.id for h in kept] == ["units", "todo", "weather"]


def test_a_weak_keyword_match_does_not_make_the_best_match() -> None:
    # 0.21 by meaning; a BM25 of 1 lifts its final score past 0.25 but is too weak to count.
    lifted = Candidate("news", {}, dense=0.21, keyword=1.0)
    assert lifted.final("hybrid") > 0.25 and lifted.weak("hybrid")
    kept, _ = _rank([lifted, Candidate("notes", {}, dense=0.22)], best_threshold=0.25)
    assert kept == []


def test_ineligible_unhealthy_and_stale_are_never_kept() -> None:
    cands = [
        Candidate("skill", {}, dense=0.9, status="ineligible", detail="needs ffmpeg"),
        Candidate("down", {}, dense=0.8, status="unhealthy"),
        Candidate("gone", {}, dense=0.7, status="stale"),
        Candidate("ok", {}, dense=0.5),
    ]
    kept, everything = _rank(cands)
    assert [h.id for h in kept] == ["ok"]
    reasons = {h.id: h.reason for h in everything}
    assert reasons == {
        "skill": "ineligible: needs ffmpeg",
        "down": "unhealthy",
        "gone": "stale",
        "ok": "kept",
    }


def test_fts_keeps_only_keyword_matches() -> None:
    kept, everything = _rank(
        [Candidate("a", {}, keyword=3.0), Candidate("b", {}, dense=0.9)], method="fts"
    )
    assert [h.id for h in kept] == ["a"]
    assert everything[1].reason == "below threshold"


def test_fallback_names_prefer_usable_candidates() -> None:
    _, everything = _rank(
        [Candidate("a", {}, dense=0.1), Candidate("b", {}, dense=0.05, status="unhealthy")]
    )
    assert fallback_names(everything, ["a", "b", "c"], 5) == ["a", "c"]


def test_a_query_word_naming_the_plugin_earns_the_name_bonus() -> None:
    from homeclaw_cli.core.retrieval import name_bonus

    assert name_bonus({"todo", "dentist"}, "todo-list", "To-do list", 0.05) == 0.05
    assert name_bonus({"docker", "logs"}, "docker", "Docker", 0.05) == 0.05
    assert name_bonus({"dentist"}, "todo-list", "To-do list", 0.05) == 0.0
    assert name_bonus({"list", "app"}, "todo-list", "To-do list app", 0.05) == 0.0


def test_cut_across_drops_hits_far_under_the_other_kinds_best() -> None:
    plugins = RetrievalResult("q", [hit("units", score=0.7), hit("files", score=0.41, rank=2)], [])
    plugins.candidates = list(plugins.hits)
    skills = RetrievalResult("q", [hit("disk-usage", "skill", 0.73)], [])
    cut = cut_across(plugins, skills, 0.15)
    assert [h.id for h in cut.hits] == ["units"]
    dropped = next(h for h in cut.candidates if h.id == "files")
    assert not dropped.kept and dropped.reason.endswith("more than 0.15 under the skill disk-usage")
    assert [h.id for h in plugins.hits] == ["units", "files"]  # the input is left as it was


def test_cut_across_keeps_everything_within_the_margin_or_without_a_rival() -> None:
    plugins = RetrievalResult("q", [hit("files", score=0.6)], [])
    skills = RetrievalResult("q", [hit("disk-usage", "skill", 0.73)], [])
    assert cut_across(plugins, skills, 0.15) is plugins
    assert cut_across(plugins, None, 0.15) is plugins
    assert cut_across(plugins, RetrievalResult("q", [], []), 0.15) is plugins


def test_a_word_of_several_ids_earns_no_name_bonus() -> None:
    from homeclaw_cli.core.retrieval import name_bonus, shared_name_words

    shared = shared_name_words(["weather", "weather-radar", "slack", "my-ip", "ip-lookup"])
    assert shared == {"weather", "ip"}
    assert name_bonus({"weather", "paris"}, "weather", "Weather", 0.05, shared) == 0.0
    assert name_bonus({"radar", "weather"}, "weather-radar", "Weather radar", 0.05, shared) == 0.05
    assert name_bonus({"slack"}, "slack", "Slack", 0.05, shared) == 0.05
