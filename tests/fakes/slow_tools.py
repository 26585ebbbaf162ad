"""A subprocess plugin and a skill script that hang (a child process included) until killed.

Both write "<own pid> <child pid>" to a file once running, so a test knows when to press
Ctrl-C and can check afterwards that neither process is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.plugin_factory import write_plugin
from tests.skill_helpers import make_skill

SLEEPER = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open({pid_file!r} if {pid_file!r} else sys.argv[1], "w") as handle:
    handle.write(f"{{os.getpid()}} {{child.pid}}")
child.wait()
"""
SKILL_MD_BODY = 'Run `run_skill(skill_name="nap", script="nap.py", args=[PIDFILE])`.\n'


def sleepy_plugin(root: Path, pid_file: Path) -> Path:
    """A subprocess plugin `sleepy` (capability `go`) that never answers."""
    manifest = {
        "id": "sleepy",
        "name": "Sleepy",
        "description": "Take a nap and sleep for a long while.",
        "keywords": ["nap", "sleep"],
        "type": "subprocess",
        "config": {"command": "python", "args": ["main.py"], "timeout_sec": 120},
        "effects": "read",
        "capabilities": [{"id": "go", "name": "Go", "description": "Take the nap."}],
    }
    return write_plugin(root, manifest, {"main.py": SLEEPER.format(pid_file=str(pid_file))})


def napping_skill(root: Path) -> Path:
    """A skill `nap` whose script nap.py hangs; it takes the pid file as its argument."""
    return make_skill(
        root,
        "nap",
        description="Take a nap and sleep for a long while with the nap script.",
        body=SKILL_MD_BODY,
        extra="effects: read\n",
        scripts={"nap.py": SLEEPER.format(pid_file="")},
    )


def wait_for_pids(pid_file: Path, timeout: float = 30.0) -> list[int]:
    """The two pids once the plugin or script wrote them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pid_file.is_file() and len(words := pid_file.read_text().split()) == 2:
            return [int(w) for w in words]
        time.sleep(0.05)
    raise AssertionError(f"{pid_file} was not written within {timeout} s")


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def none_alive(pids: list[int], timeout: float = 5.0) -> bool:
    """True once none of `pids` runs (a kill takes a moment to land)."""
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_leftovers(pids: list[int]) -> None:
    """Test cleanup: never leave a sleeper behind, whatever the outcome."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, 9)


def interrupt_once_running(
    argv: list[str], pid_file: Path, env: dict[str, str]
) -> tuple[int, str, str, list[int]]:
    """Run `homeclaw ARGV`, press Ctrl-C once the hanging tool wrote `pid_file`: (exit code,
    stdout, stderr, the tool's pids). Whatever happens, nothing is left running."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "homeclaw_cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env},
    )
    pids: list[int] = []
    try:
        pids = wait_for_pids(pid_file)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        kill_leftovers(pids)
    return proc.returncode, stdout, stderr, pids
