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

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, get_args

Effect = Literal["read", "write", "network", "destructive"]
Mode = Literal["ask", "auto", "never"]
Verdict = Literal["run", "ask", "refuse"]
Answer = Literal["yes", "no", "always"]

EFFECTS: tuple[Effect, ...] = get_args(Effect)
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

    def describe(self, max_chars: int = 200) -> str:
        """`notes__add_note(text="buy milk")`: the call as the user is asked about it."""
        args = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.arguments.items()
        )
        if len(args) > max_chars:
            args = args[: max_chars - 1] + "…"
        return f"{self.tool}({args})"

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


Asker = Callable[["ToolAction", str], Awaitable[Answer]]
"""Puts one call to the user (the action and why it is asked) and returns the answer."""


@dataclass(frozen=True)
class ApprovalRecord:
    """What happened to one call: run or not, and how that was decided (for trace and logs)."""

    allowed: bool
    how: str  # read-only | auto | asked | refused | no one to ask
    reason: str
    answer: Answer | None = None

    def describe(self) -> str:
        said = f" ({self.answer})" if self.answer else ""
        return f"{self.how}{said}: {self.reason}"


@dataclass
class ApprovalGate:
    """The policy plus whoever can answer; `ask` is None where nobody can (no terminal)."""

    policy: ApprovalPolicy
    ask: Asker | None = None
    on_decision: Callable[[ToolAction, ApprovalRecord], None] | None = None

    async def check(self, action: ToolAction, *, after_untrusted: bool) -> ApprovalRecord:
        decision = self.policy.decide(action, after_untrusted=after_untrusted)
        record = await self._record(action, decision)
        if self.on_decision is not None and not (record.allowed and record.how == "read-only"):
            self.on_decision(action, record)
        return record

    async def _record(self, action: ToolAction, decision: Decision) -> ApprovalRecord:
        if decision.verdict == "run":
            how = "read-only" if action.read_only else "auto"
            return ApprovalRecord(True, how, decision.reason)
        if decision.verdict == "refuse":
            return ApprovalRecord(False, "refused", decision.reason)
        if self.ask is None:
            return ApprovalRecord(False, "no one to ask", decision.reason)
        answer = await self.ask(action, decision.reason)
        if answer == "always":
            self.policy.allow_for_session(action)
        return ApprovalRecord(answer != "no", "asked", decision.reason, answer)


def held_text(action: ToolAction, record: ApprovalRecord) -> str:
    """What the user is told when the turn ends on a call that was not run."""
    call, key = action.describe(), action.rule_keys[0]
    if record.how == "asked":
        return f"not run: you declined {call}"
    if record.how == "refused":
        return f"not run: {call} is not allowed ({record.reason})"
    return (
        f"not run: {call} needs your approval ({record.reason}) and this session cannot ask; "
        f"allow it with --approve auto or --approve-rule {key}=auto"
    )


def refusal_text(action: ToolAction, record: ApprovalRecord) -> str:
    """What the model is told when a call was not run, and how the user can allow it."""
    key = action.rule_keys[0]
    if record.how == "asked":
        return f"the user declined {action.tool}; do not retry it, answer without it"
    if record.how == "refused":
        return f"{action.tool} is not allowed ({record.reason}); answer without it"
    return (
        f"{action.tool} needs the user's approval ({record.reason}) and no one can answer here; "
        f"it was not run. The user can allow it with `--approve auto` or the config key "
        f"tools.approve_rules: {{{key}: auto}}"
    )
