"""`homeclaw chat -q ... | head -c 3`: the reader leaves while the answer streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.fakes.ollama_server import FakeOllama, fake_ollama, text
from tests.surfaces.cli.test_chat_cancel import KEYWORD_ENV, NOISE

__all__ = ["fake_ollama"]


@pytest.mark.slow
def test_a_reader_closing_stdout_is_not_blamed_on_the_server(
    hc_home: Path, fake_ollama: FakeOllama
) -> None:
    """Before: a traceback from the closed stream, then `Ollama is not running`, exit 5
    (BrokenPipeError is a ConnectionError, which the LLM adapter took for the server's)."""
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(text("word " * 100_000))  # more than a pipe holds: writes must block
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **KEYWORD_ENV}
    argv = [sys.executable, "-m", "homeclaw_cli", "chat", "--host", fake_ollama.host, "-q", "hi"]
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(3) == "wor"
        process.stdout.close()
        stderr = process.stderr.read()
        code = process.wait(timeout=60)
    assert code == 1, stderr
    assert "not running" not in stderr and not any(noise in stderr for noise in NOISE), stderr
