"""Chat tasks from a public set: one-need requests sampled, and the set's plugins made callable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from benchmarks.llm import public_tasks
from benchmarks.llm.stand_in import DEAD_URL, stand_in_plugins
from tests.json_output import payload


def write_set(root: Path) -> Path:
    """A converted set as benchmarks/public writes it: one http plugin at the dead address."""
    manifest = {
        "id": "get-weather",
        "name": "get_weather",
        "description": "Current weather for a city.",
        "type": "http",
        "config": {"base_url": DEAD_URL, "path": "/run"},
        "capabilities": [
            {
                "id": "get-weather",
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": [{"name": "city", "type": "string", "required": True}],
            }
        ],
    }
    folder = root / "plugins" / "get-weather"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    queries = [
        {"query": "weather in Lima?", "expected": ["get-weather"]},
        {"query": "weather in Oslo and 5 EUR in USD", "expected": ["get-weather", "fx"]},
        {"query": "tell me a joke", "expected": []},
        {"query": "is it raining in Pune", "expected": ["get-weather"]},
    ]
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    (root / "queries.jsonl").write_text(lines, encoding="utf-8")
    return root


def test_tasks_are_the_one_need_requests_in_set_order(tmp_path: Path) -> None:
    root = write_set(tmp_path / "weather-set")
    out = tmp_path / "tasks.yaml"

    assert public_tasks.main([str(root), "--count", "10", "--out", str(out)]) == 0

    tasks = yaml.safe_load(out.read_text(encoding="utf-8"))["tasks"]
    assert tasks == [
        {"id": "weather-set-0", "request": "weather in Lima?", "plugin": "get-weather"},
        {"id": "weather-set-3", "request": "is it raining in Pune", "plugin": "get-weather"},
    ]


def test_the_sample_is_fixed_by_its_seed() -> None:
    queries = [{"query": f"q{i}", "expected": [f"p{i}"]} for i in range(50)]

    first = public_tasks.sample_tasks(queries, 5, 7, "s")
    again = public_tasks.sample_tasks(queries, 5, 7, "s")
    other = public_tasks.sample_tasks(queries, 5, 8, "s")

    assert first == again
    assert first != other
    assert [t["id"] for t in first] == sorted((t["id"] for t in first), key=lambda x: int(x[2:]))


def test_a_stand_in_plugin_is_called_through_the_cli(tmp_path: Path, cli: Any) -> None:
    root = write_set(tmp_path / "weather-set")

    with stand_in_plugins(root / "plugins", tmp_path / "served") as served:
        result: Any = cli(
            "--plugins-dir", str(served), "plugin", "call", "get-weather", "get-weather",
            "-p", "city=Lima", "--json",
        )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert payload(result)["result"]["text"] == 'Done: get-weather with {"city": "Lima"}.'
    source = yaml.safe_load((root / "plugins/get-weather/plugin.yaml").read_text())
    assert source["config"]["base_url"] == DEAD_URL  # the set itself is left as it was
