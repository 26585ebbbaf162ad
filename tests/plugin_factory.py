"""Write throwaway plugins into the test workspace (./plugins of the cwd, scanned by default)."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED = REPO_ROOT / "plugins"


def write_plugin(root: Path, manifest: dict[str, Any], files: dict[str, str] | None = None) -> Path:
    """Create <root>/<id>/plugin.yaml plus `files` (dedented) and return the folder."""
    folder = root / manifest["id"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    for name, text in (files or {}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return folder


def workspace_plugins() -> Path:
    """The cwd's ./plugins (the hc_home fixture puts the cwd in a temp folder)."""
    root = Path.cwd() / "plugins"
    root.mkdir(exist_ok=True)
    return root


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def todo_server(data_file: Path) -> Iterator[str]:
    """Run the bundled to-do plugin server on a free port; yields its base URL."""
    process = subprocess.Popen(
        [
            sys.executable,
            str(BUNDLED / "todo" / "server.py"),
            "--port",
            "0",
            "--data",
            str(data_file),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "listening on http://127.0.0.1:PORT"
        assert line.startswith("listening on "), line
        yield line.split()[-1]
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()
