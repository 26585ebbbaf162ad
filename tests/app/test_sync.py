from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from homeclaw_cli.adapters.vector_store import VectorStore
from homeclaw_cli.app.sync import index_lock_path, sync
from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.errors import LockedError
from homeclaw_cli.fsutil import file_lock
from tests.fakes.index import settings_for, write_plugin, write_skill


def skill_folder(settings: Any, skill_id: str) -> Any:
    return scan_skills(settings).skills[skill_id].folder


def _meta(settings: Any, table: str) -> dict[str, Any]:
    return VectorStore(settings.index_uri).meta(table)


def test_first_sync_indexes_plugins_and_skills(index_env: dict[str, Any]) -> None:
    settings = settings_for(index_env["home"])
    report = sync(settings)
    assert sorted(report.added) == sorted(
        [
            "plugin:calculator",
            "plugin:slack",
            "plugin:timer",
            "plugin:weather",
            "skill:haiku",
            "skill:summarize",
            "skill:test__draft",
        ]
    )
    plugins = _meta(settings, "homeclaw_plugins")
    assert set(plugins) == {"calculator", "slack", "timer", "weather"}
    assert {m.model for m in plugins.values()} == {"all-MiniLM-L6-v2"}
    assert {m.dim for m in plugins.values()} == {64}
    rows = VectorStore(settings.index_uri).all_rows("homeclaw_plugins")
    weather = next(r for r in rows if r["id"] == "weather")
    assert "Current weather" in weather["text"]
    assert weather["content_hash"] and weather["updated_at"] and weather["status"] == "ok"
    assert '"manifest"' in weather["descriptor"]


def test_incremental_sync_embeds_nothing_and_never_loads_the_model(
    index_env: dict[str, Any],
) -> None:
    (index_env["home"] / "config.yaml").write_text("bundled: false\n", encoding="utf-8")
    settings = settings_for(index_env["home"])
    sync(settings)
    models = index_env["models"]
    models.reset()
    report = sync(settings)
    assert (report.added, report.updated, report.removed) == ([], [], [])
    assert report.unchanged == 6
    assert not report.model_loaded
    assert not models.loaded


