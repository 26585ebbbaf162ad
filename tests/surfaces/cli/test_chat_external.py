"""An external plugin registered at run time is used by `homeclaw chat` like a built-in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.settings import load_settings
from homeclaw_cli.state.health import HealthStore
from tests.fakes.chat_plugins import fast_retrieval
from tests.fakes.external_plugin import descriptor
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.fakes.processes import LineProcess, child_env, start_plugin

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def echo_plugin(hc_home: Path) -> Iterator[int]:
    plugin: LineProcess
    plugin, port, _ = start_plugin(child_env(), homeclaw=None, token_file=None)
    try:
        yield port
    finally:
        plugin.kill()


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def test_registered_plugin_is_retrieved_called_and_dropped_when_unhealthy(
    cli: Callable[..., Any], fake: FakeOllama, echo_plugin: int, tmp_path: Path
) -> None:
    # the test embedder scores weakly, and a weak hit's call would be questioned first
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__DECIDE": "never"}
    path = tmp_path / "echo.json"
    path.write_text(json.dumps(descriptor("echo", echo_plugin)))
    registered = cli("plugin", "register", str(path), env=env)  # health-checked, synced
    assert registered.exit_code == 0, registered.output

    fake.script(tool_call("echo__shout", {"text": "hello there"}))
    answer = cli("chat", "--host", fake.host, "-q", "shout this message: hello there", env=env)
    assert answer.exit_code == 0, answer.stderr
    assert answer.stdout == "HELLO THERE\n"
    assert "echo__shout" in offered(fake.chat_requests[0])

    HealthStore(load_settings().state_dir).record("echo", False, "down", unhealthy_after=1)
    fake.script(text("I cannot shout right now."))
    later = cli("chat", "--host", fake.host, "-q", "shout this message: hello there", env=env)
    assert later.exit_code == 0, later.stderr
    assert "echo__shout" not in offered(fake.chat_requests[-1])
