"""Every `plugin new` scaffold answers `homeclaw plugin call` as created."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

COMBOS = [
    ("inline", "python"),
    ("subprocess", "python"),
    ("subprocess", "node"),
    ("mcp", "python"),
    ("mcp", "node"),
    ("http", "python"),
    ("http", "node"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("ptype", "lang"), COMBOS)
def test_scaffold_answers_plugin_call(cli: Any, hc_home: Path, ptype: str, lang: str) -> None:
    if lang == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    plugin_id = f"new-{ptype}-{lang}"
    made = cli("plugin", "new", plugin_id, "-t", ptype, "--lang", lang, "--dir", "plugins")
    assert made.exit_code == 0, made.output
    folder = Path("plugins") / plugin_id
    server = None
    if ptype == "http":
        port = re.search(r"base_url: http://127.0.0.1:(\d+)", (folder / "plugin.yaml").read_text())
        assert port is not None
        cmd = [sys.executable, "server.py"] if lang == "python" else ["node", "server.js"]
        server = subprocess.Popen(
            cmd,
            cwd=folder,
            env={**os.environ, "PORT": port.group(1)},
            stdout=subprocess.PIPE,
            text=True,
        )
        assert server.stdout is not None
        assert "listening" in server.stdout.readline()  # ready: no sleeping
    try:
        result = cli("plugin", "call", plugin_id, "greet", "-p", "name=Ada")
        assert result.exit_code == 0, result.output
        assert result.stdout.strip() == "Hello, Ada!"
        missing = cli("plugin", "call", plugin_id, "greet", "-p", "name= ")
        assert missing.exit_code == 1
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
            assert server.stdout is not None
            server.stdout.close()
