"""Adding or dropping --plugins-dir re-embeds only what is new: vectors follow the text. A
plugin or skill folder named in the environment or the config that does not exist is exit 4."""

from __future__ import annotations

import shutil
from typing import Any

import yaml

from tests.fakes.index import write_plugin
from tests.json_output import envelope, payload


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


def test_a_missing_plugin_folder_from_env_or_config_is_exit_4_and_keeps_the_index(
    cli: Any, index_env: dict[str, Any]
) -> None:
    assert cli("sync").exit_code == 0
    home = index_env["home"]
    missing = home / "no-such-plugins"
    result = cli("sync", env={"HOMECLAW_PLUGINS_PATH": str(missing)})
    assert result.exit_code == 4, result.output
    assert f"plugin folder {missing} (from HOMECLAW_PLUGINS_PATH): no such" in result.stderr
    config = home / "config.yaml"
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    config.write_text(yaml.safe_dump({**settings, "plugins": {"dirs": [str(missing)]}}))
    result = cli("sync", "--json")
    assert result.exit_code == 4, result.output
    error = envelope(result)["error"]
    assert error["message"] == (
        f"plugin folder {missing} (from plugins.dirs in {config}): no such file or folder"
    )
    assert error["hint"] == f"create it, or remove it from plugins.dirs in {config}"
    config.write_text(yaml.safe_dump(settings))
    data = payload(cli("sync", "--json"))  # nothing was removed from the index meanwhile
    assert (data["added"], data["removed"], data["unchanged"]) == (0, 0, 7)


def test_a_missing_skill_folder_from_env_or_config_is_exit_4_and_keeps_the_index(
    cli: Any, index_env: dict[str, Any]
) -> None:
    assert cli("sync").exit_code == 0
    home = index_env["home"]
    missing = home / "no-such-skills"
    result = cli("skill", "list", env={"HOMECLAW_SKILLS_PATH": str(missing)})
    assert result.exit_code == 4, result.output
    assert f"skill folder {missing} (from HOMECLAW_SKILLS_PATH): no such" in result.stderr
    config = home / "config.yaml"
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    skills = {**settings["skills"], "dirs": [str(missing)]}
    config.write_text(yaml.safe_dump({**settings, "skills": skills}))
    result = cli("sync", "--json")
    assert result.exit_code == 4, result.output
    error = envelope(result)["error"]
    assert error["message"] == (
        f"skill folder {missing} (from skills.dirs in {config}): no such file or folder"
    )
    assert error["hint"] == f"create it, or remove it from skills.dirs in {config}"
    config.write_text(yaml.safe_dump(settings))
    data = payload(cli("sync", "--json"))  # nothing was removed from the index meanwhile
    assert (data["added"], data["removed"], data["unchanged"]) == (0, 0, 7)
