"""Keyword retrieval over the scanned registry and the eligible skills."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeclaw_cli.app.keyword_fallback import KeywordRetriever
from homeclaw_cli.catalog.registry import scan
from tests.fakes.index import PLUGINS, settings_for, write_plugin


def _retriever(tmp_path: Path, **kwargs: Any) -> KeywordRetriever:
    for pid, (name, desc) in PLUGINS.items():
        write_plugin(tmp_path / "data" / "plugins", pid, name, desc)
    registry = scan(settings_for(tmp_path, bundled=False))
    return KeywordRetriever(registry, **kwargs)


def test_plugins_rank_by_shared_words_with_their_manifests(tmp_path: Path) -> None:
    result = _retriever(tmp_path).search_plugins("post a message to the slack channel")
    assert result.ids == ["slack"]
    assert result.hits[0].kind == "plugin"
    assert result.hits[0].descriptor["id"] == "slack"
    assert result.candidates[-1].reason == "below threshold"
    assert "total" in result.timings


def test_limit_and_max_in_prompt_cap_the_hits(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, max_in_prompt=1)
    query = "weather timer alarm rain"
    assert len(retriever.search_plugins(query).hits) == 1
    assert len(retriever.search_plugins(query, limit=2).hits) == 2


def test_skills_come_from_the_documents_callback(tmp_path: Path) -> None:
    calls: list[int] = []

    def documents() -> dict[str, tuple[str, dict[str, Any]]]:
        calls.append(1)
        return {"haiku": ("Write a haiku poem.", {"name": "haiku"})}

    retriever = _retriever(tmp_path, skills=documents)
    result = retriever.search_skills("a haiku about autumn")
    assert [(h.id, h.kind, h.descriptor) for h in result.hits] == [
        ("haiku", "skill", {"name": "haiku"})
    ]
    retriever.search_skills("haiku")
    assert calls == [1]  # read once per retriever


def test_without_skills_the_skill_search_is_empty(tmp_path: Path) -> None:
    result = _retriever(tmp_path).search_skills("haiku")
    assert result.hits == [] and result.candidates == [] and not result.fallback
