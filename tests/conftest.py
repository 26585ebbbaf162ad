"""Shared fixtures: an isolated HOMECLAW_HOME per test and ways to run the real CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homeclaw_cli.surfaces.cli.main import app

REPO_ROOT = Path(__file__).resolve().parent.parent

# Index/retrieval fixtures (fake_models, index_env) and the S3 server live with their fakes.
pytest_plugins = ["tests.fakes.index", "tests.fakes.s3"]


@pytest.fixture(scope="session", autouse=True)
def ctrl_c_reaches_children() -> None:
    """A suite started in the background (`make test &`, nohup) inherits SIGINT ignored, and
    so would every homeclaw it starts: the Ctrl-C tests would wait for an exit that a real
    terminal's Ctrl-C gives. The tests' own processes start with the terminal's default."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def hc_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh HOMECLAW_HOME; the process env is scrubbed of HOMECLAW_* and OLLAMA_HOST."""
    home = tmp_path / "hc-home"
    home.mkdir()
    for var in list(os.environ):
        if var.startswith("HOMECLAW_") or var == "OLLAMA_HOST":
            monkeypatch.delenv(var)
    monkeypatch.setenv("HOMECLAW_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # Tests write their plugins into ./plugins of a temp folder they own, so that workspace is
    # trusted here; tests/surfaces/cli/test_workspace_trust.py proves the untrusted default.
    monkeypatch.setenv("HOMECLAW_PLUGINS__TRUST_WORKSPACE", "true")
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    yield home


CliResult = subprocess.CompletedProcess[str]


@pytest.fixture
def cli(hc_home: Path) -> Callable[..., object]:
    """Invoke the Typer app in-process: cli("plugin", "list", "--json")."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> object:
        return runner.invoke(app, list(args), input=input, env=env, catch_exceptions=False)

    return invoke


@pytest.fixture
def run_cli(hc_home: Path) -> Callable[..., CliResult]:
    """Run `python -m homeclaw_cli` in a subprocess (the real entry point)."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        timeout: float = 60,
        input: str | None = None,
        cwd: Path | None = None,
    ) -> CliResult:
        full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
        return subprocess.run(
            [sys.executable, "-m", "homeclaw_cli", *args],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
            input=input,
            cwd=cwd,
        )

    return run
