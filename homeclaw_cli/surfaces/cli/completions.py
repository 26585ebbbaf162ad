"""Generate shell completion scripts for bash, zsh and fish into a folder.

`make completions` runs this; tests/surfaces/cli/test_completions.py checks the committed files are
current. The scripts call back into `homeclaw` (Typer's dynamic completion), so they stay
right as commands are added; what must be regenerated is only the wrapper itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

SHELLS = {"bash": "homeclaw.bash", "zsh": "_homeclaw", "fish": "homeclaw.fish"}


def completion_scripts() -> dict[str, str]:
    from typer._completion_shared import get_completion_script

    return {
        filename: get_completion_script(
            prog_name="homeclaw", complete_var="_HOMECLAW_COMPLETE", shell=shell
        ).rstrip("\n")
        + "\n"
        for shell, filename in SHELLS.items()
    }


def write_completions(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, script in completion_scripts().items():
        path = folder / filename
        path.write_text(script)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_completions(Path(sys.argv[1] if len(sys.argv) > 1 else "completions")):
        print(path)
