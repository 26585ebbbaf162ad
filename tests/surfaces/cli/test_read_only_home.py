"""A home this user may not write (another user's, a read-only mount): a command that must
write names the folder in one error (exit 3, an envelope under --json), never a traceback;
the commands that only read still work, and `sync --check` does not call the index stale."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.json_output import envelope

REPO_ROOT = Path(__file__).resolve().parents[3]
Run = Callable[..., subprocess.CompletedProcess[str]]


def _set_writable(root: Path, writable: bool) -> None:
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        path.chmod(mode | 0o200 if writable else mode & ~0o222)


@pytest.fixture
def read_only(hc_home: Path) -> Iterator[Run]:
    """Run the real CLI as a user who may not write `hc_home` (the test makes it read-only).
    Root writes whatever the modes say, so as root the command runs without capabilities,
    where the modes bind it too."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        prefix = [setpriv, "--bounding-set=-all", "--inh-caps=-all"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        command = [*prefix, sys.executable, "-m", "homeclaw_cli", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)

    yield run
    _set_writable(hc_home, True)  # so that pytest can remove it


def _refused(result: subprocess.CompletedProcess[str], home: Path) -> None:
    assert result.returncode == 3, result.stderr
    assert f"error: {home / 'data' / 'state'} is not writable" in result.stderr
    assert "HOMECLAW_HOME" in result.stderr
    assert "Traceback" not in result.stderr


def test_writing_commands_name_the_folder(
    cli: Any, index_env: dict[str, Any], read_only: Run
) -> None:
    home = index_env["home"]
    assert cli("sync").exit_code == 0
    _set_writable(home, False)
    for args in (
        ("sync",),
        ("plugin", "disable", "weather"),
        ("plugin", "health", "weather"),
        ("chat", "-q", "hi"),
    ):
        _refused(read_only(*args), home)
    document = envelope(read_only("sync", "--json"))
    assert document["error"]["exit_code"] == 3
    assert "is not writable" in document["error"]["message"]


def test_reading_commands_work_and_check_finds_the_index_current(
    cli: Any, index_env: dict[str, Any], read_only: Run
) -> None:
    home = index_env["home"]
    assert cli("sync").exit_code == 0
    _set_writable(home, False)
    check = read_only("sync", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "index up to date" in check.stdout
    assert "rebuilt" not in check.stdout + check.stderr
    for args in (("plugin", "list"), ("logs",), ("audit",)):
        result = read_only(*args)
        assert result.returncode == 0, (args, result.stderr)


def test_check_on_a_home_never_synced_says_stale(index_env: dict[str, Any], read_only: Run) -> None:
    _set_writable(index_env["home"], False)
    check = read_only("sync", "--check")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "index stale: would change 7 added" in check.stdout
    assert "Traceback" not in check.stderr


def test_the_conversation_log_reads_and_clear_names_the_folder(
    hc_home: Path, read_only: Run
) -> None:
    from homeclaw_cli.core.turn_result import TurnResult
    from homeclaw_cli.settings import load_settings
    from homeclaw_cli.state.conversations import ConversationLog, log_path

    log = ConversationLog(log_path(load_settings().state_dir), session="abc123")
    log.record("qwen", TurnResult("what time is it", answer="noon"))
    log.close()
    _set_writable(hc_home, False)
    for args in (("logs",), ("logs", "sessions"), ("logs", "show", "abc")):
        result = read_only(*args)
        assert result.returncode == 0, (args, result.stderr)
        assert "what time is it" in result.stdout
    _refused(read_only("logs", "--clear", "--yes"), hc_home)


def test_a_log_written_by_another_user_names_the_file(hc_home: Path, read_only: Run) -> None:
    """`sudo homeclaw ...` once: the audit log (0600) and conversation log are root's."""
    from homeclaw_cli.settings import load_settings
    from homeclaw_cli.state.audit import record
    from homeclaw_cli.state.conversations import ConversationLog, log_path

    settings = load_settings()
    record(settings.data_dir, "install", "weather")
    log = ConversationLog(log_path(settings.state_dir), session="abc123")
    log.close()
    for path in (settings.data_dir / "audit.jsonl", log_path(settings.state_dir)):
        path.chmod(0)
    for args, path in (
        (("audit",), settings.data_dir / "audit.jsonl"),
        (("logs",), log_path(settings.state_dir)),
    ):
        result = read_only(*args)
        assert result.returncode == 3, result.stderr
        assert f"error: {path} cannot be read (Permission denied)" in result.stderr
        assert "Traceback" not in result.stderr
