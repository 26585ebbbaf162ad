from __future__ import annotations

import shutil
from typing import Any

import pytest

from homeclaw_cli.adapters.vector_store import SnapshotReader, VectorStore
from homeclaw_cli.app.retrieval import RetrievalService
from homeclaw_cli.app.sync import sync
from homeclaw_cli.core.keywords import search_words
from homeclaw_cli.core.retrieval import KEYWORD_SATURATION, final_score, keyword_saturation
from homeclaw_cli.errors import HomeclawError
from tests.fakes.index import settings_for, write_plugin


@pytest.fixture
def synced(index_env: dict[str, Any]) -> dict[str, Any]:
    sync(settings_for(index_env["home"]))
    return index_env


@pytest.mark.parametrize("method", ["dense", "fts", "hybrid"])
def test_each_method_finds_the_plugin(synced: dict[str, Any], method: str) -> None:
    service = RetrievalService(settings_for(synced["home"]), method=method)
    result = service.search_plugins("post a message in the slack channel")
    assert result.hits[0].id == "slack"
    assert result.hits[0].kind == "plugin"
    assert result.hits[0].descriptor["manifest"]["name"] == "Slack"
    assert not result.fallback
    assert result.method == method
    assert {"total"} <= set(result.timings)


def test_hybrid_reports_dense_and_keyword_scores(synced: dict[str, Any]) -> None:
    result = RetrievalService(settings_for(synced["home"])).search_plugins("slack")
    top = result.candidates[0]
    assert top.id == "slack" and top.dense_score is not None and top.keyword_score
    assert top.score > top.dense_score


def test_nothing_relevant_falls_back_to_a_list_of_names(synced: dict[str, Any]) -> None:
    settings = settings_for(synced["home"], **{"plugins.similarity_threshold": 0.9})
    result = RetrievalService(settings).search_plugins("tell me a joke")
    assert result.hits == []
    assert result.fallback
    assert result.fallback_names
    assert all(c.reason == "below threshold" for c in result.candidates)


def test_a_plugin_whose_folder_is_gone_is_skipped_and_deleted(synced: dict[str, Any]) -> None:
    settings = settings_for(synced["home"])
    shutil.rmtree(synced["plugins"] / "slack")
    result = RetrievalService(settings).search_plugins("post a message in the slack channel")
    assert "slack" not in result.ids
    stale = next(c for c in result.candidates if c.id == "slack")
    assert stale.reason.startswith("stale")
    assert "slack" not in VectorStore(settings.index_uri).meta("homeclaw_plugins")


def test_ineligible_skills_are_never_kept(synced: dict[str, Any], monkeypatch: Any) -> None:
    settings = settings_for(synced["home"])
    store = VectorStore(settings.index_uri)
    handle = store.db.open_table("homeclaw_skills")
    handle.update(where="id = 'haiku'", values={"status": "ineligible", "status_detail": "no"})
    store.refresh_snapshot("homeclaw_skills")
    result = RetrievalService(settings).search_skills("write a haiku poem")
    assert "haiku" not in result.ids
    assert next(c for c in result.candidates if c.id == "haiku").reason == "ineligible: no"


def test_test_dir_skills_are_found_by_their_test_id(synced: dict[str, Any]) -> None:
    result = RetrievalService(settings_for(synced["home"])).search_skills("draft an email reply")
    assert result.hits[0].id == "test__draft"
    assert result.hits[0].kind == "skill"


def test_unhealthy_plugins_are_dropped(synced: dict[str, Any]) -> None:
    from homeclaw_cli.state.health import HealthStore

    settings = settings_for(synced["home"])
    HealthStore(settings.state_dir).set("slack", False, "connection refused")
    HealthStore(settings.state_dir).set("weather", True, "ok")
    result = RetrievalService(settings).search_plugins("slack message")
    assert "slack" not in result.ids
    slack = next(c for c in result.candidates if c.id == "slack")
    assert slack.reason == "unhealthy: connection refused"
    HealthStore(settings.state_dir).set("slack", True, "back")
    assert RetrievalService(settings).search_plugins("slack message").ids[0] == "slack"


