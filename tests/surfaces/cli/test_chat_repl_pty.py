"""`homeclaw chat` (no -q) as a user runs it: a real terminal (pty) and a subprocess."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.fakes.chat_plugins import NO_INDEX_ENV
from tests.fakes.ollama_server import FakeOllama, Reply, fake_ollama, text

__all__ = ["fake_ollama"]


class Terminal:
    """The parent side of a pty: read until a marker appears after what was consumed."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen = bytearray()
        self.offset = 0

    def expect(self, marker: bytes, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.seen[self.offset :]:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{marker!r} not seen in {bytes(self.seen)!r}"
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # the child closed the terminal
                chunk = b""
            assert chunk, f"terminal closed before {marker!r}: {bytes(self.seen)!r}"
            self.seen.extend(chunk)
        self.offset = self.seen.index(marker, self.offset) + len(marker)

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)


def start_repl(
    host: str, env: dict[str, str] | None = None, *args: str
) -> tuple[subprocess.Popen[bytes], Terminal]:
    """`homeclaw chat` (with `args`, e.g. -q) with a pty as its controlling terminal (so
    Ctrl-C sends SIGINT)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "HOMECLAW_NO_BUNDLED": "1",
        "TERM": "xterm",
        "COLUMNS": "100",
        **(env if env is not None else NO_INDEX_ENV),
    }
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "homeclaw_cli", "chat", "--host", host, "--no-watch", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # noqa: PLW1509
    )
    os.close(slave)
    return proc, Terminal(master)


def second_turn_then_exit(proc: subprocess.Popen[bytes], term: Terminal) -> None:
    """The session goes on: a second message is answered, then Ctrl-D ends it cleanly."""
    term.expect(b"you>")
    term.send(b"second\r")
    term.expect(b"second answer")
    term.expect(b"you>")
    term.send(b"\x04")
    term.expect(b"bye")
    assert proc.wait(timeout=30) == 0


def stop(proc: subprocess.Popen[bytes], term: Terminal) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    os.close(term.fd)


def test_repl_in_a_terminal(hc_home: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(text("pong is **here**\n\nsecond line"))
    proc, term = start_repl(fake_ollama.host)
    try:
        term.expect(b"you>")
        term.send(b"ping\r")
        term.expect(b"second line")
        term.expect(b"you>")
        term.send(b"\x04")
        term.expect(b"bye")
        assert proc.wait(timeout=30) == 0
    finally:
        stop(proc, term)
    assert fake_ollama.chat_requests[0]["messages"][-1]["content"] == "ping"
    assert (hc_home / "data" / "state" / "chat_history").read_text().count("ping") == 1
    # the Markdown answer's lines are not padded with spaces to the terminal's width
    answer = bytes(term.seen).split(b"pong is", 1)[1].split(b"you>", 1)[0]
    lines = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", answer).split(b"\n")
    assert b" here\r" in lines[0] and any(b"second line" in line for line in lines)
    assert [line for line in lines if line.rstrip(b"\r") != line.rstrip(b"\r ")] == []


def test_ctrl_c_cancels_the_answer_not_the_session(hc_home: Path, fake_ollama: FakeOllama) -> None:
    seen, release = threading.Event(), threading.Event()

    def slow(body: dict[str, Any]) -> Reply:
        seen.set()
        release.wait(20)
        return text("too late")

    fake_ollama.add_model("llama3.2")
    fake_ollama.script(slow, text("second answer"))
    proc, term = start_repl(fake_ollama.host)
    try:
        term.expect(b"you>")
        term.send(b"first\r")
        assert seen.wait(20)
        term.send(b"\x03")
        term.expect(b"cancelled")
        release.set()
        second_turn_then_exit(proc, term)
    finally:
        release.set()
        stop(proc, term)
    assert b"too late" not in term.seen


@pytest.mark.slow  # the REPL syncs the index at start (the real embedding model, ~10 s)
def test_a_write_is_asked_about_on_a_real_terminal(
    hc_home: Path, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    from tests.fakes.chat_plugins import write_plugin
    from tests.fakes.ollama_server import tool_call
    from tests.surfaces.cli.test_chat_approval import VAULT_PY, VAULT_YAML

    target = tmp_path / "vault.txt"
    vault = write_plugin(tmp_path / "test-plugins", "vault", VAULT_YAML, VAULT_PY)
    (vault / "config.yml").write_text(f"target: {target}\n")
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(tool_call("vault__save", {"text": "hello"}))
    env = {"HOMECLAW_PLUGINS_PATH": str(tmp_path / "test-plugins")}
    proc, term = start_repl(fake_ollama.host, env)
    try:
        term.expect(b"you>", timeout=120)
        term.send(b"save hello to the vault\r")
        term.expect(b'allow vault__save(text="hello")?')
        term.expect(b"[a]lways this session")
        term.send(b"y\r")
        term.expect(b"saved")
        term.expect(b"you>")
        term.send(b"\x04")
        term.expect(b"bye")
        assert proc.wait(timeout=30) == 0
    finally:
        stop(proc, term)
    assert target.read_text() == "hello"


@pytest.mark.parametrize(
    ("key", "shown"),
    [(b"\x03", b"cancelled"), (b"\x04", b"you declined")],
    ids=["ctrl-c", "ctrl-d"],
)
def test_ctrl_c_or_d_at_the_approval_question_keeps_the_session(
    hc_home: Path, fake_ollama: FakeOllama, tmp_path: Path, key: bytes, shown: bytes
) -> None:
    """Ctrl-C at `allow ...?` cancels that turn and Ctrl-D says no; neither ends the REPL
    (Ctrl-C exited with 130, Ctrl-D printed an internal error) nor runs the call."""
    from tests.fakes.chat_plugins import write_plugin
    from tests.fakes.ollama_server import tool_call
    from tests.surfaces.cli.test_chat_approval import VAULT_PY, VAULT_YAML

    target = tmp_path / "vault.txt"
    vault = write_plugin(tmp_path / "test-plugins", "vault", VAULT_YAML, VAULT_PY)
    (vault / "config.yml").write_text(f"target: {target}\n")
    fake_ollama.add_model("llama3.2")

    def save_or_answer(body: dict[str, Any]) -> Reply:
        if body["messages"][-1]["content"] == "second":
            return text("second answer")
        return tool_call("vault__save", {"text": "hello"})

    fake_ollama.script(*[save_or_answer] * 5)
    env = {  # no index: retrieval falls back to keyword matching, which finds the vault
        "HOMECLAW_PLUGINS__REFRESH_ON_STARTUP": "false",
        "HOMECLAW_SKILLS__REFRESH_ON_STARTUP": "false",
        "HOMECLAW_PLUGINS_PATH": str(tmp_path / "test-plugins"),
    }
    proc, term = start_repl(fake_ollama.host, env)
    try:
        term.expect(b"you>")
        term.send(b"save hello to the vault\r")
        term.expect(b"[a]lways this session")
        term.send(key)
        term.expect(shown)
        second_turn_then_exit(proc, term)
    finally:
        stop(proc, term)
    assert not target.exists()
    assert b"internal error" not in term.seen


def test_ctrl_c_at_the_one_shot_approval_question_exits_at_once(
    hc_home: Path, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """`chat -q` on a terminal asks before a write; Ctrl-C there ends it with 130 at once (it
    waited for Enter, the question's reader thread blocking the exit)."""
    from tests.fakes.chat_plugins import write_plugin
    from tests.fakes.ollama_server import tool_call
    from tests.surfaces.cli.test_chat_approval import VAULT_PY, VAULT_YAML

    target = tmp_path / "vault.txt"
    vault = write_plugin(tmp_path / "test-plugins", "vault", VAULT_YAML, VAULT_PY)
    (vault / "config.yml").write_text(f"target: {target}\n")
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(tool_call("vault__save", {"text": "hello"}))
    env = {
        "HOMECLAW_PLUGINS__REFRESH_ON_STARTUP": "false",
        "HOMECLAW_SKILLS__REFRESH_ON_STARTUP": "false",
        "HOMECLAW_PLUGINS_PATH": str(tmp_path / "test-plugins"),
    }
    proc, term = start_repl(fake_ollama.host, env, "-q", "save hello to the vault")
    try:
        term.expect(b"[a]lways this session")
        term.send(b"\x03")
        term.expect(b"cancelled", timeout=10)
        assert proc.wait(timeout=10) == 130
    finally:
        stop(proc, term)
    assert not target.exists()
