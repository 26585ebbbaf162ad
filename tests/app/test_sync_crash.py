"""A sync killed with SIGKILL at any moment leaves only whole rows, and the next sync repairs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from homeclaw_cli.adapters.vector_store import VectorStore
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.index_rows import plugin_rows
from homeclaw_cli.app.retrieval import RetrievalService
from homeclaw_cli.app.sync import sync
from tests.conftest import REPO_ROOT
from tests.fakes.index import settings_for, write_plugin

SCRIPT = """
import sys
from tests.fakes.embedder import install_globally
from homeclaw_cli.settings import load_settings
from homeclaw_cli.app.sync import sync
import lancedb  # imported before "start", so the kill lands in the sync itself
install_globally()
print("start", flush=True)
sync(load_settings())
print("done", flush=True)
"""
COUNT = 300


def _write_plugins(root: Path, generation: int) -> dict[str, str]:
    """COUNT plugins; every generation changes the descriptions of half of them."""
    for i in range(COUNT):
        changed = generation if i % 2 == generation % 2 else 0
        write_plugin(root, f"tool-{i:03d}", f"Tool {i}", f"Does task {i} variant {changed} well.")
    return {f"tool-{i:03d}" for i in range(COUNT)}  # type: ignore[return-value]


def _run_sync(home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "HOMECLAW_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=home,
    )


def _check_rows_are_whole(settings: Any, valid_hashes: dict[str, set[str]]) -> int:
    rows = VectorStore(settings.index_uri).all_rows("homeclaw_plugins")
    store = VectorStore(settings.index_uri)
    stored = store.stored_embeddings("homeclaw_plugins", [r["id"] for r in rows])
    vectors = {item: embedding.vector for item, embedding in stored.items()}
    for row in rows:
        assert row["content_hash"] in valid_hashes[row["id"]], row["id"]
        descriptor = json.loads(row["descriptor"])
        assert descriptor["id"] == row["id"]
        assert len(vectors[row["id"]]) == row["dim"] == 64
        assert row["text"] and row["model"] == "all-MiniLM-L6-v2"
    return len(rows)


@pytest.mark.slow
def test_sync_killed_mid_way_never_leaves_half_written_rows(
    hc_home: Path, fake_models: Any
) -> None:
    (hc_home / "config.yaml").write_text(yaml.safe_dump({"bundled": False}), encoding="utf-8")
    plugins = hc_home / "data" / "plugins"
    settings = settings_for(hc_home)
    valid: dict[str, set[str]] = {}

    def remember() -> None:
        for row in plugin_rows(AppContext(settings))[0]:
            valid.setdefault(row.id, set()).add(row.content_hash)

    _write_plugins(plugins, 0)
    remember()
    proc = _run_sync(hc_home)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "start"
    started = time.monotonic()
    assert proc.communicate(timeout=120)[0].strip() == "done"
    duration = time.monotonic() - started

    kills = snapshots_seen = 0
    for generation, fraction in enumerate([0.2, 0.4, 0.6, 0.8, 0.9, 0.97], start=1):
        _write_plugins(plugins, generation)
        remember()
        proc = _run_sync(hc_home)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "start"  # imports done, sync under way
        time.sleep(duration * fraction)  # deliberately land at different points of the sync
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.communicate(timeout=60)
        # whatever the moment of death: every row is a whole row of one generation or another
        assert _check_rows_are_whole(settings, valid) > 0
        # a snapshot, when there is one, is exactly what LanceDB holds
        snapshot = VectorStore(settings.index_uri).snapshot("homeclaw_plugins")
        if snapshot is not None:
            snapshots_seen += 1
            lance_ids = set(VectorStore(settings.index_uri).meta("homeclaw_plugins"))
            assert set(snapshot.ids) == lance_ids
        results = RetrievalService(settings).search_plugins("does task 7 variant")
        assert results.candidates

    assert kills >= 1
    repaired = sync(settings)
    assert not repaired.errors
    assert not sync(settings, check=True).stale
    current = {row.id: row.content_hash for row in plugin_rows(AppContext(settings))[0]}
    stored = VectorStore(settings.index_uri).meta("homeclaw_plugins")
    assert {k: v.content_hash for k, v in stored.items()} == current
    assert not VectorStore(settings.index_uri).text_index_stale("homeclaw_plugins")
    assert VectorStore(settings.index_uri).snapshot("homeclaw_plugins") is not None
