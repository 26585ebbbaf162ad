"""One chat turn: retrieve -> prompt -> model -> tools -> answer (seed 000 §5, seed 002 §1-3).

The loop depends only on small Protocols (the LLM and the Retriever in core/ports.py;
PluginCallerLike and SkillRunner below), so it runs against fakes in tests and against Ollama,
the LanceDB retrieval, the plugin runners and the skill runner in `app/chat.py`.

Here: the Agent (history, services) and the turn's outline. The tools a turn offers are in
core/turn_tools.py, one model round in core/turn_round.py, tool-call handling in
core/turn_calls.py (each result cut to the room the window has left, core/tool_text.py), the
parts of a request its calls left open in core/turn_needs.py, what a turn returns in
core/turn_result.py and how it ended in core/turn_outcome.py, and the trace steps in
core/trace.py.

Tool design: one tool per capability of the retrieved plugins (`<plugin>__<capability>`,
built by core/capability_tools.add_plugin_tools), not one generic route_to_plugin(plugin_id,
capability_id, parameters). Measured (benchmarks/bench_agent.py, 5 retrieved eval plugins):
1,707 prompt tokens against 1,008 for route_to_plugin with the parameters documented in the
prompt. We pay that because it is bounded by `max_in_prompt` (it never grows with what is
installed) and buys correctness with small models: each parameter is typed in the schema the
model's tool template renders natively, the JSON `format` fallback can pin the tool name to an
enum of exactly the valid plugin/capability pairs, and a bad call is reported against the tool
the model named instead of inside a free-form `parameters` object.
Plugins found mid-turn by search_plugins get their tools added for the next round.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from homeclaw_cli.core.agent_prompt import (
    build_system_prompt,
    json_tools_text,
    read_workspace,
)
from homeclaw_cli.core.approval import ApprovalGate
from homeclaw_cli.core.capability_tools import plugin_ids, ranked_capabilities
from homeclaw_cli.core.follow_up import asks_anew, may_ask_anew, read_with
from homeclaw_cli.core.grounding import words
from homeclaw_cli.core.history import fitting_history
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.ports import (
    LLM,
    ChatMessage,
    PluginCallerLike,
    Retriever,
    SkillRunner,
    StatusSink,
    TextSink,
)
from homeclaw_cli.core.retrieval import RELATIVE_MARGIN, RetrievalHit, RetrievalResult, cut_across
from homeclaw_cli.core.tokens import estimate_tokens
from homeclaw_cli.core.tool_registry import ToolRegistry
from homeclaw_cli.core.tool_text import window_room
from homeclaw_cli.core.trace import PromptStep, RetrieveStep
from homeclaw_cli.core.turn_calls import TOOL_OUTPUT_NAME, TurnState, calls_and_results
from homeclaw_cli.core.turn_decide import figures_to_check, sole_reading_tool, weakly_retrieved
from homeclaw_cli.core.turn_needs import join_part, open_needs
from homeclaw_cli.core.turn_outcome import settle
from homeclaw_cli.core.turn_result import TurnResult, hit_summaries
from homeclaw_cli.core.turn_round import run_round
from homeclaw_cli.core.turn_tools import TurnToolContext, build_turn_tools

CONTEXT_SHARE = 0.75  # of the window for the prompt; the rest is left for tool results + reply
# A first call only to plugins retrieved below this gets the tool-or-answer question first, and
# a call to them (or to skills below it) with made-up values is not run (core/turn_decide.py;
# benchmarks/llm/TURN.md: no-plugin requests retrieve up to 0.37, right plugins from 0.30).
DOUBT_BELOW = 0.35
DECIDE_MIN_SCORE = 0.5  # benchmarks/llm/TURN.md: right-plugin hits 0.4-0.7, greetings to 0.49


ManifestLookup = Callable[[str], PluginManifest | None]


@dataclass
class AgentConfig:
    max_rounds: int = 6
    tool_mode: str = "auto"  # auto | native | json
    max_search_results: int = 5
    workspace_dirs: list[Path] = field(default_factory=list)
    context_tokens: int = 4096  # the model's window; history and tool results are cut to fit
    search_tools: bool = True  # offer search_plugins / search_skills (llm.search_tools)
    decide: str = "never"  # the constrained decision (llm.decide): never | auto | always
    decide_min_score: float = DECIDE_MIN_SCORE  # retrieval score `auto` counts as confident
    doubt_below: float = DOUBT_BELOW  # calls only to plugins (skills) scored below are checked
    # Plugins and skills compete: one this far under the other kind's best is not offered.
    plugin_margin: float = RELATIVE_MARGIN
    skill_margin: float = RELATIVE_MARGIN
    # A part of a two-need request that no call served gets a turn of its own (turn_needs.py).
    each_need: bool = True


class Agent:
    """A chat session: history plus the services one turn needs."""

    def __init__(
        self,
        *,
        llm: LLM,
        retriever: Retriever,
        caller: PluginCallerLike,
        manifests: ManifestLookup,
        skills: SkillRunner | None = None,
        builtins: ToolRegistry | None = None,
        config: AgentConfig | None = None,
        approval: ApprovalGate | None = None,
        unavailable: Callable[[PluginManifest], str | None] | None = None,
    ) -> None:
        """`unavailable` says why a retrieved plugin cannot be offered now (a key not set, its
        server down), None when it can."""
        self.llm = llm
        self.unavailable = unavailable
        self.approval = approval  # None: every valid call runs
        self.retriever = retriever
        self.caller = caller
        self.manifests = manifests
        self.skills = skills
        self.builtins = builtins or ToolRegistry()
        self.config = config or AgentConfig()
        self.exchanges: list[list[ChatMessage]] = []  # one per answered turn, oldest first
        self.last: TurnResult | None = None
        self.last_plugins: list[str] = []  # the plugins the previous answered turn called
        self._native: bool | None = None

    @property
    def history(self) -> list[ChatMessage]:
        """Every message of the earlier turns, tool calls and results included."""
        return [m for exchange in self.exchanges for m in exchange]

    def dialogue(self) -> list[ChatMessage]:
        """The earlier turns as the user saw them: each message and its answer."""
        return [m for exchange in self.exchanges for m in (exchange[0], exchange[-1])]

    def restore(self, exchanges: Sequence[list[ChatMessage]]) -> None:
        """Continue a logged conversation: its turns become the history."""
        self.exchanges = [list(e) for e in exchanges if len(e) >= 2]
        self.last = None
        self.last_plugins = _plugins_called(self.exchanges[-1]) if self.exchanges else []

    def clear(self) -> None:
        self.exchanges.clear()
        self.last = None
        self.last_plugins = []

    def set_llm(self, llm: LLM) -> None:
        self.llm = llm
        self._native = None

    async def native_tools(self) -> bool:
        """Structured tool calls or the JSON `format` fallback (cached per model)."""
        if self.config.tool_mode != "auto":
            return self.config.tool_mode == "native"
        if self._native is None:
            self._native = await self.llm.supports_tools()
        return self._native

    def retrieval_query(self, message: str) -> str:
        """Short follow-ups ("and tomorrow?") are retrieved with the previous user message."""
        return read_with(self.exchanges[-1][0]["content"] if self.exchanges else "", message)

    async def turn(
        self,
        message: str,
        *,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> TurnResult:
        """Run one user message to an answer. Raises only for an unusable model (LLM errors).
        `on_status` hears what the turn waits for (the model, a tool), for a spinner."""
        started = time.perf_counter()
        result = TurnResult(message=message)
        self.last = result
        state, retrieve_seconds = await self._run(result, on_text, on_status)
        parts: list[ChatMessage] = []
        if self.config.each_need:
            seconds, parts = await self._serve_open_needs(result, state, on_text, on_status)
            retrieve_seconds += seconds
        self._finish(result, state, parts)
        total = time.perf_counter() - started
        outside = state.llm_seconds + state.tool_seconds + retrieve_seconds
        result.timings = {
            "retrieve": retrieve_seconds,
            "llm": state.llm_seconds,
            "tools": state.tool_seconds,
            "total": total,
            "overhead": max(total - outside, 0.0),
        }
        return result

    async def _run(
        self, result: TurnResult, on_text: TextSink | None, on_status: StatusSink | None
    ) -> tuple[TurnState, float]:
        """Retrieval, the prompt and the model's rounds; the state and retrieval's seconds."""
        if on_status is not None:
            on_status("finding tools")
        try:
            retrieve_seconds = await self._retrieve(result)
            state = await self._prepare(result, on_text)
        finally:
            if on_status is not None:
                on_status(None)
        state.on_status = on_status
        for round_no in range(1, self.config.max_rounds + 1):
            result.rounds = round_no
            if await run_round(self.llm, state, round_no):
                break
        else:
            state.stopped = (
                f"the model did not finish within {self.config.max_rounds} rounds of tool calls"
            )
        return state, retrieve_seconds

    async def _serve_open_needs(
        self,
        result: TurnResult,
        state: TurnState,
        on_text: TextSink | None,
        on_status: StatusSink | None,
    ) -> tuple[float, list[ChatMessage]]:
        """Each part of the request that the turn's plugin calls left open is asked on its own,
        without the conversation, and joins the answer when its plugin served or failed it
        (core/turn_needs.join_part; after a failed call of the turn's own too: one broken
        plugin does not cost the other need). Returns the seconds spent searching, and the
        calls and results of the parts answered, for the history."""
        called = set(plugin_ids(s.name for s in result.tool_steps()))
        if state.ended or not called or result.plugin_retrieval is None:
            return 0.0, []
        started = time.perf_counter()
        offered = {h.id for h in result.plugin_retrieval.hits}
        search = self.retriever.search_plugins
        needs = await asyncio.to_thread(
            open_needs, result.message, called, offered, search, self.config.doubt_below
        )
        seconds = time.perf_counter() - started
        answered: list[ChatMessage] = []
        for need in needs:
            part = TurnResult(message=need)
            part_state, part_seconds = await self._alone()._run(part, None, on_status)
            seconds += part_seconds
            result.steps.extend(part.steps)
            result.held_back |= part.held_back
            result.rounds += part.rounds
            state.llm_seconds += part_state.llm_seconds
            state.tool_seconds += part_state.tool_seconds
            if join_part(state, part_state, on_text):
                answered += calls_and_results(part_state)[1:]  # not the part as a user message
        return seconds, answered

    def _alone(self) -> Agent:
        """This agent's services without its history, for a part of a request asked alone."""
        alone = Agent(
            llm=self.llm,
            retriever=self.retriever,
            caller=self.caller,
            manifests=self.manifests,
            skills=self.skills,
            builtins=self.builtins,
            config=replace(self.config, each_need=False),
            approval=self.approval,
            unavailable=self.unavailable,
        )
        alone._native = self._native
        return alone

    async def _retrieve(self, result: TurnResult) -> float:
        """Plugins (and skills) for the message; returns the seconds it took."""
        started = time.perf_counter()
        query = self.retrieval_query(result.message)
        plugin_res = await asyncio.to_thread(self.retriever.search_plugins, query)
        if query != result.message and may_ask_anew(result.message):
            alone = await asyncio.to_thread(self.retriever.search_plugins, result.message)
            if asks_anew(alone, self.last_plugins):
                query, plugin_res = result.message, alone
        result.follow_up = query != result.message
        skill_res = (
            await asyncio.to_thread(self.retriever.search_skills, query) if self.skills else None
        )
        plugin_res, skill_res = (
            cut_across(plugin_res, skill_res, self.config.plugin_margin),
            cut_across(skill_res, plugin_res, self.config.skill_margin) if skill_res else None,
        )
        result.plugin_retrieval, result.skill_retrieval = plugin_res, skill_res
        seconds = time.perf_counter() - started
        result.steps.append(
            RetrieveStep(
                seconds=seconds,
                query=query,
                plugins=hit_summaries(plugin_res),
                skills=hit_summaries(skill_res),
                fallback=plugin_res.fallback,
            )
        )
        return seconds

    async def _prepare(self, result: TurnResult, on_text: TextSink | None) -> TurnState:
        """The turn's tools, system prompt and messages, from what was retrieved."""
        started = time.perf_counter()
        plugin_res, skill_res = result.plugin_retrieval, result.skill_retrieval
        assert plugin_res is not None
        plugins = self._offered(plugin_res.hits, result)
        skills_text = self.skills.prompt_block(skill_res.hits) if self.skills and skill_res else ""
        tools = build_turn_tools(
            self._tool_context(result.message),
            self.builtins,
            plugins,
            skills_shown=bool(skills_text),
            query=self.retrieval_query(result.message) if result.follow_up else result.message,
            search=self.config.search_tools,
        )
        show_started = time.perf_counter()
        native = result.native_tools = await self.native_tools()
        show_seconds = time.perf_counter() - show_started  # model-server time (/api/show)
        fallback_names = list(plugin_res.fallback_names) if plugin_res.fallback else []
        result.prompt = build_system_prompt(
            read_workspace(self.config.workspace_dirs),
            skills_text,
            plugins,
            fallback_names,
            json_tools=None if native else json_tools_text(tools),
            tools=bool(tools.names()),
            search=self.config.search_tools,
        )
        result.tools_offered = tools.names()
        if native and tools.names():
            result.tool_tokens = estimate_tokens(json.dumps(tools.schemas()))
        history, messages = self._messages(result)
        weak_tools, weak_skills = self._weak(result, tools, bool(skills_text))
        self._note_prompt(result, time.perf_counter() - started - show_seconds, len(history))
        return TurnState(
            result.message,
            tools,
            native,
            messages,
            result.steps,
            on_text,
            llm_seconds=show_seconds,
            approval=self.approval,
            own_from=len(history) + 1,
            decide=self.config.decide,
            confident=self._confident(plugin_res, result.follow_up, plugins),
            figures=figures_to_check(plugin_res, result.message, plugins),
            best_tool=sole_reading_tool(plugin_res, plugins),
            weak_tools=weak_tools,
            weak_skills=weak_skills,
            known_words=frozenset(words(result.prompt.user_facts)),
            skills=self._shown_skills(skill_res, skills_text),
            window=self.config.context_tokens,
            tool_room=window_room(self.config.context_tokens, messages, result.tool_tokens),
        )

    def _note_prompt(self, result: TurnResult, seconds: float, history: int) -> None:
        """The trace step of the prompt built from `history` earlier messages."""
        assert result.prompt is not None
        result.steps.append(
            PromptStep(
                seconds=seconds,
                system_tokens=result.prompt.tokens,
                tool_tokens=result.tool_tokens,
                tools=result.tools_offered,
                history_messages=history,
                history_dropped=len(self.history) - history,
            )
        )

    @staticmethod
    def _shown_skills(retrieved: RetrievalResult | None, block: str) -> frozenset[str]:
        """The ids of the skills in this turn's prompt (none when the block is empty)."""
        return frozenset(h.id for h in retrieved.hits) if retrieved and block else frozenset()

    def _weak(
        self, result: TurnResult, tools: ToolRegistry, skills_shown: bool
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The plugin tools and shown skills retrieval ranked weakly (core/turn_decide.py)."""
        if result.follow_up:  # its plugin may come from the previous turn
            return frozenset(), frozenset()
        assert result.plugin_retrieval is not None
        skills = result.skill_retrieval if skills_shown else None
        return weakly_retrieved(result.plugin_retrieval, skills, tools, self.config.doubt_below)

    def _confident(
        self, retrieved: RetrievalResult, follow_up: bool, offered: list[PluginManifest]
    ) -> bool:
        """Whether `llm.decide: auto` checks a free answer: retrieval was sure of a plugin, or a
        short follow-up ("and 20?") comes after a turn that called a plugin offered again."""
        if follow_up:  # retrieved with the previous message: its score says little
            return any(m.id in self.last_plugins for m in offered)
        top = retrieved.hits[0].score if retrieved.hits else 0.0
        return top >= self.config.decide_min_score

    def _messages(self, result: TurnResult) -> tuple[list[ChatMessage], list[ChatMessage]]:
        """The history that fits next to the prompt, and the turn's opening messages."""
        assert result.prompt is not None
        budget = int(self.config.context_tokens * CONTEXT_SHARE)
        room = budget - result.prompt_tokens - estimate_tokens(result.message)
        history = fitting_history(self.exchanges, room)
        system: ChatMessage = {"role": "system", "content": result.prompt.text}
        return history, [system, *history, {"role": "user", "content": result.message}]

    def _tool_context(self, message: str) -> TurnToolContext:
        return TurnToolContext(
            message=message,
            retriever=self.retriever,
            caller=self.caller,
            manifests=self.manifests,
            skills=self.skills,
            history=self.dialogue(),
            max_search_results=self.config.max_search_results,
        )

    def _finish(self, result: TurnResult, state: TurnState, parts: list[ChatMessage]) -> None:
        """The answer and outcome; a turn with an answer joins the history (with the calls
        and results of the `parts` asked on their own) and is what a follow-up reads on."""
        settle(result, state)
        if state.answer is not None and result.ok:
            answer: ChatMessage = {"role": "assistant", "content": result.answer}
            result.exchange = [*calls_and_results(state), *parts, answer]
            self.exchanges.append(result.exchange)
            self.last_plugins = plugin_ids(s.name for s in result.tool_steps() if s.ok)

    def _offered(self, hits: Sequence[RetrievalHit], turn: TurnResult) -> list[PluginManifest]:
        """The retrieved plugins offerable now (a short follow-up, "and in pounds?", adds the
        previous turn's), each with its capabilities in retrieval's order; the others go in
        `turn.held_back` with the reason."""
        ids = [h.id for h in hits]
        if turn.follow_up:
            ids += [p for p in self.last_plugins if p not in ids]
        order = {h.id: list(h.capabilities) for h in hits}
        found = [m for m in map(self.manifests, ids) if m is not None]
        why = {m.id: self.unavailable(m) for m in found} if self.unavailable else {}
        turn.held_back |= {k: v for k, v in why.items() if v}
        return [ranked_capabilities(m, order.get(m.id, [])) for m in found if not why.get(m.id)]


def _plugins_called(exchange: list[ChatMessage]) -> list[str]:
    """The plugins whose results an earlier turn's messages hold (its tool outputs)."""
    names = [m for msg in exchange for m in TOOL_OUTPUT_NAME.findall(str(msg.get("content", "")))]
    return plugin_ids(names)


__all__ = ["Agent", "AgentConfig", "ManifestLookup"]
