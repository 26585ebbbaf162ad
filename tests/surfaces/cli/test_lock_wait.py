"""A command that waits for another process's index lock says so, once, on stderr."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.fsutil import file_lock
from tests.fakes.index import write_plugin
from tests.json_output import payload

# Longer than a command takes to reach the lock on a loaded machine (its first imports
# included), or it finds the lock free and has nothing to say.
HOLD = 2.0
WAIT_LINE = f"waiting for another homeclaw process (pid {os.getpid()}) to finish with the index"


@contextmanager
def held_for(lock: Path, seconds: float) -> Iterator[None]:
    """Hold `lock` from another thread (its own open file) for `seconds`."""
    taken = threading.Event()

    def hold() -> None:
        with file_lock(lock):
            taken.set()
            threading.Event().wait(seconds)

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(5)
    try:
        yield
    finally:
        thread.join()


def lock_of(index_env: dict[str, Any]) -> Path:
    return Path(index_env["home"]) / "data" / "state" / "index.lock"


@pytest.mark.parametrize("flag", ["--json", None])
def test_sync_says_it_waits_on_stderr(
    cli: Any, index_env: dict[str, Any], flag: str | None
) -> None:
    with held_for(lock_of(index_env), HOLD):
        result = cli("sync", *([flag] if flag else []))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "waiting for" in line]
    assert len(lines) == 1 and WAIT_LINE in lines[0] and "index.lock" in lines[0]
    assert "waiting" not in result.stdout
    if flag == "--json":
        assert payload(result)["added"]


def test_sync_quiet_waits_silently_and_a_timeout_names_the_holder(
    cli: Any, index_env: dict[str, Any]
) -> None:
    with held_for(lock_of(index_env), HOLD):
        quiet = cli("sync", "--quiet")
    assert quiet.exit_code == 0 and quiet.stdout == quiet.stderr == ""
    with file_lock(lock_of(index_env)):
        result = cli("sync", "--lock-timeout", "0")
    assert result.exit_code == 6
    assert f"another homeclaw process (pid {os.getpid()}) is writing the index" in result.stderr
    assert "run `homeclaw sync --lock-timeout SECONDS` to wait longer" in result.stderr


def test_plugin_install_says_its_sync_waits(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    assert cli("sync").exit_code == 0
    src = write_plugin(tmp_path / "src", "tides", "Tides", "Tide tables for a harbour.")
    with held_for(lock_of(index_env), HOLD):
        result = cli("plugin", "install", str(src), "--yes")
    assert result.exit_code == 0, result.output
    assert WAIT_LINE in result.stderr and "index updated: 1 added" in result.stderr


def test_plugin_register_and_unregister_say_they_wait(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    from tests.surfaces.cli.test_plugin_register import write_descriptor

    descriptor = str(write_descriptor(tmp_path))
    registrations = Path(index_env["home"]) / "data" / "state" / "external.lock"
    holder = f"waiting for another homeclaw process (pid {os.getpid()}) to finish with"
    for command in (["register", "--no-check", descriptor], ["unregister", "slack-bot"]):
        with held_for(registrations, HOLD):
            result = cli("plugin", *command, "--no-sync")
        assert result.exit_code == 0, result.output
        assert f"{holder} external_plugins.json (lock: {registrations};" in result.stderr
    with held_for(lock_of(index_env), HOLD):
        synced = cli("plugin", "register", "--no-check", descriptor, "--sync")
    assert synced.exit_code == 0, synced.output
    assert WAIT_LINE in synced.stderr


def test_a_registration_that_times_out_names_no_option_it_lacks(
    cli: Any, index_env: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hint said "retry with a longer --lock-timeout", an option only `sync` has.
    from homeclaw_cli.state import external_registrations
    from tests.surfaces.cli.test_plugin_register import write_descriptor

    monkeypatch.setattr(external_registrations, "LOCK_WAIT_SEC", 0)
    descriptor = str(write_descriptor(tmp_path))
    with file_lock(Path(index_env["home"]) / "data" / "state" / "external.lock"):
        result = cli("plugin", "register", "--no-check", descriptor, "--no-sync")
    assert result.exit_code == 6
    assert f"(pid {os.getpid()}) is writing external_plugins.json" in result.stderr
    assert "hint: wait for it to finish, then run the command again" in result.stderr
    assert "--lock-timeout" not in result.stderr


def test_a_command_without_lock_timeout_is_not_told_to_use_it(
    cli: Any, index_env: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.app.install import swap

    monkeypatch.setattr(swap, "LOCK_TIMEOUT_SEC", 0)
    src = write_plugin(tmp_path / "src", "tides", "Tides", "Tide tables for a harbour.")
    with file_lock(Path(index_env["home"]) / "data" / "state" / "install.lock"):
        result = cli("plugin", "install", str(src), "--yes")
    assert result.exit_code == 6, result.output
    assert "is writing installed plugins" in result.stderr
    assert "--lock-timeout" not in result.stderr
    assert "hint: wait for it to finish, then run the command again" in result.stderr
