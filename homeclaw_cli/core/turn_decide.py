"""The constrained decision: when a model's first move disagrees with what retrieval found.

Small models often skip a retrieved plugin and answer from memory (badly: 350F to Celsius as
LaTeX) or invent its output. When the free round ended without a call and retrieval was
confident (`llm.decide: auto`, or whenever a plugin was offered with `always`), two short
structured-output requests follow, before that answer is shown: one whose JSON schema is an
enum of the offered tools plus "answer", and, if a tool was picked, one whose schema is that
tool's parameters. Constrained decoding (Ollama `format`, OpenAI `response_format`) makes both
well-formed, and each is a far easier task for a small model than the free round. When
retrieval was sure, its best plugin has one capability that only reads, and the answer states a
figure the request did not give, the first question is skipped and that capability is called:
asked, small models keep the figures they worked out themselves.

The other way round, the same models call whatever is offered ("how do u say good morning in
spanish" -> the world clock, retrieved at 0.32; "90 mins is how many hours" -> the world clock
beside units). A first call only to plugins retrieval ranked weakly (below
`AgentConfig.doubt_below`) gets the same tool-or-answer question before it runs: another
offered tool it picks is called instead, "answer" turns the call into a plain answer.

Asked to write something (a blog post, an email), they also call tools of their own naming;
when retrieval was sure of no plugin, such a first move is answered plainly instead.

A call to a weakly ranked plugin or skill whose values are in no message of the conversation
(the world clock for "Spain" when the user asked how to say good morning in Spanish; a skill
run on its SKILL.md example's folder, core/grounding.py) is not run: the model answers
without tools instead. Before the question above, as it needs no model call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from homeclaw_cli.core.agent_prompt import date_block
from homeclaw_cli.core.capability_tools import tool_name
from homeclaw_cli.core.figures import holds_figures, new_figures
from homeclaw_cli.core.grounding import conversation_text, copied, made_up, words
from homeclaw_cli.core.manifest import Parameter, PluginManifest
from homeclaw_cli.core.ports import (
    LLM,
    ChatMessage,
    LLMReply,
    LLMToolCall,
    ToolCallFunction,
)
from homeclaw_cli.core.retrieval import RetrievalResult
from homeclaw_cli.core.tool_parse import ANSWER_TOOL, strip_think, strip_wrappers
from homeclaw_cli.core.tool_registry import Tool, ToolRegistry
from homeclaw_cli.core.trace import SkippedCallStep
from homeclaw_cli.core.turn_calls import ModelMove, TurnState, resolved_calls

DECIDE_MODES = ("never", "auto", "always")
HISTORY_MESSAGES = 2  # the previous exchange, so a follow-up ("and in pounds?") is understood
# Under a JSON schema a small model can loop on whitespace or a string until the context is
# full (8,051 tokens, 413 s on a 2-core CPU, for one tool's arguments): a pick is a few
# tokens, arguments a short object, so each structured request is capped.
PICK_MAX_TOKENS = 48
ARGUMENTS_MAX_TOKENS = 256
DECIDE_SYSTEM = (
    "Pick the tool that does what the user asks, or `answer` when no tool is needed. Tools:"
)
ANSWER_SYSTEM = "Answer the user's request yourself, briefly. No tool is needed."
ARGUMENTS_SYSTEM = "Write the arguments of the tool `{name}` for the user's request, with the "
ARGUMENTS_SYSTEM += "user's own values. {name}: {description}"


def weakly_retrieved(
    plugins: RetrievalResult, skills: RetrievalResult | None, tools: ToolRegistry, below: float
) -> tuple[frozenset[str], frozenset[str]]:
    """The offered plugin tools whose plugin, and the shown skills, retrieval scored `below`."""
    scores = {h.id: h.score for h in plugins.hits}
    weak_tools = frozenset(
        t.name
        for t in tools.tools()
        if t.kind == "plugin" and scores.get(t.plugin_id or "", 0.0) < below
    )
    weak_skills = frozenset(h.id for h in skills.hits if h.score < below) if skills else frozenset()
    return weak_tools, weak_skills


def figures_to_check(
    retrieved: RetrievalResult, message: str, offered: Sequence[PluginManifest]
) -> bool:
    """Whether the request holds a number (in digits or words) and retrieval's best plugin
    takes figures and only looks things up ("how many grams is 3 ounces": units, at 0.45 under
    the confident score; "what is twelve times eight": the calculator): small models work such
    figures out from memory, and get them wrong."""
    plugin = _best_plugin(retrieved, offered)
    if plugin is None or not holds_figures(message):
        return False
    capabilities = plugin.callable_capabilities()
    takes_figures = any(_takes_figures(p) for c in capabilities for p in c.parameters)
    return takes_figures and all(plugin.effects_of(c) == {"read"} for c in capabilities)


def _takes_figures(parameter: Parameter) -> bool:
    """A number, or text whose example is figures (the calculator's "17.5% of 240")."""
    if parameter.type in ("number", "integer"):
        return True
    return parameter.example is not None and holds_figures(str(parameter.example))


def sole_reading_tool(retrieved: RetrievalResult, offered: Sequence[PluginManifest]) -> str | None:
    """The tool of retrieval's best plugin when it is the plugin's one callable capability and
    only looks things up: what a sure turn calls when the model's answer states figures of its
    own ("120 / 8 * 3 = 54" for "and times 3?", in the calculator's own format, made up)."""
    plugin = _best_plugin(retrieved, offered)
    capabilities = plugin.callable_capabilities() if plugin is not None else []
    if plugin is None or len(capabilities) != 1 or plugin.effects_of(capabilities[0]) != {"read"}:
        return None
    return tool_name(plugin.id, capabilities[0].id)


def _best_plugin(
    retrieved: RetrievalResult, offered: Sequence[PluginManifest]
) -> PluginManifest | None:
    """The offered manifest of the plugin retrieval ranked first, if it was offered."""
    top = retrieved.hits[0].id if retrieved.hits else None
    return next((m for m in offered if m.id == top), None)


def wants_decision(state: TurnState) -> bool:
    """True when a free answer in this turn gets the constrained decision first."""
    if state.decide == "never" or not state.native:
        return False
    if state.tool_ran:
        return False
    if not any(t.kind == "plugin" for t in state.tools.tools()):
        return False
    return state.decide == "always" or state.confident or state.figures


async def second_look(llm: LLM, state: TurnState, move: ModelMove, round_no: int) -> ModelMove:
    """The move after the constrained decision: a call to the picked tool, or `move` as is."""
    if not wants_decision(state) or state.decided:
        return move
    if (
        state.decide == "auto"
        and not state.confident
        and not new_figures(move.answer, state.message)
    ):
        return move  # checked for its figures only, and it states none of its own
    state.decided = True
    # Retrieval was sure, the plugin computes, and the model gave figures of its own instead:
    # asked, it keeps its answer, so the plugin is called without asking.
    computes = state.confident and new_figures(move.answer, state.message)
    name = state.best_tool if computes and state.best_tool in state.tools.names() else None
    name = name or await _pick(llm, state, round_no)
    call = await _call_to(llm, state, name, round_no) if name is not None else None
    if call is None:
        return move
    return ModelMove(move.content, [call], "decided", move.answer)


async def _call_to(llm: LLM, state: TurnState, name: str, round_no: int) -> LLMToolCall | None:
    """A call to the offered tool `name`, its arguments asked for under its own schema."""
    tool = state.tools.get(name)
    if tool is None:
        return None
    system = ARGUMENTS_SYSTEM.format(name=tool.name, description=tool.description)
    schema = _arguments_schema(tool)
    messages = _messages(state, system)
    arguments, reply = await _ask(llm, messages, schema, state, max_tokens=ARGUMENTS_MAX_TOKENS)
    usable = isinstance(arguments, dict)
    state.record_reply(reply, round_no, [tool.name] if usable else [], "decided", "arguments")
    return LLMToolCall(tool.name, arguments) if usable else None


def wants_doubt(state: TurnState, move: ModelMove) -> bool:
    """True when this move's calls are checked first: every one is to a weakly retrieved
    plugin, and nothing has run yet in this turn."""
    if state.decide == "never" or not state.native or state.decided or not move.calls:
        return False
    if state.tool_ran:
        return False
    return all(call.name in state.weak_tools for call in move.calls)


async def doubt(llm: LLM, state: TurnState, move: ModelMove, round_no: int) -> ModelMove:
    """After the tool-or-answer question: `move` as is when it picks a tool `move` calls, a
    call to the other tool it picks (asked for like the decision's), or a plain answer."""
    if not wants_doubt(state, move):
        return move
    state.decided = True
    picked = await _pick(llm, state, round_no)
    if picked is None or picked in {call.name for call in move.calls}:
        return move
    if picked != ANSWER_TOOL:
        call = await _call_to(llm, state, picked, round_no)
        if call is None:
            return move
        # The question chose the tool, so a value from nowhere stands; one copied from the
        # tool's description does not (small models fill the arguments in from it).
        decided = ModelMove(move.content, [call], "decided", move.answer)
        return await answer_unfounded(llm, state, decided, round_no, weak_too=False)
    return await _plain_answer(llm, state, round_no)


def invents_tools(state: TurnState, move: ModelMove) -> bool:
    """True when every call of this move, the turn's first, names a tool nobody offered (no
    near spelling, no shown skill: those were resolved before), and retrieval was sure of no
    plugin (a confident one gets the correction naming the offered tools instead)."""
    if state.confident or not move.calls or state.tool_ran:
        return False
    return all(call.name not in state.tools for call in move.calls)


async def answer_instead(llm: LLM, state: TurnState, move: ModelMove, round_no: int) -> ModelMove:
    """A plain answer for a first move that only calls invented tools, `move` otherwise.

    Asked to write a blog post, an email or a program, small models dress the answer up as a
    call to a tool of their own naming (`hawaii-travel-blog-post`, `write_movie_review`); told
    the tool does not exist, they reply that it does not. What they meant is the answer."""
    if not invents_tools(state, move):
        return move
    return await _plain_answer(llm, state, round_no)


def made_up_calls(
    state: TurnState, move: ModelMove, *, weak_too: bool = True
) -> list[tuple[LLMToolCall, str]]:
    """Each call of `move` with why its values are made up, when every call has some: free
    text the model copied from the tool's own description, or (`weak_too`), for a plugin or
    skill retrieval ranked weakly, free text found nowhere in the conversation; else []."""
    if state.decide == "never" or not move.calls:
        return []
    conversation = conversation_text(state.messages)
    said = words(conversation) | state.known_words
    found = []
    for call, tool, arguments in resolved_calls(state.tools, move.calls):
        if values := copied(tool, arguments, conversation):
            found.append((call, f"copied {_shown(values)} from the tool's own description"))
            continue
        weak = weak_too and _weak(state, tool, arguments)
        values = made_up(tool, arguments, said) if weak else []
        if not values:
            return []
        found.append(
            (call, f"made up {_shown(values)}: in no message of the conversation, and a weak match")
        )
    return found


def _shown(values: list[str]) -> str:
    return ", ".join(repr(v) for v in values)


def _weak(state: TurnState, tool: Tool, arguments: dict[str, Any]) -> bool:
    """A plugin tool retrieval ranked weakly, or a skill tool called for a weak skill."""
    if tool.kind == "skill":
        return any(str(arguments.get(k)) in state.weak_skills for k in tool.choice_args)
    return tool.name in state.weak_tools


async def answer_unfounded(
    llm: LLM, state: TurnState, move: ModelMove, round_no: int, *, weak_too: bool = True
) -> ModelMove:
    """A plain answer instead of calls whose values are made up (`made_up_calls`), `move`
    otherwise; the trace says which calls were not run and why."""
    found = made_up_calls(state, move, weak_too=weak_too)
    if not found:
        return move
    for call, reason in found:
        state.steps.append(SkippedCallStep(0.0, call.name, call.arguments, reason))
    return await _plain_answer(llm, state, round_no)


async def _plain_answer(llm: LLM, state: TurnState, round_no: int) -> ModelMove:
    """The model's answer to the request without tools, as this turn's move."""
    state.status("thinking")
    try:
        reply = await llm.chat(_messages(state, ANSWER_SYSTEM))
    finally:
        state.status(None)
    state.record_reply(reply, round_no, [], None, "answer")
    answer = strip_think(reply.content)
    return ModelMove(answer, [], "decided", answer)


async def _pick(llm: LLM, state: TurnState, round_no: int) -> str | None:
    """The tool name (or "answer") the constrained question picks; None when unusable."""
    tools = [t for t in state.tools.tools() if t.kind != "search"]
    picked, reply = await _ask(
        llm,
        _messages(state, _decide_system(tools)),
        {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "enum": [*(t.name for t in tools), ANSWER_TOOL]}
            },
            "required": ["tool"],
        },
        state,
        max_tokens=PICK_MAX_TOKENS,
    )
    name = picked.get("tool") if isinstance(picked, dict) else None
    name = name if isinstance(name, str) else None
    calls = [name] if name is not None and name != ANSWER_TOOL else []
    state.record_reply(reply, round_no, calls, "decided", "pick")
    return name


