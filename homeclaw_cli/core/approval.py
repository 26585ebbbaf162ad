"""Which tool calls the model may make on its own, and which need the user's say.

Every capability declares its effect on the world (`effects:` in the manifest, or the default
below). The policy maps effects to a decision:

  ask    (default) read-only calls run; anything else is put to the user (y / n / always for
         this session); where nobody can answer (one-shot without a terminal) it is refused
  auto   everything runs
  never  read-only calls run; anything else is refused without asking

`tools.approve_rules` (or `--approve-rule`) sets a mode per plugin (`notes`) or per capability
(`notes.delete`); the most specific rule wins, then the global mode.

Text the model read in this turn (a tool or plugin result, a web page) is data, not orders: once a
turn has read such content, a non-read call is asked about even when a per-plugin `auto` rule or
an earlier "always" answer would have run it. Only the global `--approve auto` (the user turning
approval off) still runs it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, get_args

Effect = Literal["read", "write", "network", "destructive"]
Mode = Literal["ask", "auto", "never"]
Verdict = Literal["run", "ask", "refuse"]

EFFECTS: tuple[Effect, ...] = get_args(Effect)
MODES: tuple[Mode, ...] = get_args(Mode)
READ_ONLY: frozenset[Effect] = frozenset({"read"})


@dataclass(frozen=True)
class ToolAction:
    """One call the model wants to make, as the policy and the user see it."""

    tool: str
    plugin_id: str | None
    capability_id: str | None
    effects: frozenset[Effect]
    arguments: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def read_only(self) -> bool:
        return self.effects <= READ_ONLY

    @property
    def rule_keys(self) -> list[str]:
        """Rule names that apply, most specific first: `plugin.capability`, `plugin`, tool."""
        keys = []
        if self.plugin_id and self.capability_id:
            keys.append(f"{self.plugin_id}.{self.capability_id}")
        if self.plugin_id:
            keys.append(self.plugin_id)
        if self.tool not in keys:
            keys.append(self.tool)
        return keys


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str


@dataclass
class ApprovalPolicy:
    """The user's standing answer to "may the model do this?", plus this session's answers."""

    mode: Mode = "ask"
    rules: dict[str, Mode] = field(default_factory=dict)
    session_allowed: set[str] = field(default_factory=set)

    def decide(self, action: ToolAction, *, after_untrusted: bool = False) -> Decision:
        """What to do with `action`; `after_untrusted`: this turn has read tool output."""
        if action.read_only:
            return Decision("run", "read-only")
        if self.mode == "auto" and not any(k in self.rules for k in action.rule_keys):
            return Decision("run", "approval is off (--approve auto)")
        key, mode = self._rule(action)
        if mode == "never":
            return Decision("refuse", f"{key or 'tools.approve'} is `never`")
        if mode == "auto":
            if after_untrusted and key is not None:
                return Decision("ask", "it follows content read in this turn")
            return Decision("run", f"{key or 'tools.approve'} is `auto`")
        granted = next((k for k in action.rule_keys if k in self.session_allowed), None)
        if granted is not None:
            if after_untrusted:
                return Decision("ask", "it follows content read in this turn")
            return Decision("run", f"always allowed for this session ({granted})")
        return Decision("ask", f"it may {describe_effects(action.effects)}")

    def allow_for_session(self, action: ToolAction) -> None:
        """The user answered "always": the same capability runs without asking until exit."""
        self.session_allowed.add(action.rule_keys[0])

    def _rule(self, action: ToolAction) -> tuple[str | None, Mode]:
        for key in action.rule_keys:
            if key in self.rules:
                return key, self.rules[key]
        return None, self.mode


def describe_effects(effects: Iterable[Effect]) -> str:
    words = {
        "read": "read information",
        "write": "create or change data",
        "network": "send data over the network",
        "destructive": "delete data or do what cannot be undone",
    }
    named = [words[e] for e in EFFECTS if e in set(effects) and e != "read"]
    return " and ".join(named) or "read information"
