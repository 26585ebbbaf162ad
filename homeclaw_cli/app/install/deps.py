"""`--with-deps`: pip install a plugin's requirements.txt into its own staged folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from homeclaw_cli.catalog.plugin_files import DEPS_DIRNAME, REQUIREMENTS_FILE
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.runtime.leftovers import CALL_ENV, end_leftovers, new_call_token

PIP_TIMEOUT_SEC = 900


def install_requirements(folder: Path, item_id: str) -> Path:
    """pip install `<folder>/requirements.txt` into `<folder>/.homeclaw-deps`."""
    target = folder / DEPS_DIRNAME
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-input",
        "--disable-pip-version-check",
        "--quiet",
        "--target",
        str(target),
        "-r",
        str(folder / REQUIREMENTS_FILE),
    ]
    token = new_call_token()
    env = {**os.environ, CALL_ENV: token}
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=PIP_TIMEOUT_SEC,
            check=False,
            cwd=folder,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise HomeclawError(
            f"installing the dependencies of {item_id} took longer than {PIP_TIMEOUT_SEC}s"
        ) from None
    finally:
        # A timeout kills pip alone; the build of a package it started would go on.
        end_leftovers(token)
    if proc.returncode != 0:
        output = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise HomeclawError(
            f"installing the dependencies of {item_id} failed, nothing was installed; pip said:\n"
            + "\n".join("  " + line for line in output[-12:]),
            hint=f"check {REQUIREMENTS_FILE} in the plugin, or install without --with-deps",
        )
    return target
