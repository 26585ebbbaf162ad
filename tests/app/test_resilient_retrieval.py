"""The chat's retrieval: the index until it fails, then keyword matching, with one warning."""

from __future__ import annotations

from typing import NoReturn

from homeclaw_cli.app.resilient_retrieval import ResilientRetriever
from homeclaw_cli.errors import UnavailableError
from tests.fakes.agent_fakes import FakeRetriever


class Broken:
    def __init__(self) -> None:
        self.calls = 0

    def search_plugins(self, query: str, *, limit: int | None = None) -> NoReturn:
        self.calls += 1
        raise UnavailableError("the index is locked")

    search_skills = search_plugins


def test_broken_index_degrades_to_keyword_retrieval() -> None:
    broken = Broken()
    retriever = ResilientRetriever(broken, FakeRetriever({"tide": ["tides"]}))
    assert [h.id for h in retriever.search_plugins("tide times").hits] == ["tides"]
    assert retriever.warnings == ["retrieval fell back to keyword matching: the index is locked"]
    retriever.search_plugins("tide")
    retriever.search_skills("tide")
    assert len(retriever.warnings) == 1  # the broken index is not retried every turn
    assert broken.calls == 1


def test_a_working_index_answers_and_skills_go_to_the_same_retriever() -> None:
    skills = FakeRetriever({}, {"greet": []})
    retriever = ResilientRetriever(FakeRetriever({"tide": ["tides"]}), skills)
    assert retriever.search_plugins("tide").ids == ["tides"]
    assert retriever.search_skills("greet").hits == []
    assert retriever.warnings == []
    assert skills.queries == []  # the fallback was never asked


def test_an_unexpected_error_is_named_in_the_warning() -> None:
    class Crashing:
        def search_plugins(self, query: str, *, limit: int | None = None) -> NoReturn:
            raise OSError("disk gone")

        search_skills = search_plugins

    retriever = ResilientRetriever(Crashing(), FakeRetriever({}))
    assert retriever.search_skills("anything").hits == []
    assert retriever.warnings == ["retrieval fell back to keyword matching: OSError('disk gone')"]
