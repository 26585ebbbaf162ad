from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.surfaces.cli.completions import (
    completion_script,
    completion_scripts,
    name_the_current_shell,
)
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


@pytest.mark.parametrize(
    ("shell", "other", "markers"),
    [("zsh", "/bin/bash", ["#compdef homeclaw", "compdef "]), ("bash", "/bin/zsh", ["COMPREPLY"])],
)
def test_show_completion_prints_the_script_of_the_shell_named(
    run_cli: Any, shell: str, other: str, markers: list[str]
) -> None:
    done = run_cli("--show-completion", shell, env={"SHELL": other})
    assert done.returncode == 0, done.stderr
    assert done.stdout == completion_script(shell)
    assert all(marker in done.stdout for marker in markers)


def test_show_completion_of_an_unknown_shell_names_the_choices(run_cli: Any) -> None:
    done = run_cli("--show-completion", "tcsh")
    assert done.returncode == 2 and not done.stdout
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish', 'powershell', 'pwsh'" in done.stderr


def test_install_completion_installs_for_the_shell_named(run_cli: Any, tmp_path: Path) -> None:
    done = run_cli("--install-completion", "zsh", env={"HOME": str(tmp_path), "SHELL": "/bin/bash"})
    assert done.returncode == 0, done.stderr
    assert "zsh completion installed" in done.stdout
    assert (tmp_path / ".zfunc" / "_homeclaw").read_text().strip() == completion_script(
        "zsh"
    ).strip()
    assert not (tmp_path / ".bashrc").exists()


def test_a_bare_completion_option_means_the_current_shell(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("typer._completion_shared._get_shell_name", lambda: "fish")
    assert cli("--show-completion").stdout == completion_script("fish")
    argv = ["--show-completion", "--debug", "--", "--install-completion"]
    assert name_the_current_shell(argv) == ["--show-completion", "fish", "--debug", "--", argv[-1]]
    assert name_the_current_shell(["--show-completion", "bash"]) == ["--show-completion", "bash"]
