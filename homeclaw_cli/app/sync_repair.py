"""`sync --full` on a damaged local index: a table LanceDB cannot read is deleted and written
anew. It only holds derived data (the plugins and skills are the source of truth); the cache
of generated examples next to it (`<index>/examples`) is not touched."""

from __future__ import annotations

import shutil

from homeclaw_cli.adapters import query_cache
from homeclaw_cli.adapters.vector_store import VectorStore
from homeclaw_cli.errors import damaged_index


def drop_if_damaged(store: VectorStore, table: str) -> str | None:
    """Why `table` was damaged, after deleting its files; None when it reads (or is remote:
    another machine's rows are not this one's to delete)."""
    root = query_cache.cache_root(store.uri)
    if root is None or not store.may_exist(table):
        return None
    try:
        store.meta(table)  # from LanceDB itself, not the snapshot, which may outlive damage
    except (RuntimeError, OSError, ValueError) as exc:
        if damaged_index(store.uri, exc) is None:
            raise
        reason = str(exc).splitlines()[0].split(", /")[0]
    else:
        return None
    query_cache.invalidate(root, table)
    shutil.rmtree(root.parent / f"{table}.lance")
    return f"the table was damaged ({reason}) and is written anew"
