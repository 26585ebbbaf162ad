"""A plugin named like a brand is embedded without its name, and is still found by it."""

from __future__ import annotations

import json
import shutil
from typing import Any

from homeclaw_cli.adapters.facets import NAME, Facet
from homeclaw_cli.adapters.vector_store import VectorStore
from tests.fakes.index import write_plugin
from tests.json_output import payload

HOMES = "Find homes for sale and apartments to rent near you."


def _search(cli: Any, query: str) -> list[str]:
    result = cli("plugin", "search", query, "--json")
    assert result.exit_code == 0, result.output
    return [hit["id"] for hit in payload(result)["hits"]]


def _facets(index_env: dict[str, Any], plugin_id: str) -> list[tuple[str, str]]:
    rows = VectorStore(str(index_env["home"] / "data" / "index")).all_rows("homeclaw_plugins")
    row = next(r for r in rows if r["id"] == plugin_id)
    return [(f.text, f.kind) for f in map(Facet.from_json, json.loads(row["facets"]))]


def test_a_brand_name_leaves_the_embedded_text_and_still_finds_its_plugin(
    cli: Any, index_env: dict[str, Any]
) -> None:
    write_plugin(index_env["plugins"], "zillow", "Zillow", HOMES)
    assert cli("sync").exit_code == 0
    models = index_env["models"]
    assert HOMES in models.embedded  # the row's text: the description alone
    assert not any(t.startswith("Zillow\n") for t in models.embedded)
    assert "Weather\nCurrent weather" in "\n".join(models.embedded)  # a descriptive name stays
    assert _facets(index_env, "zillow") == [("Zillow", NAME)]  # the name: a vector of its own
    assert _facets(index_env, "weather") == []
    assert _search(cli, "zillow")[:1] == ["zillow"]
    explained = payload(cli("plugin", "search", "zillow", "--explain", "--json"))["hits"][0]
    assert (explained["matched"], explained["matched_source"]) == ("Zillow", "name")
    shown = cli("plugin", "search", "zillow", "--explain")
    assert "name 'Zillow'" in shown.output
    assert _search(cli, "apartments to rent")[:1] == ["zillow"]

    # the same plugin from another folder keeps its vectors, name facet included
    extra = index_env["home"] / "dev-plugins"
    shutil.copytree(index_env["plugins"] / "zillow", extra / "zillow")
    models.reset()
    data = payload(cli("--plugins-dir", str(extra), "plugin", "sync", "--json"))
    assert data["kinds"]["plugins"]["updated"] == ["zillow"]
    assert models.embedded == [] and _facets(index_env, "zillow") == [("Zillow", NAME)]