def _decide_system(tools: list[Tool]) -> str:
    lines = [DECIDE_SYSTEM]
    lines += [f"- {t.name}: {t.description}" for t in tools]
    lines.append(f"- {ANSWER_TOOL}: reply to the user yourself")
    return "\n".join(lines)


def _messages(state: TurnState, system: str) -> list[ChatMessage]:
    """The request with the previous exchange (its calls written out; not this turn's tool
    traffic), and the date as the turn's own prompt gives it (an answer without tools may
    need it)."""
    earlier = _with_calls_written_out(state.messages[1 : state.own_from])
    return [
        {"role": "system", "content": f"{system}\n{date_block(date.today()).text}"},
        *earlier[-HISTORY_MESSAGES:],
        {"role": "user", "content": state.message},
    ]


def _with_calls_written_out(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Each earlier user message and answer, an answer that tools gave led by the calls that
    gave it (`units__convert {"value": 26.2, ...}`). Without them a follow-up's arguments are
    guessed from the answer alone: "and in meters?" after "26.2 mi = 42.1648 km" became
    42.1648 mi, "and 20%?" after 15% of 80 became "15% of 80 + 20% of 80"."""
    plain: list[ChatMessage] = []
    calls: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls += [_call_text(c["function"]) for c in message["tool_calls"]]
        elif role == "assistant":
            plain.append({"role": role, "content": "\n".join([*calls, message["content"]])})
            calls = []
        elif role == "user":
            plain.append(message)
            calls = []
    return plain


def _call_text(function: ToolCallFunction) -> str:
    arguments = json.dumps(function.get("arguments") or {}, ensure_ascii=False)
    return f"{function.get('name', '')} {arguments}"


def _arguments_schema(tool: Tool) -> dict[str, Any]:
    schema = dict(tool.parameters)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


async def _ask(
    llm: LLM, messages: list[ChatMessage], schema: Any, state: TurnState, *, max_tokens: int
) -> tuple[Any, LLMReply]:
    """One structured-output request; its JSON (None when it is not JSON, e.g. cut short) and
    the reply, for the caller's trace step."""
    state.status("thinking")
    try:
        reply = await llm.chat(messages, format=schema, max_tokens=max_tokens)
    finally:
        state.status(None)
    try:
        data = json.loads(strip_wrappers(reply.content))
    except json.JSONDecodeError:
        data = None
    return data, reply
