"""`homeclaw chat` never searches a stale index by surprise: it syncs on start when the plugin
folders changed (and only then), warns in one line when it cannot, and can be told not to."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import TIDE_PY, TIDE_YAML, write_plugin, write_test_plugins
from tests.fakes.embedder import FakeModels
from tests.fakes.ollama_server import FakeOllama, text


@pytest.fixture
def fake(hc_home: Path) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    return write_test_plugins(tmp_path / "plugins")


@pytest.fixture
def chat(cli: Callable[..., Any], fake: FakeOllama, plugins: Path) -> Callable[..., Any]:
    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        fake.script(text("ok"))
        return cli(
            "--plugins-dir",
            str(plugins),
            "chat",
            "--host",
            fake.host,
            *args,
            env={"HOMECLAW_NO_BUNDLED": "1", **(env or {})},
        )

    return run


def search_ids(cli: Callable[..., Any], plugins: Path, query: str) -> tuple[list[str], str]:
    from tests.json_output import payload

    result = cli(
        "--plugins-dir",
        str(plugins),
        "plugin",
        "search",
        query,
        "--json",
        env={"HOMECLAW_NO_BUNDLED": "1"},
    )
    return [h["id"] for h in payload(result)["hits"]], result.stderr


def test_chat_syncs_on_start_only_when_plugins_changed(
    chat: Callable[..., Any], cli: Callable[..., Any], plugins: Path, fake_models: FakeModels
) -> None:
    assert chat("-q", "hello").exit_code == 0  # first start: builds the index
    assert fake_models.embedded
    fake_models.reset()
    assert chat("-q", "hello").exit_code == 0
    assert fake_models.embedded == ["hello"]  # the question only: nothing re-embedded
    write_plugin(plugins, "tides2", TIDE_YAML.replace("id: tides", "id: tides2"), TIDE_PY)
    _, warning = search_ids(cli, plugins, "tide times for a harbour")
    assert "changed since the last sync" in warning
    fake_models.reset()
    result = chat("-q", "hello")
    assert result.exit_code == 0 and "sync" not in result.stderr
    *synced, question = fake_models.embedded
    assert question == "hello" and any("tide times" in t for t in synced)
    ids, warning = search_ids(cli, plugins, "tide times for a harbour")
    assert "tides2" in ids and warning == ""


def test_refresh_on_startup_off_warns_instead(
    chat: Callable[..., Any], plugins: Path, fake_models: FakeModels
) -> None:
    assert chat("-q", "hello").exit_code == 0
    write_plugin(plugins, "tides2", TIDE_YAML.replace("id: tides", "id: tides2"), TIDE_PY)
    fake_models.reset()
    off = {"HOMECLAW_PLUGINS__REFRESH_ON_STARTUP": "false"}
    result = chat("-q", "hello", env=off)
    assert result.exit_code == 0 and result.stdout == "ok\n"
    assert fake_models.embedded == ["hello"]
    lines = [line for line in result.stderr.splitlines() if "homeclaw sync" in line]
    assert len(lines) == 1 and "plugins changed since the last sync" in lines[0]


def test_a_locked_index_is_one_warning_not_a_wait(
    chat: Callable[..., Any], plugins: Path, hc_home: Path, fake_models: FakeModels
) -> None:
    from homeclaw_cli.fsutil import file_lock

    assert chat("-q", "hello").exit_code == 0
    write_plugin(plugins, "tides2", TIDE_YAML.replace("id: tides", "id: tides2"), TIDE_PY)
    with file_lock(hc_home / "data" / "state" / "index.lock"):
        result = chat("-q", "hello")
    assert result.exit_code == 0 and result.stdout == "ok\n"
    lines = [line for line in result.stderr.splitlines() if "index not updated" in line]
    assert len(lines) == 1 and "another homeclaw process" in lines[0]
    assert "run `homeclaw sync`" in lines[0]
    waiting = [line for line in result.stderr.splitlines() if "waiting for" in line]
    assert len(waiting) == 1 and f"homeclaw process (pid {os.getpid()})" in waiting[0]
