"""The `-p` examples that errors and help print are commands that run as written."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest

from homeclaw_cli.core.params import example_call
from homeclaw_cli.settings import load_settings
from homeclaw_cli.surfaces.cli.plugin_call import parse_params

# Bundled plugins that answer offline, without a server (network ones would need the internet).
OFFLINE = ("calculator", "hashkit", "textkit", "timezones", "units", "notes")


def hint_command(stderr: str) -> list[str]:
    match = re.search(r"^hint: e\.g\. homeclaw (.+?)(?: \(`homeclaw|$)", stderr, re.MULTILINE)
    assert match, stderr
    return shlex.split(match.group(1))


def offline_capabilities() -> list[tuple[str, str]]:
    from homeclaw_cli.catalog.registry import scan

    registry = scan(load_settings(env={"HOMECLAW_HOME": "/nonexistent-home"}))
    return [
        (pid, cap.id)
        for pid in OFFLINE
        for cap in registry.plugins[pid].manifest.callable_capabilities()
        if any(p.required and not p.has_default for p in cap.parameters)
        and set(cap.effects or ["read"]) == {"read"}  # a write may need data that exists
    ]


@pytest.mark.parametrize(("plugin_id", "capability"), offline_capabilities())
def test_the_missing_parameter_hint_runs(cli: Any, plugin_id: str, capability: str) -> None:
    failed = cli("plugin", "call", plugin_id, capability)
    assert failed.exit_code == 2
    command = hint_command(failed.stderr)
    assert command[:4] == ["plugin", "call", plugin_id, capability]
    ran = cli(*command)
    assert ran.exit_code == 0, (command, ran.output)


def test_the_which_capability_hint_runs(cli: Any) -> None:
    failed = cli("plugin", "call", "textkit")
    assert failed.exit_code == 2 and "name one" in failed.stderr
    assert cli(*hint_command(failed.stderr)).exit_code == 0


def test_the_key_value_hint_parses() -> None:
    from homeclaw_cli.errors import UsageError

    with pytest.raises(UsageError) as info:
        parse_params(["city"])
    example = (info.value.hint or "").removeprefix("e.g. ")
    values = parse_params([a for a in shlex.split(example) if a != "-p"])
    assert values == {"city": "Paris", "days": "3", "tags": ["a", "b"]}


def test_a_parameter_given_twice_is_refused() -> None:
    from homeclaw_cli.errors import UsageError

    with pytest.raises(UsageError, match="-p value is given twice"):
        parse_params(["value=5", "from_unit=mi", "value:=6"])


def test_example_call_fills_every_required_parameter() -> None:
    from homeclaw_cli.core.manifest import Capability

    cap = Capability.model_validate(
        {
            "id": "find",
            "name": "Find",
            "description": "Find.",
            "parameters": [
                {"name": "q", "type": "string", "description": "what, e.g. `lamp`"},
                {"name": "n", "type": "integer"},
                {"name": "mode", "type": "string", "enum": ["fast", "slow"]},
                {"name": "tags", "type": "array"},
                {"name": "opt", "type": "string", "required": False},
            ],
        }
    )
    assert example_call("shop", cap) == (
        "homeclaw plugin call shop find -p q=lamp -p n=1 -p mode=fast -p tags:='[]'"
    )
