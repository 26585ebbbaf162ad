from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.adapters.vector_store import VectorStore


def _ids(store: VectorStore) -> list[str]:
    return sorted(store.ids("t"))


def _store_with_copies(tmp_path: Path) -> VectorStore:
    store = VectorStore(str(tmp_path / "index"), snapshots=False)
    table = store.db.create_table("t", data=[{"id": f"p{i}"} for i in range(5)])
    table.add([{"id": f"p{i}"} for i in range(3)])  # a second machine's copies of three ids
    return store


def test_each_id_is_kept_once(tmp_path: Path) -> None:
    store = _store_with_copies(tmp_path)
    store.drop_duplicates("t")
    assert _ids(store) == ["p0", "p1", "p2", "p3", "p4"]


def test_a_compaction_between_read_and_delete_does_not_leave_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another machine compacts the table after this one read the row ids: the delete names
    ids the compaction renumbered and removes nothing, so the table is read again."""
    store = _store_with_copies(tmp_path)
    opened = store._require
    compacted: list[bool] = []

    class CompactedBeforeDelete:
        def __init__(self, handle: Any) -> None:
            self._handle = handle

        def __getattr__(self, name: str) -> Any:
            return getattr(self._handle, name)

        def delete(self, where: str) -> None:
            if not compacted:
                other = VectorStore(store.uri, snapshots=False)
                other.db.open_table("t").optimize(cleanup_older_than=timedelta(days=1))
                compacted.append(True)
            self._handle.delete(where)

    monkeypatch.setattr(store, "_require", lambda table: CompactedBeforeDelete(opened(table)))
    store.drop_duplicates("t")
    assert compacted
    assert _ids(store) == ["p0", "p1", "p2", "p3", "p4"]
