"""In the REPL a call that is not read-only is put to the user: y runs it once, n does not,
a (always) runs it for the rest of the session. Driven through prompt-toolkit's pipe input."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.surfaces.repl.chat_repl import Repl
from tests.fakes.chat_plugins import fast_retrieval, write_plugin
from tests.fakes.ollama_server import FakeOllama, tool_call
from tests.surfaces.cli.test_chat_approval import VAULT_PY, VAULT_YAML

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def target(tmp_path: Path) -> Path:
    return tmp_path / "vault.txt"


@pytest.fixture
def settings(fake: FakeOllama, tmp_path: Path, target: Path) -> Settings:
    vault = write_plugin(tmp_path / "test-plugins", "vault", VAULT_YAML, VAULT_PY)
    (vault / "config.yml").write_text(f"target: {target}\n")
    return load_settings(
        extra_plugin_dirs=[tmp_path / "test-plugins"],
        flags={"llm.host": fake.host, "bundled": False},
    )


def drive(settings: Settings, keys: str) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(settings, pt_input=pipe, pt_output=DummyOutput(), console=console, watch=False)
        asyncio.run(repl.run())
    return str(console.file.getvalue())  # type: ignore[attr-defined]


def test_no_keeps_the_file_unwritten_and_yes_writes_it(
    settings: Settings, fake: FakeOllama, target: Path
) -> None:
    fake.script(
        tool_call("vault__save", {"text": "first"}),
        tool_call("vault__save", {"text": "second"}),
    )
    out = drive(settings, "save first to the vault\nn\nsave second to the vault\ny\n/exit\n")
    # The declined call ends its turn: the model is not asked to answer without it.
    assert 'not run: you declined vault__save(text="first")' in out
    assert len(fake.chat_requests) == 2
    assert target.read_text() == "second"


def test_always_covers_the_rest_of_the_session(
    settings: Settings, fake: FakeOllama, target: Path
) -> None:
    fake.script(
        tool_call("vault__save", {"text": "one"}),
        tool_call("vault__save", {"text": "two"}),
    )
    # One answer ("a") for two calls: the second runs without a question.
    drive(settings, "save one to the vault\na\nsave two to the vault\n/exit\n")
    assert target.read_text() == "two"
    events = (settings.data_dir / "audit.jsonl").read_text().splitlines()
    decided = [(e["decided"], e["answer"]) for e in map(json.loads, events)]
    assert decided == [("asked", "always"), ("auto", None)]
