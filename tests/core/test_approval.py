"""The approval policy: which model tool calls run, are asked about, or are refused."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.approval import ApprovalPolicy, Effect, ToolAction
from homeclaw_cli.core.manifest import PluginManifest


def action(*effects: Effect, plugin: str = "notes", cap: str = "add_note") -> ToolAction:
    return ToolAction(f"{plugin}__{cap}", plugin, cap, frozenset(effects))


def test_read_only_calls_run_and_others_are_asked_by_default() -> None:
    policy = ApprovalPolicy()
    assert policy.decide(action("read")).verdict == "run"
    decision = policy.decide(action("write"))
    assert decision.verdict == "ask" and "create or change data" in decision.reason
    assert policy.decide(action("network")).verdict == "ask"


def test_never_refuses_without_asking_and_auto_runs_everything() -> None:
    assert ApprovalPolicy(mode="never").decide(action("destructive")).verdict == "refuse"
    assert ApprovalPolicy(mode="never").decide(action("read")).verdict == "run"
    assert ApprovalPolicy(mode="auto").decide(action("destructive")).verdict == "run"


def test_the_most_specific_rule_wins() -> None:
    policy = ApprovalPolicy(rules={"notes": "auto", "notes.delete_note": "never"})
    assert policy.decide(action("write")).verdict == "run"
    refused = policy.decide(action("destructive", cap="delete_note"))
    assert refused.verdict == "refuse" and "notes.delete_note" in refused.reason
    # A rule still applies when approval is otherwise off.
    off = ApprovalPolicy(mode="auto", rules={"notes.delete_note": "ask"})
    assert off.decide(action("destructive", cap="delete_note")).verdict == "ask"


def test_always_for_this_session_covers_only_that_capability() -> None:
    policy = ApprovalPolicy()
    policy.allow_for_session(action("write"))
    assert policy.decide(action("write")).verdict == "run"
    assert policy.decide(action("destructive", cap="delete_note")).verdict == "ask"


@pytest.mark.parametrize(
    "policy",
    [ApprovalPolicy(rules={"notes": "auto"}), ApprovalPolicy(session_allowed={"notes.add_note"})],
)
def test_after_content_read_in_the_turn_standing_permissions_ask_again(
    policy: ApprovalPolicy,
) -> None:
    assert policy.decide(action("write")).verdict == "run"
    held = policy.decide(action("write"), after_untrusted=True)
    assert held.verdict == "ask" and "content read in this turn" in held.reason
    # Reading stays free, and the user's global choice to turn approval off is honoured.
    assert policy.decide(action("read"), after_untrusted=True).verdict == "run"
    off = ApprovalPolicy(mode="auto").decide(action("write"), after_untrusted=True)
    assert off.verdict == "run"


def manifest(**extra: object) -> PluginManifest:
    cap = {"id": "c", "name": "C", "description": "d", **extra.pop("cap", {})}  # type: ignore[dict-item]
    return PluginManifest.model_validate(
        {"id": "p", "name": "P", "description": "d", "capabilities": [cap], **extra}
    )


def test_effects_are_declared_per_capability_or_plugin_else_inferred() -> None:
    m = manifest(cap={"effects": ["write", "network"]})
    assert m.effects_of(m.capabilities[0]) == {"write", "network"}
    m = manifest(effects="read")
    assert m.effects_of(m.capabilities[0]) == {"read"}
    m = manifest(type="http", config={"base_url": "http://x"}, cap={"method": "GET", "path": "/"})
    assert m.effects_of(m.capabilities[0]) == {"read"}
    m = manifest()
    assert m.effects_of(m.capabilities[0]) == {"write"}  # undeclared: treated as a change
