"""A child that detaches into a session of its own (setsid, double fork, nohup) ends with the
plugin call or skill script that started it, on Linux: the process-group kill alone misses it."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.processes import gone_soon
from tests.plugin_factory import workspace_plugins, write_plugin
from tests.skill_helpers import make_skill

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

DOUBLE_FORK = """
import json, os, sys, time
sys.stdin.readline()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # the daemon: own session, stdio away from the plugin's pipes
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        open({pid_file!r} + ".tmp", "w").write(str(os.getpid()))
        os.rename({pid_file!r} + ".tmp", {pid_file!r})
        time.sleep(60)
    os._exit(0)
os.wait()
while not os.path.exists({pid_file!r}):
    time.sleep(0.01)
print(json.dumps({{"success": True, "text": "answered"}}))
"""


def _end(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 9)


def test_a_double_forked_daemon_of_a_subprocess_plugin_ends_with_the_call(
    cli: Any, tmp_path: Path
) -> None:
    pid_file = str(tmp_path / "daemon.pid")
    manifest = {
        "id": "daemonizer",
        "name": "daemonizer",
        "description": "A test plugin.",
        "type": "subprocess",
        "config": {"command": "python", "args": ["main.py"], "timeout_sec": 20},
        "capabilities": [{"id": "go", "name": "Go", "description": "Do it.", "parameters": []}],
    }
    write_plugin(workspace_plugins(), manifest, {"main.py": DOUBLE_FORK.format(pid_file=pid_file)})
    result = cli("plugin", "call", "daemonizer")
    assert result.exit_code == 0, result.output
    assert result.stdout == "answered\n"
    daemon = int(Path(pid_file).read_text())
    try:
        assert gone_soon(daemon), f"the detached process {daemon} outlived the call"
    finally:
        _end(daemon)


def test_a_setsid_child_of_a_skill_script_ends_with_the_script(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "detached.pid"
    script = f"setsid sleep 60 </dev/null >/dev/null 2>&1 &\necho $! > {pid_file}\necho done\n"
    make_skill(hc_home / "data" / "skills", "detacher", scripts={"go.sh": script})
    started = time.monotonic()
    result = cli("skill", "test", "detacher", "--script", "go.sh")
    assert result.exit_code == 0, result.output
    assert result.stdout == "done\n"
    assert time.monotonic() - started < 10
    detached = int(pid_file.read_text())
    try:
        assert gone_soon(detached), f"the setsid child {detached} outlived the script"
    finally:
        _end(detached)


BUILD_BACKEND = """
import os, time


def get_requires_for_build_wheel(config_settings=None):
    open({pid_file!r} + ".tmp", "w").write(str(os.getpid()))
    os.rename({pid_file!r} + ".tmp", {pid_file!r})
    time.sleep(120)  # a build that takes for ever
    return []
"""


def test_a_dependency_build_still_running_when_pip_times_out_ends_with_it(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.app.install import deps

    pid_file = str(tmp_path / "build.pid")
    package = tmp_path / "slowpkg"
    package.mkdir()
    (package / "backend.py").write_text(BUILD_BACKEND.format(pid_file=pid_file))
    (package / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
        '[project]\nname = "slowpkg"\nversion = "0.1"\n'
    )
    manifest = {
        "id": "needsbuild",
        "name": "needsbuild",
        "description": "A test plugin.",
        "type": "subprocess",
        "config": {"command": "python", "args": ["main.py"]},
        "capabilities": [{"id": "go", "name": "Go", "description": "Do it.", "parameters": []}],
    }
    src = write_plugin(tmp_path / "src", manifest, {"main.py": "print('{}')\n"})
    (src / "requirements.txt").write_text(f"{package}\n")
    monkeypatch.setattr(deps, "PIP_TIMEOUT_SEC", 8)
    result = cli("plugin", "install", str(src), "--with-deps", "--yes", env={"PIP_NO_INDEX": "1"})
    assert result.exit_code == 1
    assert "took longer than 8s" in result.stderr
    build = int(Path(pid_file).read_text())
    try:
        assert gone_soon(build), f"the build {build} outlived pip's timeout"
    finally:
        _end(build)
