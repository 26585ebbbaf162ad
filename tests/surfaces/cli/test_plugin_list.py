from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.catalog.test_registry import make
from tests.json_output import payload


def test_list_shows_bundled_plugins_as_json(cli: Any) -> None:
    result = cli("plugin", "list", "--json")
    assert result.exit_code == 0
    rows = {row["id"]: row for row in payload(result)}
    assert {"weather", "news", "units", "timezones", "calculator", "notes"} <= set(rows)
    assert rows["weather"]["source"] == "bundled" and rows["weather"]["tokens"] > 0


def test_list_plain_output_is_tab_separated(cli: Any) -> None:
    lines = cli("plugin", "list").stdout.splitlines()
    assert any(line.split("\t")[0] == "calculator" for line in lines)


def test_list_shows_broken_and_shadowed(cli: Any, hc_home: Path) -> None:
    user = hc_home / "data" / "plugins"
    make(user, "calc", "calculator", "Mine")
    (user / "bad").mkdir()
    (user / "bad" / "plugin.yaml").write_text("id: Bad!\nname: x\ndescription: y\n")
    rows = payload(cli("plugin", "list", "--all", "--json"))
    by_status = {(r["id"], r["status"]) for r in rows}
    assert ("calculator", "ok") in by_status and ("calculator", "shadowed") in by_status
    assert ("bad", "broken") in by_status
    result = cli("plugin", "list")
    assert "bad" in result.stderr


def test_no_bundled_env(cli: Any) -> None:
    result = cli("plugin", "list", "--json", env={"HOMECLAW_NO_BUNDLED": "1"})
    assert payload(result) == []


def test_show_prints_capabilities_and_tool_schema(cli: Any) -> None:
    result = cli("plugin", "show", "weather", "--json")
    data = payload(result)
    tool = data["tools"][0]["function"]
    assert tool["name"] == "weather__fetch_weather"
    assert tool["parameters"]["required"] == ["city"]
    text = cli("plugin", "show", "units").stdout
    assert "convert" in text and "from_unit (string, required)" in text


def test_show_unknown_plugin_suggests(cli: Any) -> None:
    result = cli("plugin", "show", "wether")
    assert result.exit_code == 4
    assert "did you mean `weather`?" in result.stderr


def test_plugins_dir_flag(cli: Any, tmp_path: Path) -> None:
    make(tmp_path / "mine", "x", "xplug")
    rows = payload(cli("--plugins-dir", str(tmp_path / "mine"), "plugin", "list", "--json"))
    assert rows[0]["id"] == "xplug" or "xplug" in {r["id"] for r in rows}


def test_show_and_validate_print_brackets_in_names_verbatim(cli: Any, tmp_path: Path) -> None:
    folder = make(tmp_path / "plugins", "beta", "beta", name="'Weather [beta] [/i]'")
    shown = cli("--plugins-dir", str(tmp_path / "plugins"), "plugin", "show", "beta")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[0].startswith("beta  Weather [beta] [/i]")
    checked = cli("plugin", "validate", str(folder))
    assert checked.exit_code == 0, checked.output


def test_missing_plugins_dir_or_config_folder_is_an_error(cli: Any, tmp_path: Path) -> None:
    typo = cli("--plugins-dir", str(tmp_path / "plugnis"), "plugin", "list")
    assert typo.exit_code == 4  # a missing path is "not found" everywhere
    assert "plugnis: no such file or folder" in typo.stderr and "Traceback" not in typo.output
    folder = cli("--config", str(tmp_path), "plugin", "list")
    assert folder.exit_code == 3 and "is a folder, not a file" in folder.stderr
