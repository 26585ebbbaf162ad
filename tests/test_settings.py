from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.errors import ConfigError
from homeclaw_cli.settings import load_settings
from tests.json_output import payload


def test_homeclaw_home_keeps_everything_under_it(tmp_path: Path) -> None:
    settings = load_settings(env={"HOMECLAW_HOME": str(tmp_path)}, cwd=tmp_path)
    assert settings.config_path == tmp_path / "config.yaml"
    assert settings.data_dir == tmp_path / "data"
    assert settings.index_uri == str(tmp_path / "data" / "index")
    assert settings.user_plugins_dir == tmp_path / "data" / "plugins"


def test_precedence_default_config_env_flag(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("plugins:\n  max_retrieved: 7\nllm:\n  model: qwen2.5\n")
    env = {"HOMECLAW_HOME": str(tmp_path), "HOMECLAW_PLUGINS__MAX_RETRIEVED": "9"}
    settings = load_settings(env=env, cwd=tmp_path)
    assert settings.plugins.max_retrieved == 9
    assert settings.sources["plugins.max_retrieved"] == "env HOMECLAW_PLUGINS__MAX_RETRIEVED"
    assert settings.llm.model == "qwen2.5"
    assert settings.sources["llm.model"].startswith("config ")
    settings = load_settings(env=env, cwd=tmp_path, flags={"plugins.max_retrieved": 2})
    assert settings.plugins.max_retrieved == 2


def test_model_and_ollama_host_env(tmp_path: Path) -> None:
    env = {"HOMECLAW_HOME": str(tmp_path), "HOMECLAW_MODEL": "llama3.1:8b", "OLLAMA_HOST": ":11500"}
    settings = load_settings(env=env, cwd=tmp_path)
    assert settings.llm.model == "llama3.1:8b"
    assert settings.llm.host == "http://127.0.0.1:11500"


def test_paths_and_no_bundled(tmp_path: Path) -> None:
    env = {
        "HOMECLAW_HOME": str(tmp_path),
        "HOMECLAW_PLUGINS_PATH": os.pathsep.join(["/a", "/b"]),
        "HOMECLAW_SKILLS_PATH": "/s",
        "HOMECLAW_NO_BUNDLED": "1",
    }
    settings = load_settings(env=env, cwd=tmp_path, extra_plugin_dirs=[Path("/flag")])
    assert settings.extra_plugin_dirs == [Path("/flag"), Path("/a"), Path("/b")]
    assert settings.extra_skill_dirs == [Path("/s")]
    assert settings.bundled is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plugins:\n  max_retreived: 3\n", "did you mean `max_retrieved`"),
        ("pluginz: {}\n", "did you mean `plugins`"),
        ("plugins:\n  max_retrieved: lots\n", "plugins.max_retrieved"),
        ("plugins: [\n", "config.yaml:2:1: not valid YAML"),
    ],
)
def test_bad_config_names_file_key_and_fix(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "config.yaml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(env={"HOMECLAW_HOME": str(tmp_path)}, cwd=tmp_path)
    assert expected in str(caught.value)


def test_config_show_and_path(cli: Any, hc_home: Path) -> None:
    (hc_home / "config.yaml").write_text("llm:\n  model: mistral\n")
    result = cli("config", "show", "--json")
    assert result.exit_code == 0

    values = payload(result)["values"]
    assert values["llm.model"] == {
        "value": "mistral",
        "source": f"config {hc_home / 'config.yaml'}",
    }
    assert cli("config", "path").stdout.strip() == str(hc_home / "config.yaml")


def test_bad_config_exits_with_config_code(cli: Any, hc_home: Path) -> None:
    (hc_home / "config.yaml").write_text("llm:\n  modle: x\n")
    result = cli("plugin", "list")
    assert result.exit_code == 3
    assert "unknown key `llm.modle` (did you mean `model`?)" in result.stderr


def test_config_path_prints_the_path_of_an_invalid_config(cli: Any, hc_home: Path) -> None:
    config = hc_home / "config.yaml"
    config.write_text("llm:\n  modle: x\nplugins:\n  dirs: [/no/such/folder]\n")
    assert cli("plugin", "list").exit_code == 3
    result = cli("config", "path")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{config}\n" and result.stderr == ""
    other = hc_home / "other.yaml"
    assert cli("config", "path", env={"HOMECLAW_CONFIG": str(other)}).stdout == f"{other}\n"


def test_config_show_reports_every_bad_key_and_value_at_once(cli: Any, hc_home: Path) -> None:
    (hc_home / "config.yaml").write_text(
        "llm:\n  modle: x\n  timeout_sec: soon\nplugins:\n  max_retreived: 3\nfoo: 1\n"
    )
    result = cli("config", "show")
    assert result.exit_code == 3
    assert "invalid configuration (4 problems)" in result.stderr
    for expected in (
        "unknown key `llm.modle` (did you mean `model`?)",
        "unknown key `plugins.max_retreived` (did you mean `max_retrieved`?)",
        "unknown key `foo` (top-level keys: data_dir,",
        "llm.timeout_sec = 'soon'",
    ):
        assert expected in result.stderr


@pytest.mark.parametrize(
    ("var", "expected"),
    [
        (
            "HOMECLAW_PLUGINS__MAX_RETRIEVD",
            "HOMECLAW_PLUGINS__MAX_RETRIEVD (env): unknown key `plugins.max_retrievd` "
            "(did you mean HOMECLAW_PLUGINS__MAX_RETRIEVED?)",
        ),
        ("HOMECLAW_PLUGIN__MAX_RETRIEVED", "(did you mean HOMECLAW_PLUGINS__MAX_RETRIEVED?)"),
        ("HOMECLAW_LLM__ZZZ", "unknown key `llm.zzz` (valid under `llm`: provider, host,"),
    ],
)
def test_a_misspelled_env_key_names_the_variable_and_the_fix(
    cli: Any, hc_home: Path, var: str, expected: str
) -> None:
    result = cli("config", "show", env={var: "3"})
    assert result.exit_code == 3
    assert expected in result.stderr and "Extra inputs" not in result.stderr


def test_other_programs_homeclaw_variables_are_left_alone(cli: Any, hc_home: Path) -> None:
    env = {"HOMECLAW_CWD": "/x", "HOMECLAW_WIDGET__SIZE": "3"}
    assert cli("config", "show", env=env).exit_code == 0


def test_a_config_file_that_is_a_folder_is_a_config_error(cli: Any, hc_home: Path) -> None:
    (hc_home / "config.yaml").mkdir()
    for argv in (("config", "show"), ("plugin", "list")):
        result = cli(*argv)
        assert result.exit_code == 3, result.output
        assert f"config file {hc_home / 'config.yaml'} is a folder, not a file" in result.stderr
    assert cli("config", "path").stdout == f"{hc_home / 'config.yaml'}\n"


@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n# another\n", "---\n"])
def test_an_empty_config_file_means_defaults(cli: Any, hc_home: Path, text: str) -> None:
    (hc_home / "config.yaml").write_text(text)
    result = cli("config", "show", "--json")
    assert result.exit_code == 0, result.output
    assert payload(result)["values"]["llm.model"]["source"] == "default"


@pytest.mark.parametrize(
    ("text", "held"),
    [("- a\n- b\n", "a list"), ("llama3.2\n", "the str 'llama3.2'"), ("3\n", "the int 3")],
)
def test_a_config_file_that_is_not_a_mapping_names_the_file(
    cli: Any, hc_home: Path, text: str, held: str
) -> None:
    (hc_home / "config.yaml").write_text(text)
    result = cli("config", "show")
    assert result.exit_code == 3
    config = hc_home / "config.yaml"
    assert (
        f"{config}: the config file holds {held}, not a mapping of keys to values" in result.stderr
    )


def test_a_config_file_that_is_not_utf8_names_the_byte_and_the_fix(cli: Any, hc_home: Path) -> None:
    config = hc_home / "config.yaml"
    config.write_bytes(b'llm: {model: "caf\xe9"}\n')  # saved as Latin-1
    result = cli("config", "show")
    assert result.exit_code == 3
    assert f"{config}: the config file is not UTF-8 text (invalid byte at offset 17)" in (
        result.stderr
    )
    assert "hint: save it as UTF-8" in result.stderr