def test_vector_search_off_returns_the_first_n(synced: dict[str, Any]) -> None:
    settings = settings_for(
        synced["home"], **{"plugins.use_vector_search": False, "plugins.max_retrieved": 2}
    )
    synced["models"].reset()
    result = RetrievalService(settings).search_plugins("anything")
    assert result.ids == ["calculator", "slack"]
    assert not synced["models"].loaded  # the query is never embedded


def test_limit_caps_the_hits(synced: dict[str, Any]) -> None:
    settings = settings_for(synced["home"], **{"plugins.similarity_threshold": -1.0})
    result = RetrievalService(settings).search_plugins("weather slack timer math", limit=2)
    assert len(result.hits) == 2
    assert [c.reason for c in result.candidates].count("top-k cut") >= 1


def test_snapshot_and_lancedb_give_the_same_answer(synced: dict[str, Any]) -> None:
    settings = settings_for(synced["home"])
    service = RetrievalService(settings)
    assert isinstance(service.reader("homeclaw_plugins"), SnapshotReader)
    fast = service.search_plugins("post a message in the slack channel")
    slow_settings = settings_for(synced["home"], **{"index.snapshots": False})
    slow_service = RetrievalService(slow_settings)
    assert isinstance(slow_service.reader("homeclaw_plugins"), VectorStore)
    slow = slow_service.search_plugins("post a message in the slack channel")
    assert fast.ids == slow.ids
    fast_dense = {c.id: c.dense_score for c in fast.candidates}
    slow_dense = {c.id: c.dense_score for c in slow.candidates}
    assert fast_dense == pytest.approx(slow_dense, abs=1e-5)


def test_missing_snapshot_falls_back_to_lancedb_and_sync_rebuilds_it(
    synced: dict[str, Any],
) -> None:
    settings = settings_for(synced["home"])
    store = VectorStore(settings.index_uri)
    assert store.snapshot_root is not None
    (store.snapshot_root / "homeclaw_plugins" / "current").unlink()  # as after a crash
    service = RetrievalService(settings)
    assert isinstance(service.reader("homeclaw_plugins"), VectorStore)
    assert service.search_plugins("slack message").ids[0] == "slack"
    check = sync(settings, check=True)
    assert check.stale
    assert check.kinds["plugins"].rebuilt == "query snapshot missing"
    synced["models"].reset()
    sync(settings, kinds=["plugins"])
    assert not synced["models"].loaded
    assert isinstance(RetrievalService(settings).reader("homeclaw_plugins"), SnapshotReader)


def test_model_mismatch_is_a_clear_error(synced: dict[str, Any]) -> None:
    settings = settings_for(synced["home"], **{"embedding.model": "another-model"})
    with pytest.raises(HomeclawError) as info:
        RetrievalService(settings).search_plugins("slack")
    assert "run `homeclaw sync`" in (info.value.hint or "")


def test_fts_without_a_match_still_offers_names(synced: dict[str, Any]) -> None:
    result = RetrievalService(settings_for(synced["home"]), method="fts").search_plugins("zzzz")
    assert result.fallback and result.hits == [] and result.candidates == []
    assert result.fallback_names == ["calculator", "slack", "timer", "weather"]


def test_a_reader_survives_a_sync_that_replaces_its_snapshot(synced: dict[str, Any]) -> None:
    settings = settings_for(synced["home"])
    service = RetrievalService(settings)
    reader = service.reader("homeclaw_plugins")
    assert isinstance(reader, SnapshotReader)
    old_folder = reader.snapshot.folder
    VectorStore(settings.index_uri).refresh_snapshot("homeclaw_plugins")  # as another sync would
    assert not old_folder.exists()
    assert reader.keyword("homeclaw_plugins", "slack", 3)[0].id == "slack"
    assert reader.all_rows("homeclaw_plugins")[0]["descriptor"].startswith("{")
    assert service.search_plugins("slack channel message").ids[0] == "slack"
    assert service.reader("homeclaw_plugins") is not reader  # the new generation is picked up


def test_a_damaged_snapshot_falls_back_to_lancedb(synced: dict[str, Any], cli: Any) -> None:
    settings = settings_for(synced["home"])
    root = VectorStore(settings.index_uri).snapshot_root
    assert root is not None
    current = (root / "homeclaw_plugins" / "current").read_text().strip()
    (root / "homeclaw_plugins" / current / "descriptors.jsonl").write_text("garbage\n")
    assert isinstance(RetrievalService(settings).reader("homeclaw_plugins"), VectorStore)
    result = cli("plugin", "search", "slack message")
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\t")[0] == "slack"


