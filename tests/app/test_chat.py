"""ChatSession wiring: degraded retrieval, warnings."""

from __future__ import annotations


def test_broken_index_degrades_to_keyword_retrieval() -> None:
    from homeclaw_cli.app.chat import ResilientRetriever
    from homeclaw_cli.errors import UnavailableError
    from tests.fakes.agent_fakes import FakeRetriever

    class Broken:
        def search_plugins(self, query: str, *, limit: int | None = None) -> object:
            raise UnavailableError("the index is locked")

        search_skills = search_plugins

    retriever = ResilientRetriever(Broken(), FakeRetriever({"tide": ["tides"]}))  # type: ignore[arg-type]
    assert [h.id for h in retriever.search_plugins("tide times").hits] == ["tides"]
    assert retriever.warnings == ["retrieval fell back to keyword matching: the index is locked"]
    retriever.search_plugins("tide")
    assert len(retriever.warnings) == 1  # the broken index is not retried every turn
