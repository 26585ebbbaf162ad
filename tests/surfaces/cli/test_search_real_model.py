"""End to end with the real model (slow): sync the eval plugins, search from a fresh process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.json_output import payload

PLUGINS = REPO_ROOT / "benchmarks" / "retrieval" / "plugins"


@pytest.mark.slow
def test_sync_then_search_and_eval_with_the_real_model(
    run_cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_PLUGINS_PATH": str(PLUGINS)}
    killed_export = hc_home / "data" / "models" / "all-minilm-l6-v2.tmp4194999"
    killed_export.mkdir(parents=True)  # what a sync killed while exporting leaves
    (killed_export / "model.onnx").write_bytes(b"partial")
    first = run_cli("sync", "--json", env=env, timeout=300)
    assert first.returncode == 0, first.stderr
    data = payload(first)
    assert data["added"] == 80 and data["model_loaded"] and not data["warnings"]
    assert (hc_home / "data" / "models" / "all-minilm-l6-v2" / "model.onnx").is_file()
    assert not killed_export.exists()

    again = payload(run_cli("sync", "--json", env=env))
    assert again["unchanged"] == 80 and not again["model_loaded"]
    assert data["embedder"] == "reference"
    extra = tmp_path / "extra"
    (extra / "echo").mkdir(parents=True)
    (extra / "echo" / "plugin.yaml").write_text(
        "id: echo\nname: Echo\ndescription: Echo text back.\ntype: subprocess\n"
        "config: {command: python3, args: [main.py]}\n",
        encoding="utf-8",
    )
    added = payload(run_cli("--plugins-dir", str(extra), "sync", "--json", env=env))
    # one new plugin: embedded by the exported ONNX twin, torch is never loaded
    assert added["added"] == 1 and added["embedder"] == "onnx"

    found = run_cli("plugin", "search", "will it rain in berlin tomorrow", "--json", env=env)
    assert found.returncode == 0, found.stderr
    hits = payload(found)["hits"]
    assert hits[0]["id"] == "weather-openmeteo"

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps(q)
            for q in [
                {"query": "post in the #general slack channel", "expected": ["slack"]},
                {"query": "docker ps", "expected": ["docker"]},
                {"query": "translate hello to german", "expected": ["translate"]},
            ]
        ),
        encoding="utf-8",
    )
    evaluated = run_cli("eval", "retrieval", str(queries), "--json", env=env)
    assert evaluated.returncode == 0, evaluated.stderr
    assert payload(evaluated)["overall"]["recall@3"] == 1.0

    # a plugin lifted over the threshold only by a common word or two is not offered
    weak = payload(
        run_cli(
            "plugin",
            "search",
            "tell the team in slak I'm out sick today",
            "--explain",
            "--json",
            env=env,
        )
    )
    lifted = [c for c in weak["candidates"] if "only a weak keyword match" in c["reason"]]
    assert lifted and all(not c["kept"] and c["score"] >= 0.2 for c in lifted)
    assert all(c["keyword_score"] < 3 for c in lifted)


@pytest.mark.slow
def test_int8_queries_sync_writes_the_copy_and_search_uses_it(run_cli: Any, hc_home: Path) -> None:
    env = {
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_PLUGINS_PATH": str(PLUGINS),
        "HOMECLAW_EMBEDDING__INT8_QUERIES": "true",
    }
    synced = run_cli("sync", "--json", env=env, timeout=300)
    assert synced.returncode == 0, synced.stderr
    assert not payload(synced)["warnings"]
    twin = hc_home / "data" / "models" / "all-minilm-l6-v2"
    assert (twin / "model.int8.onnx").is_file() and (twin / "model.onnx").is_file()
    (twin / "model.int8.onnx").unlink()
    again = payload(run_cli("sync", "--json", env=env))  # nothing changed: only the copy
    assert again["unchanged"] == 80 and not again["model_loaded"]
    assert (twin / "model.int8.onnx").is_file()
    found = run_cli("plugin", "search", "will it rain in berlin tomorrow", "--json", env=env)
    assert found.returncode == 0, found.stderr
    assert payload(found)["hits"][0]["id"] == "weather-openmeteo"


BUNDLED_SERVED = [
    ("how many km is 5 miles", ["units"]),
    ("how many feet in a mile", ["units"]),
    ("what time is it in tokyo", ["timezones", "mcp-time"]),
    ("what date is next friday", ["dates"]),
    ("add buy milk to my to-do list", ["todo"]),
    ("what is 17 times 23", ["calculator"]),
    ("will it rain in paris tomorrow", ["weather"]),
]
BUNDLED_UNSERVED = [
    "set an alarm for 6 am tomorrow",
    "when does my credit card expire",
    "convert 100 usd to euros",
    "reserve a table for two at 7 pm at olive garden",
]


@pytest.mark.slow
def test_the_bundled_plugins_not_for_lines_keep_what_they_serve(
    run_cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    """The bundled `not_for` lines drop requests no plugin serves and keep the ones a plugin
    does: a unit converter that named gas mileage lost "how many feet in a mile"."""
    synced = run_cli("sync", "--json", timeout=300)
    assert synced.returncode == 0, synced.stderr
    queries = tmp_path / "bundled.jsonl"
    lines = [{"query": q, "expected": e} for q, e in BUNDLED_SERVED]
    lines += [{"query": q, "expected": []} for q in BUNDLED_UNSERVED]
    queries.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    data = payload(run_cli("eval", "retrieval", str(queries), "--json"))
    assert data["kept_recall"] == 1.0, data["misses"]
    assert data["none_rejected"] == f"{len(BUNDLED_UNSERVED)}/{len(BUNDLED_UNSERVED)}"
