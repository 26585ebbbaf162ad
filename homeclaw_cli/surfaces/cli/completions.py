"""Shell completion scripts: `--show-completion [SHELL]` prints one, `--install-completion
[SHELL]` installs it, and `make completions` writes those of bash, zsh and fish into a folder.

tests/surfaces/cli/test_completions.py checks the committed files are current. The scripts call
back into `homeclaw` (Typer's dynamic completion), so they stay right as commands are added;
what must be regenerated is only the wrapper itself.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

PROG_NAME = "homeclaw"
COMPLETE_VAR = "_HOMECLAW_COMPLETE"
SHELLS = {"bash": "homeclaw.bash", "zsh": "_homeclaw", "fish": "homeclaw.fish"}
SHELL_OPTIONS = ("--show-completion", "--install-completion")


class Shell(StrEnum):
    """The shells Typer writes completion scripts for."""

    bash = "bash"
    zsh = "zsh"
    fish = "fish"
    powershell = "powershell"
    pwsh = "pwsh"


SHELL_NAMES = tuple(shell.value for shell in Shell)


def register_shell_completion() -> None:
    """Teach click Typer's ways of completing in each shell, which Typer does only when it adds
    its own completion options (add_completion, off for homeclaw)."""
    from typer._completion_classes import completion_init

    completion_init()


def completion_script(shell: str) -> str:
    from typer._completion_shared import get_completion_script

    script = get_completion_script(prog_name=PROG_NAME, complete_var=COMPLETE_VAR, shell=shell)
    return script.rstrip("\n") + "\n"


def completion_scripts() -> dict[str, str]:
    return {filename: completion_script(shell) for shell, filename in SHELLS.items()}


def write_completions(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, script in completion_scripts().items():
        path = folder / filename
        path.write_text(script)
        written.append(path)
    return written


def print_completion_script(ctx: typer.Context, shell: Shell | None) -> None:
    """Eager callback of `--show-completion`: print the script for `shell` and stop."""
    if shell is None or ctx.resilient_parsing:
        return
    typer.echo(completion_script(shell.value), nl=False)
    raise typer.Exit()


def install_completion_script(ctx: typer.Context, shell: Shell | None) -> None:
    """Eager callback of `--install-completion`: install the script for `shell` and stop."""
    if shell is None or ctx.resilient_parsing:
        return
    from typer._completion_shared import install

    _, path = install(shell=shell.value, prog_name=PROG_NAME, complete_var=COMPLETE_VAR)
    typer.secho(f"{shell.value} completion installed in {path}", fg="green")
    typer.echo("Completion will take effect once you restart the terminal")
    raise typer.Exit()


ShowCompletionOpt = Annotated[
    Shell | None,
    typer.Option(
        "--show-completion",
        metavar="[SHELL]",
        callback=print_completion_script,
        is_eager=True,
        expose_value=False,
        help="Print the completion script for SHELL (default: the current shell).",
    ),
]
InstallCompletionOpt = Annotated[
    Shell | None,
    typer.Option(
        "--install-completion",
        metavar="[SHELL]",
        callback=install_completion_script,
        is_eager=True,
        expose_value=False,
        help="Install completion for SHELL (default: the current shell).",
    ),
]


def name_the_current_shell(argv: list[str]) -> list[str]:
    """`argv` with the shell homeclaw runs in after a `--show-completion` or
    `--install-completion` given without one (at the end, or before another option).

    The options take a SHELL; click has no options whose value may be left out, so the
    current shell is filled in here. Left as it is when it cannot be detected: click then
    says the option wants a value.
    """
    from typer._completion_shared import _get_shell_name

    end = argv.index("--") if "--" in argv else len(argv)
    named: list[str] = []
    for i, word in enumerate(argv[:end]):
        named.append(word)
        bare = i + 1 == end or argv[i + 1].startswith("-")
        if word in SHELL_OPTIONS and bare and (current := _get_shell_name()) in SHELL_NAMES:
            named.append(current)
    return named + argv[end:]


if __name__ == "__main__":
    for path in write_completions(Path(sys.argv[1] if len(sys.argv) > 1 else "completions")):
        print(path)
