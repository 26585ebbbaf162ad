"""Adding or dropping --plugins-dir re-embeds only what is new: vectors follow the text."""

from __future__ import annotations

import shutil
from typing import Any

from tests.fakes.index import write_plugin
from tests.json_output import payload


def test_adding_and_dropping_a_plugins_dir_embeds_only_new_text(
    cli: Any, index_env: dict[str, Any]
) -> None:
    models = index_env["models"]
    assert cli("sync").exit_code == 0
    extra = index_env["home"] / "dev-plugins"
    # the same weather plugin in a development folder (it now wins: source "path") and one new
    write_plugin(extra, "news", "News", "Today's headlines from the wire.")
    shutil.copytree(index_env["plugins"] / "weather", extra / "weather")
    models.reset()
    data = payload(cli("--plugins-dir", str(extra), "plugin", "sync", "--json"))
    assert data["kinds"]["plugins"]["added"] == ["news"]
    assert data["kinds"]["plugins"]["updated"] == ["weather"]  # its source changed, not its text
    assert [t for t in models.embedded if "\n" in t] == ["News\nToday's headlines from the wire."]
    models.reset()
    data = payload(cli("plugin", "sync", "--json"))
    assert data["kinds"]["plugins"]["removed"] == ["news"]
    assert data["kinds"]["plugins"]["updated"] == ["weather"]
    assert models.embedded == [] and not models.loaded
    hits = payload(cli("plugin", "search", "weather forecast rain", "--json"))
    assert hits["hits"][0]["id"] == "weather"
    assert hits["hits"][0]["descriptor"]["source"] == "user"
