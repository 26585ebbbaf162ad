"""Path settings: `~` and `$VAR` expanded, a relative one anchored to the config file's folder
(from the environment: to the current folder), everywhere the data goes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fakes.index import write_plugin
from tests.json_output import payload


def test_tilde_data_dir_keeps_all_data_under_home(
    cli: Any, index_env: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "fakehome"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    config = index_env["home"] / "config.yaml"
    values = yaml.safe_load(config.read_text(encoding="utf-8"))
    config.write_text(yaml.safe_dump({**values, "data_dir": "~/foo"}), encoding="utf-8")
    write_plugin(home / "foo" / "plugins", "weather", "Weather", "Rain and wind for a city.")

    result = cli("sync")
    assert result.exit_code == 0, result.output
    assert list(Path.cwd().iterdir()) == []  # no literal ./~ in the current folder
    assert {p.name for p in (home / "foo").iterdir()} >= {"index", "state", "plugins"}
    shown = payload(cli("config", "show", "--json"))["values"]
    assert shown["data_dir"]["value"] == str(home / "foo")
    assert shown["index.uri (effective)"]["value"] == str(home / "foo" / "index")


def test_relative_and_env_var_paths(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXTRA", str(tmp_path / "extra"))
    (tmp_path / "extra").mkdir()
    (hc_home / "config.yaml").write_text(
        "data_dir: mydata\nplugins:\n  dirs: [$EXTRA, '${EXTRA}']\nindex:\n  uri: s3://b/x\n"
    )
    env = {"HOMECLAW_SKILLS__TEST_DIR": "trial"}
    shown = payload(cli("config", "show", "--json", env=env))["values"]
    assert shown["data_dir"]["value"] == str(hc_home / "mydata")  # the config file's folder
    assert shown["plugins.dirs"]["value"] == [str(tmp_path / "extra")] * 2
    assert shown["index.uri"]["value"] == "s3://b/x"
    assert shown["skills.test_dir"]["value"] == str(Path.cwd() / "trial")  # env: the cwd
