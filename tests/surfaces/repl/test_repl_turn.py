"""What the REPL shows of a turn: the result, never a preamble about calling a tool or the
model's call JSON."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from homeclaw_cli.settings import Settings, load_settings
from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.surfaces.repl.test_chat_repl import drive

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def settings(fake: FakeOllama, tmp_path: Path) -> Settings:
    plugins = write_test_plugins(tmp_path / "plugins")
    return load_settings(
        extra_plugin_dirs=[plugins], flags={"llm.host": fake.host, "bundled": False}
    )


def test_only_the_result_is_shown_not_the_preamble(settings: Settings, fake: FakeOllama) -> None:
    preamble = "I will call the tides__times tool to get the tide times for Brest."
    fake.script(tool_call("tides__times", {"harbour": "Brest"}, content=preamble))
    out = drive(settings, "tide times for the harbour of Brest\n/exit\n")
    assert "High tide in Brest at 06:12." in out
    assert "I will call" not in out


def test_call_json_written_as_text_is_never_shown(settings: Settings, fake: FakeOllama) -> None:
    call = '{"name": "tide_lookup", "arguments": {"harbour": "Brest"}}'
    fake.script(text(f"Let me check.\n{call}"), tool_call("tides__times", {"harbour": "Brest"}))
    out = drive(settings, "tide times for the harbour of Brest\n/exit\n")
    assert "High tide in Brest at 06:12." in out
    assert "tide_lookup" not in out and "Let me check" not in out
