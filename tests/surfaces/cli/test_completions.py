from __future__ import annotations

import os
import subprocess
import sys

from homeclaw_cli.surfaces.cli.completions import completion_scripts
from tests.conftest import REPO_ROOT


def test_committed_completions_are_current() -> None:
    for filename, script in completion_scripts().items():
        committed = (REPO_ROOT / "completions" / filename).read_text()
        assert committed == script, f"completions/{filename} is stale: run `make completions`"


def test_bash_completion_completes_subcommands(hc_home: object) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "_HOMECLAW_COMPLETE": "complete_bash",
        "COMP_WORDS": "homeclaw plugin va",
        "COMP_CWORD": "2",
    }
    done = subprocess.run(
        [sys.executable, "-m", "homeclaw_cli"], env=env, capture_output=True, text=True, timeout=30
    )
    assert "validate" in done.stdout.split()