def test_a_new_embedding_recipe_re_embeds_every_row_on_the_next_sync(
    index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout whose rows embed differently (same version number) does not keep the old
    vectors behind the no-change shortcut."""
    from homeclaw_cli.adapters import index_row
    from homeclaw_cli.app import scan_fingerprint
    from homeclaw_cli.app import sync as sync_module

    settings = settings_for(index_env["home"])
    sync(settings)
    index_env["models"].reset()
    for module in (index_row, scan_fingerprint, sync_module):
        monkeypatch.setattr(module, "RECIPE", "next")
    report = sync(settings)
    assert len(report.updated) == 7 and report.model_loaded  # 4 plugins, 3 skills
    assert "embeds rows differently" in report.kinds["plugins"].rebuilt
    index_env["models"].reset()
    sync(settings)  # and only once: what is embedded now is the test skill, as every time
    assert index_env["models"].embedded == ["draft\nDraft an email reply politely."]


def test_changed_and_removed_items_are_updated_and_deleted(index_env: dict[str, Any]) -> None:
    settings = settings_for(index_env["home"])
    sync(settings)
    index_env["models"].reset()
    write_plugin(index_env["plugins"], "slack", "Slack", "Send Slack DMs and channel posts.")
    shutil.rmtree(index_env["plugins"] / "timer")
    write_plugin(index_env["plugins"], "news", "News", "Top headlines today.")
    report = sync(settings, kinds=["plugins"])
    assert report.updated == ["plugin:slack"]
    assert report.removed == ["plugin:timer"]
    assert report.added == ["plugin:news"]
    # "News" is no word of its description: the name is checked against it before the row
    # is embedded (Slack's is in its description, so it needs no check)
    assert index_env["models"].embedded == [
        "News",
        "Top headlines today.",
        "News\nTop headlines today.",
        "Slack\nSend Slack DMs and channel posts.",
    ]
    assert set(_meta(settings, "homeclaw_plugins")) == {"calculator", "slack", "weather", "news"}


def test_full_sync_re_embeds_everything(index_env: dict[str, Any]) -> None:
    settings = settings_for(index_env["home"])
    sync(settings)
    index_env["models"].reset()
    report = sync(settings, kinds=["plugins"], full=True)
    assert len(report.updated) == 4
    # the four rows, and Calculator's name and description (its name is not in it)
    assert len(index_env["models"].embedded) == 6


def test_test_dir_is_re_embedded_every_time_and_stale_test_ids_removed(
    index_env: dict[str, Any],
) -> None:
    settings = settings_for(index_env["home"])
    sync(settings)
    index_env["models"].reset()
    report = sync(settings, kinds=["skills"])
    assert report.unchanged == 3
    assert index_env["models"].embedded == ["draft\nDraft an email reply politely."]
    write_skill(index_env["test_dir"], "greet", "greet", "Greet a new colleague.")
    shutil.rmtree(index_env["test_dir"] / "draft")
    report = sync(settings, kinds=["skills"])
    assert report.added == ["skill:test__greet"]
    assert report.removed == ["skill:test__draft"]
    assert set(_meta(settings, "homeclaw_skills")) == {"haiku", "summarize", "test__greet"}


def test_model_change_rebuilds_the_table_with_the_new_dimension(
    index_env: dict[str, Any],
) -> None:
    index_env["models"].dims["other-model"] = 32
    settings = settings_for(index_env["home"])
    sync(settings)
    other = settings_for(index_env["home"], **{"embedding.model": "other-model"})
    report = sync(other, kinds=["plugins"])
    assert report.kinds["plugins"].rebuilt is not None
    assert "other-model" in (report.kinds["plugins"].rebuilt or "")
    meta = _meta(other, "homeclaw_plugins")
    assert {m.dim for m in meta.values()} == {32}
    assert {m.model for m in meta.values()} == {"other-model"}
    from homeclaw_cli.app.retrieval import RetrievalService

    result = RetrievalService(other).search_plugins("weather forecast rain")
    assert result.hits[0].id == "weather"


def test_check_reports_stale_without_writing(index_env: dict[str, Any]) -> None:
    settings = settings_for(index_env["home"])
    report = sync(settings, check=True)
    assert report.stale and len(report.added) == 7
    assert not VectorStore(settings.index_uri).exists("homeclaw_plugins")
    assert not index_env["models"].loaded
    sync(settings)
    assert not sync(settings, check=True).stale
    write_plugin(index_env["plugins"], "news", "News", "Top headlines today.")
    report = sync(settings, check=True)
    assert report.stale and report.added == ["plugin:news"]
    assert "news" not in _meta(settings, "homeclaw_plugins")


def test_sync_waits_for_the_lock_and_gives_up_with_a_clear_error(
    index_env: dict[str, Any],
) -> None:
    settings = settings_for(index_env["home"])
    with file_lock(index_lock_path(settings), what="the index"), pytest.raises(LockedError) as info:
        sync(settings, lock_timeout=0.1)
    assert "another homeclaw process" in info.value.message
    assert not VectorStore(settings.index_uri).exists("homeclaw_plugins")
    assert sync(settings).added


def test_broken_plugin_is_reported_and_the_others_indexed(index_env: dict[str, Any]) -> None:
    bad = index_env["plugins"] / "broken"
    bad.mkdir()
    (bad / "plugin.yaml").write_text("id: broken\nname: [unclosed\n", encoding="utf-8")
    settings = settings_for(index_env["home"])
    report = sync(settings, kinds=["plugins"])
    assert len(report.added) == 4
    assert any("broken" in e for e in report.errors)


def test_ineligible_skill_is_indexed_with_its_status(index_env: dict[str, Any]) -> None:
    settings = settings_for(index_env["home"])
    haiku = skill_folder(settings, "haiku")
    text = (haiku / "SKILL.md").read_text(encoding="utf-8")
    (haiku / "SKILL.md").write_text(
        text.replace(
            "---\n\n",
            'metadata: {"openclaw": {"requires": {"bins": ["no-such-poet-xyz"]}}}\n---\n\n',
            1,
        ),
        encoding="utf-8",
    )
    sync(settings, kinds=["skills"])
    assert _meta(settings, "homeclaw_skills")["haiku"].status == "ineligible"


def test_no_change_sync_in_a_new_process_imports_neither_lancedb_nor_torch(
    index_env: dict[str, Any],
) -> None:
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    (index_env["home"] / "config.yaml").write_text("bundled: false\n", encoding="utf-8")
    sync(settings_for(index_env["home"]))
    code = (
        "import sys, json\n"
        "from homeclaw_cli.settings import load_settings\n"
        "from homeclaw_cli.app.sync import sync\n"
        "r = sync(load_settings())\n"
        "print(json.dumps([r.unchanged, len(r.added), r.model_loaded,"
        " 'lancedb' in sys.modules, 'torch' in sys.modules]))\n"
    )
    env = {**os.environ, "HOMECLAW_HOME": str(index_env["home"]), "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [6, 0, False, False, False]


def test_fingerprint_notices_an_edit_and_a_broken_plugin_stays_reported(
    index_env: dict[str, Any],
) -> None:
    import os

    settings = settings_for(index_env["home"])
    bad = index_env["plugins"] / "broken"
    bad.mkdir()
    (bad / "plugin.yaml").write_text("id: broken\nname: [unclosed\n", encoding="utf-8")
    sync(settings, kinds=["plugins"])
    again = sync(settings, kinds=["plugins"])
    assert again.unchanged == 4 and any("broken" in e for e in again.errors)
    manifest = index_env["plugins"] / "timer" / "plugin.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("countdown", "Countdown"), encoding="utf-8")
    stat = manifest.stat()
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert sync(settings, kinds=["plugins"]).updated == ["plugin:timer"]
    # touched but identical: the slow path runs and finds nothing to re-embed
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000))
    index_env["models"].reset()
    report = sync(settings, kinds=["plugins"])
    assert report.unchanged == 4 and not report.updated and not index_env["models"].loaded


def test_removing_every_plugin_leaves_an_empty_searchable_index(
    index_env: dict[str, Any],
) -> None:
    from homeclaw_cli.app.retrieval import RetrievalService

    settings = settings_for(index_env["home"])
    sync(settings)
    shutil.rmtree(index_env["plugins"])
    report = sync(settings, kinds=["plugins"])
    assert len(report.removed) == 4
    assert _meta(settings, "homeclaw_plugins") == {}
    result = RetrievalService(settings).search_plugins("weather")
    assert result.hits == [] and result.fallback and result.fallback_names == []
    assert not sync(settings, check=True).stale


class _Generated:
    """An ExampleSource as `sync --expand` provides one: a cache, here a dict."""

    def __init__(self) -> None:
        self.by_id: dict[str, list[Any]] = {}

    def examples_for(self, kind: str, row: Any) -> list[Any]:
        return list(self.by_id.get(row.id, []))

    def fingerprint(self) -> str:
        return str(sorted(self.by_id))


def test_generated_examples_are_attached_and_only_their_row_is_re_embedded(
    index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.adapters.vector_store import row_examples
    from homeclaw_cli.app import sync as sync_module
    from homeclaw_cli.core.examples import Example

    write_plugin(
        index_env["plugins"], "units", "Units", "Convert units.", examples=["5 km in miles"]
    )
    (index_env["home"] / "config.yaml").write_text("bundled: false\n", encoding="utf-8")
    generated = _Generated()
    monkeypatch.setattr(sync_module, "example_source", lambda context: generated)
    settings = settings_for(index_env["home"])
    sync(settings)
    generated.by_id["units"] = [Example("what is 3 feet in cm"), Example("5 KM in miles")]
    report = sync(settings)
    assert report.updated == ["plugin:units"] and report.unchanged == 6
    rows = {r["id"]: r for r in VectorStore(settings.index_uri).all_rows("homeclaw_plugins")}
    assert [(e.text, e.source) for e in row_examples(rows["units"])] == [
        ("5 km in miles", "author"),
        ("what is 3 feet in cm", "generated"),
    ]
    assert "3 feet in cm" in rows["units"]["search_text"]
    again = sync(settings)
    assert again.updated == [] and not again.model_loaded


def test_an_incremental_sync_embeds_with_the_onnx_twin_and_a_rebuild_with_the_reference(
    index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.adapters import embedder
    from tests.fakes.embedder import FakeEmbedder

    settings = settings_for(index_env["home"])
    sync(settings, kinds=["plugins"])
    twin = FakeEmbedder()
    monkeypatch.setattr(embedder, "load_onnx", lambda models_dir, model_name: twin)
    index_env["models"].reset()
    write_plugin(index_env["plugins"], "clock", "Clock", "Tell the time in a city.")
    report = sync(settings, kinds=["plugins"])
    assert report.added == ["plugin:clock"] and report.embedder == "onnx"
    assert twin.calls[-1].startswith("Clock") and not index_env["models"].loaded
    full = sync(settings, kinds=["plugins"], full=True)
    assert full.embedder == "reference" and len(index_env["models"].embedded) == 5 + 2 * 2


def test_text_facets_embed_the_short_and_the_long_description_alone(
    index_env: dict[str, Any],
) -> None:
    """plugins.text_facets: `name: description` and description_long become facets of their
    own; switching it re-embeds every plugin once, and a search scores the facets."""
    from homeclaw_cli.adapters.facets import TEXT, Facet
    from homeclaw_cli.app.retrieval import RetrievalService

    write_plugin(
        index_env["plugins"],
        "tides",
        "Tides",
        "High and low tides: their times.",
        description_long="Reads the harbour office's tables for any port on the coast.",
    )
    (index_env["home"] / "config.yaml").write_text("bundled: false\n", encoding="utf-8")
    sync(settings_for(index_env["home"]))
    on = settings_for(index_env["home"], **{"plugins.text_facets": True})
    report = sync(on)
    plugins = ("calculator", "slack", "tides", "timer", "weather")
    assert report.updated == [f"plugin:{p}" for p in plugins]  # every plugin, no skill
    rows = {r["id"]: r for r in VectorStore(on.index_uri).all_rows("homeclaw_plugins")}
    facets = [Facet.from_json(f) for f in json.loads(rows["tides"]["facets"])]
    assert [(f.text, f.kind) for f in facets] == [
        ("Tides: High and low tides: their times.", TEXT),
        ("Reads the harbour office's tables for any port on the coast.", TEXT),
    ]
    hit = RetrievalService(on).search_plugins("harbour office tables").hits[0]
    assert hit.id == "tides" and hit.facet_score is not None
