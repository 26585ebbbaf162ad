"""After install, remove and disable, the index follows (with the fake embedder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.index import write_plugin
from tests.json_output import payload


def search_ids(cli: Any, *words: str) -> list[str]:
    result = cli("plugin", "search", *words, "--json")
    assert result.exit_code == 0, result.output
    return [hit["id"] for hit in payload(result)["hits"]]


def test_install_disable_enable_remove_keep_the_index_in_step(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    assert cli("sync").exit_code == 0
    src = write_plugin(
        tmp_path / "src", "tides", "Tides", "Tide tables: high and low water times for a harbour."
    )
    installed = cli("plugin", "install", str(src))
    assert installed.exit_code == 0, installed.output
    assert "index updated: 1 added" in installed.stderr
    assert search_ids(cli, "tide", "tables", "harbour")[0] == "tides"
    assert cli("plugin", "disable", "tides").exit_code == 0
    assert "tides" not in search_ids(cli, "tide", "tables", "harbour")
    assert cli("plugin", "enable", "tides").exit_code == 0
    assert search_ids(cli, "tide", "tables", "harbour")[0] == "tides"
    assert cli("plugin", "remove", "tides", "--yes").exit_code == 0
    assert "tides" not in search_ids(cli, "tide", "tables", "harbour")
