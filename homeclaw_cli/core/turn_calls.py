"""The tool calls of one model reply: read them, run them, and tell the model what came back.

Calls come as structured `tool_calls`, as JSON written in the text (small models), or as the
`{"tool": ...}` object of the JSON `format` fallback; each is validated and run through the
turn's ToolRegistry, and its result (or error) goes back to the model as a message.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.core.action_claims import act_said
from homeclaw_cli.core.approval import ApprovalGate, ApprovalRecord, held_text, refusal_text
from homeclaw_cli.core.ports import ChatMessage, LLMReply, LLMToolCall, StatusSink, TextSink
from homeclaw_cli.core.tool_parse import (
    TOOL_NAME_SEPARATOR,
    parse_content_calls,
    parse_json_mode_reply,
    resolve_name,
    strip_think,
)
from homeclaw_cli.core.tool_registry import Tool, ToolOutcome, ToolRegistry
from homeclaw_cli.core.tool_text import MAX_TOOL_TEXT, fit_tool_text
from homeclaw_cli.core.trace import CallSource, DecisionCall, LlmStep, ToolStep, TraceStep
from homeclaw_cli.core.user_paths import complete_paths, user_paths

TOOL_OUTPUT_NAME = re.compile(r'<tool_output tool="([^"]+)">')  # tool_message's wrapper
MAX_SAME_CALL = 2  # the same tool with the same arguments, in one turn
MAX_CORRECTIONS = 1  # rounds a turn spends telling the model its call or answer was wrong
TRACE_OUTPUT_CHARS = 500
FAILURE_CHARS = 200  # of a failed call's last line, in the error of a turn without an answer


@dataclass
class TurnState:
    """What the rounds of one turn share: the conversation so far and what it produced."""

    message: str
    tools: ToolRegistry
    native: bool  # structured tool calls, else the JSON `format` fallback
    messages: list[ChatMessage]
    steps: list[TraceStep]
    on_text: TextSink | None = None
    answer: str | None = None
    pending_failure: str | None = None  # a plugin failed and no plugin succeeded since
    llm_seconds: float = 0.0
    tool_seconds: float = 0.0
    approval: ApprovalGate | None = None  # None: every valid call runs (tests, MCP)
    read_tool_output: bool = False  # the model has read text a tool returned in this turn
    calls_made: dict[str, int] = field(default_factory=dict)  # call signature -> times run
    own_from: int = 1  # messages[own_from:] are this turn's (the user's message onwards)
    # the tools whose results ended the turn, with their texts (one per need the model called)
    final_calls: list[tuple[str, str]] = field(default_factory=list)
    unread: str | None = None  # the last result that is the answer if the model gives none
    last_failure: tuple[str, str] | None = None  # the last call that failed, and what it said
    corrections: int = 0  # corrective rounds spent (bad call, call-shaped or claimed answer)
    bad_calls: list[str] = field(default_factory=list)  # what was wrong with calls, as told
    stopped: str | None = None  # the model's failure that ends the turn without an answer
    # The turn's first call was not run (declined, refused, or no one could be asked): it ends
    # the turn with what was not run, since all the model could add is an answer made up
    # without the tool (or the same call again).
    held: str | None = None
    decide: str = "never"  # llm.decide: never | auto | always (core/turn_decide.py)
    confident: bool = False  # retrieval's best plugin scored high enough for `auto`
    # a request with a number (digits or words) went to a plugin that takes figures and only
    # looks things up: `auto` checks a free answer stating a figure the request did not give
    figures: bool = False
    best_tool: str | None = None  # the sole read-only tool of retrieval's best plugin
    weak_tools: frozenset[str] = frozenset()  # plugin tools retrieval ranked weakly (doubt)
    weak_skills: frozenset[str] = frozenset()  # shown skills retrieval ranked weakly
    # words the user's own prompt files and the date hold: values found there are not made up
    known_words: frozenset[str] = frozenset()
    skills: frozenset[str] = frozenset()  # ids of the skills shown in this turn's prompt
    window: int = 1 << 30  # the model's context window, in tokens
    tool_room: int = 1 << 30  # tokens the window has left for tool results (core/tool_text.py)
    decided: bool = False  # the constrained decision was asked in this turn
    on_status: StatusSink | None = None

    @property
    def ended(self) -> bool:
        """The turn ends without an answer: the model failed, or its first call was held."""
        return bool(self.stopped or self.held)

    @property
    def tool_ran(self) -> bool:
        """A tool call has run (or been refused) in this turn: the model is past its first move."""
        return any(isinstance(s, ToolStep) for s in self.steps)

    def claims_action(self, text: str) -> bool:
        """True when `text` says something was done, or offers to do what the request orders,
        though no tool ran in this turn."""
        return not self.tool_ran and act_said(text, self.message) is not None

    def empty_answer_error(self) -> str:
        """The error of a turn that ended without an answer: the tools called, and the last
        line of what the last failed call said (a script's "error: ~/Downloads is not a
        folder"), so the user sees what went wrong."""
        calls = [s.name for s in self.steps if isinstance(s, ToolStep)]
        error = "the model gave an empty answer"
        if calls:
            error += f" after calling {', '.join(calls)}"
        name, text = self.last_failure or ("", "")
        if lines := text.strip().splitlines():
            error += f"; {name} said: {lines[-1].strip()[:FAILURE_CHARS]}"
        return error

    def status(self, what: str | None) -> None:
        """Tell the surface what the turn waits for (its spinner)."""
        if self.on_status is not None:
            self.on_status(what)

    def record_reply(
        self,
        reply: LLMReply,
        round_no: int,
        calls: list[str],
        source: CallSource | None,
        decision: DecisionCall | None = None,
    ) -> None:
        """Count a model reply's time and add its trace step (the tools it called, if any)."""
        self.llm_seconds += reply.seconds
        self.steps.append(
            LlmStep(
                seconds=reply.seconds,
                round=round_no,
                prompt_tokens=reply.prompt_tokens,
                eval_tokens=reply.eval_tokens,
                tool_calls=calls,
                call_source=source,
                decision=decision,
            )
        )

    def correct(self) -> bool:
        """Spend one corrective round; False when the turn has none left."""
        self.corrections += 1
        return self.corrections <= MAX_CORRECTIONS


@dataclass
class ModelMove:
    """What one reply asks for: tool calls (found in `source`), or else `answer`."""

    content: str  # the reply without its <think> block
    calls: list[LLMToolCall]
    source: CallSource
    answer: str


def shown_skills(state: TurnState) -> list[str]:
    """The skills shown this turn that a call may name, when read_skill is offered."""
    names = state.tools.names()
    return [s for s in state.skills if s not in names] if "read_skill" in names else []


def skill_calls_read(move: ModelMove, state: TurnState) -> ModelMove:
    """Calls named after a skill shown this turn (`disk-usage`, `data-inspect__stats`) become
    read_skill for it: small models call a skill like a tool, and its SKILL.md says how to
    run it. A name an offered tool has, or a skill not shown, is left to the correction."""
    names, skills = state.tools.names(), shown_skills(state)
    calls = [
        LLMToolCall("read_skill", {"skill": skill})
        if call.name not in names and (skill := call.name.split(TOOL_NAME_SEPARATOR)[0]) in skills
        else call
        for call in move.calls
    ]
    return ModelMove(move.content, calls, move.source, move.answer)


def calls_by_arguments(move: ModelMove, tools: ToolRegistry) -> ModelMove:
    """Calls whose arguments only another offered read-only tool takes go to that tool
    (core/tool_registry.py `meant_by_arguments`); the others are left as they are."""
    calls = [
        LLMToolCall(
            tools.meant_by_arguments(c.name, coerce_arguments(c.arguments)) or c.name, c.arguments
        )
        for c in move.calls
    ]
    return ModelMove(move.content, calls, move.source, move.answer)


def read_reply(reply: LLMReply, names: list[str], *, native: bool) -> ModelMove:
    """The calls in a reply; text calls count only when they name an offered tool."""
    content = strip_think(reply.content)
    if not native:
        answer, parsed = parse_json_mode_reply(content, names)
        calls = [LLMToolCall(parsed.name, parsed.arguments)] if parsed else []
        return ModelMove(content, calls, "json", content if answer is None else answer)
    if reply.tool_calls:
        # A name the model plainly meant (a bare capability id, a near spelling) is mended.
        calls = [
            LLMToolCall(resolve_name(c.name, names) or c.name, c.arguments)
            for c in reply.tool_calls
        ]
        return ModelMove(content, calls, "native", content)
    found = [LLMToolCall(c.name, c.arguments) for c in parse_content_calls(content, names)]
    return ModelMove(content, found, "content", content)


async def run_calls(state: TurnState, calls: list[LLMToolCall]) -> list[ToolOutcome]:
    """Run the calls in order; the successful plugin results end the turn and are returned
    ([] when none did: the other results went back to the model). A model that asks for two
    things in one reply ("5 miles in km and 17 times 23") gets both results.

    A call that cannot run as written (unknown tool, bad arguments) is answered with the
    problem once; a second one ends the turn (`state.stopped`) instead of looping."""
    paths = user_paths(_user_said(state))
    finals: list[ToolOutcome] = []
    seen: set[str] = set()
    for call in calls:
        arguments = _repaired(state, call, paths)
        signature = _signature(call.name, arguments)
        if signature in seen:  # a small model's reply that lists one call twice runs it once
            continue
        seen.add(signature)
        problem = state.tools.problem(call.name, arguments)
        if problem:
            state.bad_calls.append(problem)
        if problem and not state.correct():
            state.stopped = f"the model's tool call was still wrong after a correction: {problem}"
        outcome = await _run_call(state, LLMToolCall(call.name, arguments))
        if state.ended:
            return []
        if outcome.final and outcome.ok:
            state.final_calls.append((call.name, outcome.text[:MAX_TOOL_TEXT]))
            finals.append(outcome)
            continue
        content, tokens = fit_tool_text(
            outcome.text if outcome.ok else f"ERROR: {outcome.text}", state.tool_room
        )
        state.tool_room -= tokens
        state.messages.append(tool_message(call.name, content, native=state.native))
    return finals


def _repaired(state: TurnState, call: LLMToolCall, paths: frozenset[str]) -> Any:
    """The call's arguments with the safe repairs: the tool's (core/tool_registry.py), and
    the user's own path among `paths` for one the model shortened (core/user_paths.py)."""
    arguments = state.tools.coerce(call.name, coerce_arguments(call.arguments))
    tool = state.tools.get(call.name)
    keep = tool.choice_args if tool is not None else frozenset()
    return complete_paths(arguments, paths, keep)


def _user_said(state: TurnState) -> list[str]:
    """What the user typed in this conversation: the earlier requests and this one (not the
    corrections and JSON-mode tool results this turn sends as user messages)."""
    earlier = [
        str(m.get("content") or "")
        for m in state.messages[: state.own_from]
        if m.get("role") == "user"
    ]
    return [*(t for t in earlier if not TOOL_OUTPUT_NAME.search(t)), state.message]


async def _run_call(state: TurnState, call: LLMToolCall) -> ToolOutcome:
    started = time.perf_counter()
    arguments = call.arguments
    outcome, record = await _outcome(state, call.name, arguments)
    spent = time.perf_counter() - started
    state.tool_seconds += spent
    state.steps.append(
        ToolStep(
            seconds=spent,
            name=call.name,
            arguments=arguments,
            ok=outcome.ok,
            output=outcome.text[:TRACE_OUTPUT_CHARS],
            approval=record.describe() if record is not None else None,
        )
    )
    if outcome.ok and outcome.unread:
        state.unread = outcome.unread
    if not outcome.ok:
        state.last_failure = (call.name, outcome.text)
    if outcome.failed_for_good:
        state.pending_failure = outcome.text
    elif outcome.ok and _kind(state.tools, call.name) == "plugin":
        state.pending_failure = None
    return outcome


def _signature(name: str, arguments: Any) -> str:
    return name + json.dumps(arguments, sort_keys=True, default=str)


async def _outcome(
    state: TurnState, name: str, arguments: Any
) -> tuple[ToolOutcome, ApprovalRecord | None]:
    """Run the call unless it repeats itself or the user's policy holds it back."""
    signature = _signature(name, arguments)
    state.calls_made[signature] = state.calls_made.get(signature, 0) + 1
    if state.calls_made[signature] > MAX_SAME_CALL:
        # Small models loop on a call whose answer they already have: make them answer.
        repeated = (
            f"{name} was already called {MAX_SAME_CALL} times with these arguments in this "
            "turn; do not call it again, answer the user with what you have"
        )
        if not state.correct():
            state.stopped = f"the model kept repeating the same call to {name}"
        return ToolOutcome(False, repeated), None
    record = await _approve(state, name, arguments)
    if record is not None and not record.allowed:
        tool = state.tools.get(name)
        assert tool is not None  # approval is only asked for offered tools
        action = tool.action(arguments)
        if not state.read_tool_output:
            state.held = held_text(action, record)
        return ToolOutcome(False, refusal_text(action, record)), record
    state.read_tool_output = True
    state.status(f"running {name}")
    try:
        return await state.tools.execute(name, arguments), record
    finally:
        state.status(None)


async def _approve(state: TurnState, name: str, arguments: Any) -> ApprovalRecord | None:
    """The user's say on a valid call that is not read-only; None when no one is asked."""
    tool = state.tools.get(name)
    if state.approval is None or tool is None or state.tools.problem(name, arguments):
        return None  # an invalid call fails in execute without bothering anyone
    record = await state.approval.check(
        tool.action(arguments), after_untrusted=state.read_tool_output
    )
    return None if record.how == "read-only" else record


def _kind(tools: ToolRegistry, name: str) -> str:
    tool = tools.get(name)
    return tool.kind if tool else ""


def coerce_arguments(arguments: Any) -> Any:
    """Models sometimes send the arguments as a JSON string; anything else is checked later."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return arguments
    return {} if arguments is None else arguments


def resolved_calls(
    tools: ToolRegistry, calls: list[LLMToolCall]
) -> list[tuple[LLMToolCall, Tool, dict[str, Any]]]:
    """Each call with its tool and its arguments as an object; [] when any call names no
    offered tool or its arguments are no object (the turn's repairs deal with those)."""
    found = []
    for call in calls:
        tool = tools.get(call.name)
        arguments = coerce_arguments(call.arguments)
        if tool is None or not isinstance(arguments, dict):
            return []
        found.append((call, tool, arguments))
    return found


def assistant_message(content: str, calls: list[LLMToolCall]) -> ChatMessage:
    """The model's calling turn, as it goes back into the conversation."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"function": {"name": call.name, "arguments": _as_object(call.arguments)}}
            for call in calls
        ],
    }


def _as_object(arguments: Any) -> dict[str, Any]:
    coerced = coerce_arguments(arguments)
    return coerced if isinstance(coerced, dict) else {}


def tool_message(name: str, content: str, *, native: bool) -> ChatMessage:
    """A tool's result for the model, marked as data (never orders): a `tool` message, or
    user text in JSON mode."""
    # A closing tag inside the output must not end the data early.
    body = content.replace("</tool_output>", "</tool_output_>")
    wrapped = f'<tool_output tool="{name}">\n{body}\n</tool_output>'
    if native:
        return {"role": "tool", "content": wrapped, "tool_name": name}
    return {"role": "user", "content": f"Result of tool {name}:\n{wrapped}"}


def calls_and_results(state: TurnState) -> list[ChatMessage]:
    """A turn's messages from the user's on, with the results its answer came from (each
    after the call that asked for it, as chat APIs expect)."""
    results = [tool_message(name, text, native=state.native) for name, text in state.final_calls]
    return [*state.messages[state.own_from :], *results]