def _sync_units(index_env: dict[str, Any], snapshots: bool, examples: list[str]) -> None:
    write_plugin(
        index_env["plugins"], "units", "Units", "Length and mass conversion.", examples=examples
    )
    sync(settings_for(index_env["home"], **{"index.snapshots": snapshots}))


def _candidates(index_env: dict[str, Any], snapshots: bool, query: str, **flags: Any) -> Any:
    settings = settings_for(index_env["home"], **{"index.snapshots": snapshots, **flags})
    return RetrievalService(settings).search_plugins(query).candidates


@pytest.mark.parametrize("snapshots", [True, False])
def test_example_vectors_lift_a_plugin_on_both_read_paths(
    index_env: dict[str, Any], snapshots: bool
) -> None:
    _sync_units(index_env, snapshots, ["how many inches is a foot"])
    query = "how many inches is a yard"
    fused = _candidates(index_env, snapshots, query)
    plain = _candidates(index_env, snapshots, query, **{"plugins.fusion": "none"})
    hit = next(c for c in fused if c.id == "units")
    before = next(c for c in plain if c.id == "units")
    assert hit.facet_score is not None and hit.dense_score is not None
    assert hit.dense_score > before.dense_score
    assert hit.matched == "how many inches is a foot"
    assert fused[0].id == "units"


@pytest.mark.parametrize("snapshots", [True, False])
def test_the_mean_of_the_examples_shares_the_facet_side_on_both_read_paths(
    index_env: dict[str, Any], snapshots: bool
) -> None:
    _sync_units(index_env, snapshots, ["how many inches is a foot", "convert 5 kg to pounds"])

    def dense(share: float) -> float:
        flags = {"plugins.fusion_centroid": share}
        hit = next(
            c for c in _candidates(index_env, snapshots, "how many inches is a yard", **flags)
        )
        assert hit.id == "units" and hit.dense_score is not None
        return hit.dense_score

    best_only, mean_only, both = dense(0.0), dense(1.0), dense(0.5)
    assert best_only > mean_only  # the request is worded like one example, not like both
    assert both == pytest.approx((best_only + mean_only) / 2, abs=1e-5)


def _name_bonus_of(hit: Any, saturation: float = KEYWORD_SATURATION) -> float:
    dense, keyword = hit.dense_score, hit.keyword_score
    return round(hit.score - final_score("hybrid", dense, keyword, saturation), 4)


def test_a_long_request_scales_its_keyword_bonus(synced: dict[str, Any]) -> None:
    request = (
        "please post a short message in the slack channel telling the whole team about the release"
    )
    words = len(search_words(request))
    assert words > 8  # past the fixed saturation
    slack = RetrievalService(settings_for(synced["home"])).search_plugins(request).candidates[0]
    assert slack.id == "slack" and slack.keyword_score
    assert _name_bonus_of(slack, keyword_saturation(words)) == 0.05
    assert _name_bonus_of(slack) != 0.05  # the fixed saturation would have scored it higher


def test_a_word_in_several_ids_names_none_of_them(index_env: dict[str, Any]) -> None:
    write_plugin(index_env["plugins"], "weather-radar", "Weather radar", "Rain radar images.")
    sync(settings_for(index_env["home"]))
    service = RetrievalService(settings_for(index_env["home"]))
    found = {h.id: h for h in service.search_plugins("weather in paris").candidates}
    assert _name_bonus_of(found["weather"]) == 0.0
    assert _name_bonus_of(found["weather-radar"]) == 0.0
    slack = service.search_plugins("slack the team").candidates[0]
    assert slack.id == "slack" and _name_bonus_of(slack) == 0.05


def test_the_name_bonus_follows_a_sync(synced: dict[str, Any]) -> None:
    service = RetrievalService(settings_for(synced["home"]))
    before = {h.id: h for h in service.search_plugins("weather in paris").candidates}
    assert _name_bonus_of(before["weather"]) == 0.05
    write_plugin(synced["plugins"], "weather-radar", "Weather radar", "Rain radar images.")
    sync(settings_for(synced["home"]))
    after = {h.id: h for h in service.search_plugins("weather in paris").candidates}
    assert _name_bonus_of(after["weather"]) == 0.0
