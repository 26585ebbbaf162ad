"""`--help` everywhere: TEXT / INTEGER / PLUGIN_ID placeholders, no `<bool>`, a sensible order,
and the root's --debug accepted after the subcommand too."""

from __future__ import annotations

import re
from typing import Any

import click
import pytest
import typer.main
from typer.core import TyperGroup

from homeclaw_cli.surfaces.cli.main import app, hoist_global_flags


def commands() -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command of the CLI with its path, the root first."""
    found: list[tuple[tuple[str, ...], click.Command]] = []

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        found.append((path, command))
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))

    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    walk(root, ())
    return found


def command_paths() -> list[tuple[str, ...]]:
    return [path for path, _ in commands()]


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "homeclaw")
def test_help_shows_placeholders_not_python_types(cli: Any, path: tuple[str, ...]) -> None:
    result = cli(*path, "--help")
    assert result.exit_code == 0, result.output
    assert not re.search(r"<(bool|str|int|float|list\[.*?\]|path)>", result.stdout), result.stdout
    assert "{" not in result.stdout.split("\n\n")[1]  # the usage line: PLUGIN_ID, not {plugin_id}


def test_arguments_and_options_name_what_they_take(cli: Any) -> None:
    call = cli("plugin", "call", "--help").stdout
    assert "Usage: homeclaw plugin call [OPTIONS] PLUGIN_ID [CAPABILITY]" in call
    assert re.search(r"PLUGIN_ID\s+TEXT", call) and re.search(r"--param\s+-p\s+TEXT", call)
    search = cli("plugin", "search", "--help").stdout
    assert re.search(r"--limit\s+-n\s+INTEGER", search)
    assert re.search(r"--approve\s+ask\|auto\|never", cli("chat", "--help").stdout)
    assert "PLUGIN_ID" in cli("plugin", "show", "--help").stdout
    assert "SKILL_ID" in cli("skill", "show", "--help").stdout


def test_commands_are_listed_in_the_order_a_user_meets_them(cli: Any) -> None:
    def listed(*path: str) -> list[str]:
        text = cli(*path, "--help").stdout.split("Commands")[1]
        return re.findall(r"^│ ([a-z-]+)\s", text, re.MULTILINE)

    assert listed()[:4] == ["chat", "plugin", "skill", "sync"]
    plugin = listed("plugin")
    assert plugin[:4] == ["new", "validate", "install", "list"]
    assert plugin.index("update") < plugin.index("remove") < plugin.index("register")
    assert listed("skill")[:3] == ["new", "validate", "test"]


def test_debug_after_the_subcommand_shows_the_traceback(cli: Any) -> None:
    before = cli("--debug", "plugin", "show", "no-such-plugin")
    after = cli("plugin", "show", "no-such-plugin", "--debug")
    assert before.exit_code == after.exit_code == 4
    assert "Traceback" in after.stderr and "Traceback" in before.stderr
    assert "Traceback" not in cli("plugin", "show", "no-such-plugin").stderr


def test_only_flags_before_a_double_dash_are_hoisted() -> None:
    assert hoist_global_flags(["plugin", "list", "--debug"]) == ["--debug", "plugin", "list"]
    assert hoist_global_flags(["x", "--", "--debug"]) == ["x", "--", "--debug"]


# What rich reads as a markup tag and drops from --help: "[ids]", "[bold]" (escaped: "\[ids]").
_MARKUP_TAG = re.compile(r"(?<!\\)\[[a-zA-Z#/@][^\[\]]*\]")


def test_no_help_text_loses_a_bracketed_word_to_rich_markup() -> None:
    texts = [
        (" ".join(path), text)
        for path, command in commands()
        for text in [command.help or "", *(getattr(p, "help", "") or "" for p in command.params)]
    ]
    lost = [(where, tag.group(0)) for where, text in texts for tag in _MARKUP_TAG.finditer(text)]
    assert lost == []


def test_a_usage_error_off_a_terminal_is_plain_lines_and_help_keeps_its_panels(
    cli: Any,
) -> None:
    wrong = cli("plugin", "bogus")
    assert wrong.exit_code == 2
    assert "Error: No such command 'bogus'." in wrong.stderr
    assert not any(box in wrong.stderr for box in "╭│╰")
    assert "╭─ Commands" in cli("--help").stdout


GROUPS = [path for path, command in commands() if isinstance(command, TyperGroup)]


@pytest.mark.parametrize("path", GROUPS, ids=lambda p: " ".join(p) or "homeclaw")
def test_each_command_is_summed_up_in_one_line(
    cli: Any, path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wide terminal shows each command of a group on one line: a summary that runs on
    into the docstring's next line is broken where the source line ended."""
    monkeypatch.setenv("COLUMNS", "250")
    text = cli(*path, "--help").stdout
    rows = text.split("Commands")[1].splitlines()[1:-1]
    assert all(re.match(r"│ [a-z-]+\s", row) for row in rows if "─" not in row), text
