"""The chat's retrieval: the index, degrading to keyword matching over the registry when it
fails (no index yet, index locked, embedding model missing), so the chat keeps working and
says so."""

from __future__ import annotations

from collections.abc import Callable

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.keyword_fallback import KeywordRetriever, SkillDocuments
from homeclaw_cli.catalog.registry import Registry
from homeclaw_cli.core.ports import Retriever
from homeclaw_cli.core.retrieval import RetrievalResult
from homeclaw_cli.errors import index_failure

Search = Callable[[Retriever], RetrievalResult]


class ResilientRetriever:
    """`primary` until it fails once, then `fallback` for the rest of the session."""

    def __init__(
        self, primary: Retriever | None, fallback: Retriever, *, index_uri: str = ""
    ) -> None:
        self.primary = primary
        self.index_uri = index_uri  # names the index in a LanceDB error
        self.fallback = fallback
        self.warnings: list[str] = []
        # When set, a warning goes here the moment it arises (before the turn's calls run)
        # instead of into `warnings`.
        self.on_warning: Callable[[str], None] | None = None

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        """The plugins for `query` from the index, or by keyword once the index failed."""
        return self._use(lambda retriever: retriever.search_plugins(query, limit=limit))

    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        """The skills for `query` from the index, or by keyword once the index failed."""
        return self._use(lambda retriever: retriever.search_skills(query, limit=limit))

    def _use(self, search: Search) -> RetrievalResult:
        if self.primary is not None:
            try:
                return search(self.primary)
            except Exception as exc:  # a broken index must not take the chat down
                known = index_failure(self.index_uri, exc)
                reason = repr(exc) if known is None else known.message
                warning = f"retrieval fell back to keyword matching: {reason}"
                if self.on_warning is not None:
                    self.on_warning(warning)
                else:
                    self.warnings.append(warning)
                self.primary = None
        return search(self.fallback)


def build_retriever(
    context: AppContext, registry: Registry, skills: SkillDocuments | None = None
) -> ResilientRetriever:
    """The context's index retrieval with the keyword fallback over `registry` and `skills`."""
    fallback = KeywordRetriever(
        registry, max_in_prompt=context.settings.plugins.max_in_prompt, skills=skills
    )
    return ResilientRetriever(context.retrieval, fallback, index_uri=context.settings.index_uri)
