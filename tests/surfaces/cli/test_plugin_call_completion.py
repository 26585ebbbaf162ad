"""Shell completion (bash protocol, through the real entry point): plugin and skill ids for
every command that takes one, capabilities, `-p` parameter names, and choice values."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.index import write_plugin


def complete(run_cli: Any, words: str, **env_vars: str) -> list[str]:
    parts = shlex.split(words) + ([""] if words.endswith(" ") else [])
    env = {
        "_HOMECLAW_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
        **env_vars,
    }
    result = run_cli(env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_plugin_ids_and_capabilities_complete(run_cli: Any) -> None:
    assert complete(run_cli, "homeclaw plugin call tex") == ["textkit"]
    assert complete(run_cli, "homeclaw plugin call hashkit ") == ["hash", "base64", "uuid"]
    assert complete(run_cli, "homeclaw plugin health mcp-") == ["mcp-time"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    ["show", "call", "health", "enable", "disable", "unregister", "eval"],
)
def test_every_command_that_takes_a_plugin_id_completes_it(run_cli: Any, command: str) -> None:
    assert complete(run_cli, f"homeclaw plugin {command} tim") == ["timezones"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["show", "test", "enable", "disable", "eval"])
def test_every_command_that_takes_a_skill_id_completes_it(run_cli: Any, command: str) -> None:
    assert complete(run_cli, f"homeclaw skill {command} disk") == ["disk-usage"]


def test_param_names_complete_for_the_chosen_capability(run_cli: Any) -> None:
    words = "homeclaw plugin call units convert -p "
    assert complete(run_cli, words) == ["value=", "from_unit=", "to_unit="]
    assert complete(run_cli, words + "value=1 -p ") == ["from_unit=", "to_unit="]
    assert complete(run_cli, "homeclaw plugin call units -p fr") == ["from_unit="]
    assert complete(run_cli, "homeclaw plugin call hashkit -p ") == []  # which capability?


@pytest.mark.slow
def test_choice_values_complete(run_cli: Any) -> None:
    assert complete(run_cli, "homeclaw plugin search x --method h") == ["hybrid"]
    assert complete(run_cli, "homeclaw plugin new x --type s") == ["subprocess"]
    assert complete(run_cli, "homeclaw plugin new x --lang ") == ["python", "node"]
    assert complete(run_cli, "homeclaw chat --approve ") == ["ask", "auto", "never"]
    assert complete(run_cli, "homeclaw mcp serve --transport ") == ["stdio", "http"]


def test_plugin_ids_come_from_the_plugins_dir_on_the_line(run_cli: Any) -> None:
    write_plugin(Path("myplugins"), "lighthouse", "Lighthouse", "Blink the lamp.")
    assert complete(run_cli, "homeclaw plugin show ligh") == []
    words = "homeclaw --plugins-dir ./myplugins plugin show ligh"
    assert complete(run_cli, words) == ["lighthouse"]


def test_remove_and_update_complete_only_what_was_installed(run_cli: Any) -> None:
    """The bundled plugins and skills cannot be removed or updated: they are not offered."""
    write_plugin(Path("installed"), "lighthouse", "Lighthouse", "Blink the lamp.")
    Path("skills-in/tide-helper").mkdir(parents=True)
    dirs = {"HOMECLAW_PLUGINS__USER_DIR": "installed", "HOMECLAW_SKILLS__USER_DIR": "skills-in"}
    for command in ("remove", "update"):
        assert complete(run_cli, f"homeclaw plugin {command} ", **dirs) == ["lighthouse"]
        assert complete(run_cli, f"homeclaw plugin {command} tim", **dirs) == []
        assert complete(run_cli, f"homeclaw skill {command} ", **dirs) == ["tide-helper"]
        assert complete(run_cli, f"homeclaw skill {command} disk", **dirs) == []
    assert complete(run_cli, "homeclaw plugin show tim", **dirs) == ["timezones"]
