"""A plugin's `requires`: not offered in chat until its key is set, named by `doctor`, checked
by `plugin validate`. Real CLI, the official ollama client against FakeOllama."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import TIDE_PY, TIDE_YAML, fast_retrieval, write_plugin
from tests.fakes.ollama_server import FakeOllama, fake_ollama, text
from tests.json_output import envelope, payload

__all__ = ["fake_ollama", "fast_retrieval"]

NEEDS = "requires:\n  - {env: TIDES_KEY, config: token}\n"


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    write_plugin(tmp_path / "plugins", "tides", TIDE_YAML + NEEDS, TIDE_PY)
    return tmp_path / "plugins"


def offered(cli: Callable[..., Any], fake: FakeOllama, plugins: Path, **env: str) -> list[str]:
    fake.script(text("Around six."))
    result = cli(
        "--plugins-dir",
        str(plugins),
        "chat",
        "--host",
        fake.host,
        "-q",
        "when is high tide in the harbour of Brest",
        "--json",
        env={"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__DECIDE": "never", **env},
    )
    assert result.exit_code == 0, result.stderr
    tools: list[str] = payload(result)["tools_offered"]
    return tools


def test_a_plugin_is_offered_once_what_it_requires_is_set(
    cli: Callable[..., Any], fake_ollama: FakeOllama, plugins: Path, fast_retrieval: object
) -> None:
    fake_ollama.add_model("llama3.2")
    assert "tides__times" not in offered(cli, fake_ollama, plugins, TIDES_KEY="")
    assert "tides__times" in offered(cli, fake_ollama, plugins, TIDES_KEY="k-123")
    (plugins / "tides" / "config.yml").write_text("token: t-456\n")
    assert "tides__times" in offered(cli, fake_ollama, plugins, TIDES_KEY="")


def test_the_user_hears_why_a_matching_plugin_was_not_offered(
    cli: Callable[..., Any], fake_ollama: FakeOllama, plugins: Path, fast_retrieval: object
) -> None:
    """The answer came without the plugin: stderr says what to set, once per session, and the
    `--json` turn names it in `held_back`; with the key set nothing is said."""
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(text("I can't look that up."))
    args = ["--plugins-dir", str(plugins), "chat", "--host", fake_ollama.host, "-q"]
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__DECIDE": "never", "TIDES_KEY": ""}
    shown = cli(*args, "when is high tide in the harbour of Brest", env=env)
    assert shown.exit_code == 0 and shown.stdout.strip() == "I can't look that up."
    assert (
        "warning: plugin tides matched this request but was not offered: it needs TIDES_KEY (or "
        "token in config.yml) (`homeclaw doctor` says where, or `homeclaw plugin disable tides`)"
    ) in " ".join(shown.stderr.split())
    fake_ollama.script(text("Around six."))
    data = payload(cli(*args, "high tide in Brest", "--json", env=env))
    assert data["held_back"] == [
        {"id": "tides", "reason": "it needs TIDES_KEY (or token in config.yml)"}
    ]
    fake_ollama.script(text("Around six."))
    shown = cli(*args, "high tide in Brest", env={**env, "TIDES_KEY": "k-1"})
    assert "not offered" not in shown.stderr


def test_plugin_search_says_chat_holds_it_back(
    cli: Callable[..., Any], plugins: Path, fast_retrieval: object
) -> None:
    args = ["--plugins-dir", str(plugins), "plugin", "search", "high tide in Brest", "--json"]
    env = {"HOMECLAW_NO_BUNDLED": "1", "TIDES_KEY": ""}
    assert cli("--plugins-dir", str(plugins), "sync", env=env).exit_code == 0
    shown = cli(*args, env=env)
    assert [h["id"] for h in payload(shown)["hits"]] == ["tides"]
    assert envelope(shown)["warnings"] == [
        "plugin tides is not offered in chat: it needs TIDES_KEY (or token in config.yml) "
        "(`homeclaw doctor` says where)"
    ]
    assert envelope(cli(*args, env={**env, "TIDES_KEY": "k"}))["warnings"] == []


def test_doctor_names_what_to_set(
    cli: Callable[..., Any], fake_ollama: FakeOllama, plugins: Path
) -> None:
    fake_ollama.add_model("llama3.2")
    result = cli(
        "--plugins-dir",
        str(plugins),
        "doctor",
        "--host",
        fake_ollama.host,
        "--json",
        env={"HOMECLAW_NO_BUNDLED": "1", "TIDES_KEY": ""},
    )
    check = next(c for c in payload(result) if c["name"] == "plugin tides")
    assert check["status"] == "warn"
    assert check["detail"] == "not offered in chat: needs TIDES_KEY (or token in config.yml)"
    assert str(plugins / "tides") in check["fix"]


@pytest.mark.parametrize(
    ("requires", "words"),
    [("[{}]", "names `env`"), ("[{env: NEWS-KEY}]", "not valid"), ("[{envv: X}]", "envv")],
)
def test_validate_checks_requires(
    cli: Callable[..., Any], tmp_path: Path, requires: str, words: str
) -> None:
    folder = write_plugin(tmp_path, "tides", TIDE_YAML + f"requires: {requires}\n", TIDE_PY)
    result = cli("plugin", "validate", str(folder), "--json")
    assert result.exit_code == 1
    (error,) = payload(result)["plugins"][0]["errors"]
    assert error["field"].startswith("requires[0]") and words in error["message"]


def test_plugin_show_says_whether_it_is_set(cli: Callable[..., Any], plugins: Path) -> None:
    env = {"HOMECLAW_NO_BUNDLED": "1", "TIDES_KEY": ""}
    shown = cli("--plugins-dir", str(plugins), "plugin", "show", "tides", env=env)
    assert "requires: TIDES_KEY (or token in config.yml) (missing: chat does not" in shown.stdout
    env["TIDES_KEY"] = "k"
    data = payload(cli("--plugins-dir", str(plugins), "plugin", "show", "tides", "--json", env=env))
    assert data["requires_missing"] == [] and data["manifest"]["requires"][0]["env"] == "TIDES_KEY"
