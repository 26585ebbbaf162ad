"""One chat turn: retrieve -> prompt -> model -> tools -> answer (seed 000 §5, seed 002 §1-3).

The loop depends only on small Protocols (LLM, PluginCallerLike, SkillRunner below and
core/ports.Retriever), so it runs against fakes in tests and against Ollama, the LanceDB
retrieval, the plugin runners and the skill runner in `app/chat.py`.

Tool design: one tool per capability of the retrieved plugins (`<plugin>__<capability>`,
built by core/tools.capability_tool), not one generic route_to_plugin(plugin_id,
capability_id, parameters). Measured (benchmarks/bench_agent.py, 5 retrieved eval plugins):
1,707 prompt tokens against 1,008 for route_to_plugin with the parameters documented in the
prompt. We pay that because it is bounded by `max_in_prompt` (it never grows with what is
installed) and buys correctness with small models: each parameter is typed in the schema the
model's tool template renders natively, the JSON `format` fallback can pin the tool name to an
enum of exactly the valid plugin/capability pairs, and a bad call is reported against the tool
the model named instead of inside a free-form `parameters` object.
Plugins found mid-turn by search_plugins get their tools added for the next round.

A plugin's result ends the turn: its text goes to the user as is, or through one more model
call with the capability's post_process_prompt (seed 000 §5.7), streamed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from homeclaw_cli.core.agent_prompt import (
    PromptBlock,
    SystemPrompt,
    build_system_prompt,
    read_workspace,
)
from homeclaw_cli.core.agent_tools import Tool, ToolOutcome, ToolRegistry, object_schema
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.ports import Retriever
from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult
from homeclaw_cli.core.tokens import estimate_tokens
from homeclaw_cli.core.tool_parse import (
    AnswerStreamer,
    json_mode_schema,
    looks_like_json_start,
    parse_content_calls,
    parse_json_mode_reply,
    still_thinking,
    strip_think,
)
from homeclaw_cli.core.tools import capability_tool, parameters_schema
from homeclaw_cli.errors import HomeclawError

TextSink = Callable[[str], None]
DEFAULT_POST_PROCESS_PROMPT = (
    "Turn the tool output below into a short, friendly answer to the user's request. "
    "Use only facts from the output."
)
FOLLOW_UP_WORDS = 8  # a message this short is retrieved together with the previous one
MAX_HISTORY_MESSAGES = 20
CONTEXT_SHARE = 0.75  # of the window for the prompt; the rest is left for tool results + reply
MAX_TOOL_TEXT = 16_000


# --- protocols ------------------------------------------------------------------------------


@dataclass
class LLMToolCall:
    name: str
    arguments: Any  # usually a dict; models sometimes send a JSON string or junk


@dataclass
class LLMReply:
    content: str
    tool_calls: list[LLMToolCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    eval_tokens: int | None = None
    seconds: float = 0.0


class LLM(Protocol):
    @property
    def model(self) -> str: ...

    async def supports_tools(self) -> bool: ...

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        format: dict[str, Any] | None = None,
        on_text: TextSink | None = None,
    ) -> LLMReply: ...


class ResultLike(Protocol):
    @property
    def success(self) -> bool: ...
    @property
    def text(self) -> str: ...
    @property
    def error(self) -> str | None: ...


class OutcomeLike(Protocol):
    @property
    def result(self) -> ResultLike: ...
    @property
    def post_process(self) -> bool: ...
    @property
    def post_process_prompt(self) -> str | None: ...


class PluginCallerLike(Protocol):
    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> OutcomeLike: ...


class SkillRunner(Protocol):
    """Skills for the loop: their prompt block, their tools (read_skill, run_skill) and calls.

    Implemented over catalog/skill_prompt + app/skill_tools in app/chat.py.
    """

    def prompt_block(self, hits: Sequence[RetrievalHit]) -> str:
        """The <available_skills> block for the retrieved hits ("" when none is eligible)."""
        ...

    def tool_schemas(self) -> list[dict[str, Any]]: ...

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Blocking; the text for the model, starting with "error:" when refused."""
        ...


ManifestLookup = Callable[[str], PluginManifest | None]


# --- results --------------------------------------------------------------------------------


@dataclass
class TraceStep:
    kind: str  # retrieve | prompt | llm | tool | post_process
    seconds: float
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seconds": round(self.seconds, 6), **self.detail}


@dataclass
class TurnResult:
    message: str
    answer: str = ""
    ok: bool = True
    error: str | None = None
    steps: list[TraceStep] = field(default_factory=list)
    prompt: SystemPrompt | None = None
    tool_tokens: int = 0
    plugin_retrieval: RetrievalResult | None = None
    skill_retrieval: RetrievalResult | None = None
    tools_offered: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    native_tools: bool = True
    rounds: int = 0

    @property
    def prompt_tokens(self) -> int:
        return (self.prompt.tokens if self.prompt else 0) + self.tool_tokens

    def tool_steps(self) -> list[TraceStep]:
        return [s for s in self.steps if s.kind == "tool"]

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "ok": self.ok,
            "error": self.error,
            "rounds": self.rounds,
            "native_tools": self.native_tools,
            "prompt_tokens": self.prompt_tokens,
            "tools_offered": self.tools_offered,
            "retrieved": {
                "plugins": _hits_json(self.plugin_retrieval),
                "skills": _hits_json(self.skill_retrieval),
            },
            "trace": [s.to_json() for s in self.steps],
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
        }


def _hits_json(result: RetrievalResult | None) -> list[dict[str, Any]]:
    if result is None:
        return []
    return [{"id": h.id, "score": round(h.score, 4), "reason": h.reason} for h in result.hits]


@dataclass
class AgentConfig:
    max_rounds: int = 6
    tool_mode: str = "auto"  # auto | native | json
    max_search_results: int = 5
    workspace_dirs: list[Path] = field(default_factory=list)
    context_tokens: int = 4096  # the model's window; history is trimmed to fit


@dataclass
class _TurnState:
    result: TurnResult
    started: float
    on_text: TextSink | None
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    native: bool = True
    messages: list[dict[str, Any]] = field(default_factory=list)
    answer: str | None = None
    pending_failure: str | None = None
    retrieve_seconds: float = 0.0
    llm_seconds: float = 0.0
    tool_seconds: float = 0.0


class _Gate:
    """Streams text to the user unless it could be a tool call written as JSON."""

    def __init__(self, sink: TextSink | None) -> None:
        self.sink = sink
        self.buffer = ""
        self.passing = False
        self.emitted = False

    def __call__(self, piece: str) -> None:
        if self.sink is None:
            return
        if self.passing:
            self.sink(piece)
            return
        self.buffer += piece
        if still_thinking(self.buffer):
            return
        visible = strip_think(self.buffer)
        if visible.strip() and not looks_like_json_start(visible):
            self.passing = True
            self.emitted = True
            self.sink(visible)


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
    ) -> None:
        self.llm = llm
        self.retriever = retriever
        self.caller = caller
        self.manifests = manifests
        self.skills = skills
        self.builtins = builtins or ToolRegistry()
        self.config = config or AgentConfig()
        self.history: list[dict[str, Any]] = []
        self.last: TurnResult | None = None
        self._native: bool | None = None

    def clear(self) -> None:
        self.history.clear()
        self.last = None

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
        if len(message.split()) >= FOLLOW_UP_WORDS:
            return message
        previous = next(
            (m["content"] for m in reversed(self.history) if m.get("role") == "user"), ""
        )
        return f"{previous}\n{message}".strip() if previous else message

    async def turn(self, message: str, *, on_text: TextSink | None = None) -> TurnResult:
        """Run one user message to an answer. Raises only for an unusable model (LLM errors)."""
        state = _TurnState(TurnResult(message=message), time.perf_counter(), on_text)
        self.last = state.result
        await self._retrieve(state)
        await self._prepare(state)
        for round_no in range(1, self.config.max_rounds + 1):
            state.result.rounds = round_no
            if await self._round(state, round_no):
                break
        else:
            state.result.error = (
                f"the model did not finish within {self.config.max_rounds} rounds of tool calls"
            )
        return self._finish(state)

    async def _retrieve(self, state: _TurnState) -> None:
        t0 = time.perf_counter()
        result = state.result
        query = self.retrieval_query(result.message)
        plugin_res = await asyncio.to_thread(self.retriever.search_plugins, query)
        skill_res = (
            await asyncio.to_thread(self.retriever.search_skills, query) if self.skills else None
        )
        result.plugin_retrieval, result.skill_retrieval = plugin_res, skill_res
        state.retrieve_seconds = time.perf_counter() - t0
        detail = {
            "query": query,
            "plugins": _hits_json(plugin_res),
            "skills": _hits_json(skill_res),
            "fallback": plugin_res.fallback,
        }
        result.steps.append(TraceStep("retrieve", state.retrieve_seconds, detail))

    async def _prepare(self, state: _TurnState) -> None:
        t0 = time.perf_counter()
        result = state.result
        plugin_res, skill_res = result.plugin_retrieval, result.skill_retrieval
        assert plugin_res is not None
        plugins = self._manifests_for(plugin_res.hits)
        skills_text = self.skills.prompt_block(skill_res.hits) if self.skills and skill_res else ""
        state.tools = self._turn_tools(result.message, plugins, skills_shown=bool(skills_text))
        t_show = time.perf_counter()
        state.native = result.native_tools = await self.native_tools()
        show_seconds = time.perf_counter() - t_show  # model-server time (/api/show), not ours
        state.llm_seconds += show_seconds
        workspace = read_workspace(self.config.workspace_dirs)
        json_tools = None if state.native else _json_tools_text(state.tools)
        fallback_names = list(plugin_res.fallback_names) if plugin_res.fallback else []
        result.prompt = build_system_prompt(
            workspace, skills_text, plugins, fallback_names, json_tools=json_tools
        )
        result.tools_offered = state.tools.names()
        if state.native:
            result.tool_tokens = estimate_tokens(json.dumps(state.tools.schemas()))
        base = result.prompt_tokens + estimate_tokens(result.message)
        history = self._fitting_history(int(self.config.context_tokens * CONTEXT_SHARE) - base)
        state.messages = [
            {"role": "system", "content": result.prompt.text},
            *history,
            {"role": "user", "content": result.message},
        ]
        detail = {
            "system_tokens": result.prompt.tokens,
            "tool_tokens": result.tool_tokens,
            "tools": result.tools_offered,
            "history_messages": len(history),
            "history_dropped": len(self.history) - len(history),
        }
        result.steps.append(TraceStep("prompt", time.perf_counter() - t0 - show_seconds, detail))

    def _fitting_history(self, budget: int) -> list[dict[str, Any]]:
        """The newest history messages (whole user/assistant pairs) that fit in `budget`."""
        kept: list[dict[str, Any]] = []
        recent = self.history[-MAX_HISTORY_MESSAGES:]
        for i in range(len(recent) - 2, -1, -2):
            pair = recent[i : i + 2]
            cost = sum(estimate_tokens(str(m.get("content", ""))) + 4 for m in pair)
            if cost > budget:
                break
            budget -= cost
            kept[:0] = pair
        return kept

    async def _round(self, state: _TurnState, round_no: int) -> bool:
        """One model call and its tool calls; True when the turn has its answer."""
        tools, native, on_text = state.tools, state.native, state.on_text
        gate = _Gate(on_text)
        streamer = AnswerStreamer(on_text)
        names = tools.names()
        reply = await self.llm.chat(
            state.messages,
            tools=tools.schemas() if native else None,
            format=None if native else json_mode_schema(names),
            on_text=gate if native else streamer,
        )
        state.llm_seconds += reply.seconds
        content = strip_think(reply.content)
        calls = [(c.name, c.arguments) for c in reply.tool_calls]
        source = "native"
        direct_answer: str | None = None
        if native and not calls:
            calls = [(c.name, c.arguments) for c in parse_content_calls(content, names)]
            source = "content"
        elif not native:
            direct_answer, parsed = parse_json_mode_reply(content, names)
            calls = [(parsed.name, parsed.arguments)] if parsed else []
            source = "json"
        detail = {
            "round": round_no,
            "prompt_tokens": reply.prompt_tokens,
            "eval_tokens": reply.eval_tokens,
            "tool_calls": [name for name, _ in calls],
            "call_source": source if calls else None,
        }
        state.result.steps.append(TraceStep("llm", reply.seconds, detail))
        if not calls:
            state.answer = direct_answer if direct_answer is not None else content
            if on_text and not (gate.emitted if native else streamer.emitted):
                text = strip_think(gate.buffer) if native else state.answer
                if text:
                    on_text(text)
            return True
        if on_text and gate.emitted:
            on_text("\n")  # keep the model's preamble apart from what follows
        state.messages.append(_assistant_message(content if source == "native" else "", calls))
        final = await self._run_calls(state, calls)
        if final is None:
            return False
        if final.post_process:
            t0 = time.perf_counter()
            state.answer = await self._post_process(state.result.message, final, on_text)
            spent = time.perf_counter() - t0
            state.result.steps.append(TraceStep("post_process", spent, {"streamed": True}))
            state.llm_seconds += spent
        else:
            state.answer = final.text
            if on_text:
                on_text(final.text)
        return True

    async def _run_calls(
        self, state: _TurnState, calls: list[tuple[str, Any]]
    ) -> ToolOutcome | None:
        """Run the calls in order; a successful plugin result ends the turn and is returned."""
        for name, arguments in calls:
            t0 = time.perf_counter()
            args = _coerce_arguments(arguments)
            outcome = await state.tools.execute(name, args)
            spent = time.perf_counter() - t0
            state.tool_seconds += spent
            detail = {
                "name": name,
                "arguments": args,
                "ok": outcome.ok,
                "output": outcome.text[:500],
            }
            state.result.steps.append(TraceStep("tool", spent, detail))
            if outcome.failed_for_good:
                state.pending_failure = outcome.text
            elif outcome.ok and _kind(state.tools, name) == "plugin":
                state.pending_failure = None
            if outcome.final and outcome.ok:
                return outcome
            content = outcome.text if outcome.ok else f"ERROR: {outcome.text}"
            state.messages.append(_tool_message(name, content[:MAX_TOOL_TEXT], native=state.native))
        return None

    def _finish(self, state: _TurnState) -> TurnResult:
        result = state.result
        result.answer = state.answer or ""
        if state.pending_failure and result.error is None:
            result.error = state.pending_failure
        result.ok = result.error is None
        if state.answer is not None:
            self.history.append({"role": "user", "content": result.message})
            self.history.append({"role": "assistant", "content": result.answer})
        total = time.perf_counter() - state.started
        outside = state.llm_seconds + state.tool_seconds + state.retrieve_seconds
        result.timings = {
            "retrieve": state.retrieve_seconds,
            "llm": state.llm_seconds,
            "tools": state.tool_seconds,
            "total": total,
            "overhead": max(total - outside, 0.0),
        }
        return result

    async def _post_process(
        self, message: str, outcome: ToolOutcome, on_text: TextSink | None
    ) -> str:
        system = outcome.post_process_prompt or DEFAULT_POST_PROCESS_PROMPT
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": f"Request: {message}\n\nOutput:\n{outcome.text}"},
        ]
        gate = _Gate(on_text)
        reply = await self.llm.chat(messages, on_text=gate)
        answer = strip_think(reply.content)
        if on_text and not gate.emitted and answer:
            on_text(answer)
        return answer

    def _manifests_for(self, hits: Sequence[RetrievalHit]) -> list[PluginManifest]:
        out: list[PluginManifest] = []
        for hit in hits:
            manifest = self.manifests(hit.id)
            if manifest is not None:
                out.append(manifest)
        return out

    # --- tools ------------------------------------------------------------------------------

    def _turn_tools(
        self, message: str, plugins: list[PluginManifest], *, skills_shown: bool
    ) -> ToolRegistry:
        tools = ToolRegistry()
        for name in self.builtins.names():
            tool = self.builtins.get(name)
            if tool is not None:
                tools.add(tool)
        for manifest in plugins:
            self._add_plugin_tools(tools, manifest, message)
        tools.add(self._search_plugins_tool(tools, message))
        if self.skills is not None:
            tools.add(self._search_skills_tool(tools, self.skills))
            if skills_shown:
                self._add_skill_call_tools(tools, self.skills)
        return tools

    def _add_plugin_tools(
        self, tools: ToolRegistry, manifest: PluginManifest, message: str
    ) -> None:
        for capability in manifest.callable_capabilities():
            schema = capability_tool(manifest, capability)["function"]
            tools.add(
                Tool(
                    schema["name"],
                    schema["description"],
                    parameters_schema(capability),
                    self._plugin_handler(manifest.id, capability.id, message),
                    kind="plugin",
                )
            )

    def _plugin_handler(self, plugin_id: str, capability_id: str, message: str) -> Any:
        async def handler(args: dict[str, Any]) -> ToolOutcome:
            context = "\n".join(f"{m['role']}: {m['content']}" for m in self.history[-6:])
            try:
                outcome = await self.caller.call(
                    plugin_id, capability_id, args, user_input=message, chat_context=context
                )
            except HomeclawError as exc:  # bad parameters, unknown id: the model can fix it
                return ToolOutcome(False, exc.message + (f" ({exc.hint})" if exc.hint else ""))
            res = outcome.result
            if not res.success:
                error = res.error or "no error message"
                if not error.startswith(f"plugin {plugin_id}"):
                    error = f"plugin {plugin_id} failed: {error}"
                return ToolOutcome(False, error, failed_for_good=True)
            return ToolOutcome(
                True,
                res.text,
                final=True,
                post_process=outcome.post_process,
                post_process_prompt=outcome.post_process_prompt,
            )

        return handler

    def _search_plugins_tool(self, tools: ToolRegistry, message: str) -> Tool:
        async def search(args: dict[str, Any]) -> ToolOutcome:
            found = await asyncio.to_thread(
                self.retriever.search_plugins,
                str(args["query"]),
                limit=self.config.max_search_results,
            )
            lines = []
            for hit in found.hits:
                manifest = self.manifests(hit.id)
                if manifest is None:
                    continue
                self._add_plugin_tools(tools, manifest, message)
                caps = ", ".join(c.id for c in manifest.callable_capabilities())
                lines.append(f"- {manifest.id} (score {hit.score:.2f}): {manifest.description}")
                lines.append(
                    f"  tools: {', '.join(f'{manifest.id}__{c}' for c in caps.split(', '))}"
                )
            if not lines:
                return ToolOutcome(True, "no installed plugin matches that query")
            return ToolOutcome(
                True, "Matching plugins (their tools are now available):\n" + "\n".join(lines)
            )

        return Tool(
            "search_plugins",
            "Search the installed plugins when none listed fits the request.",
            object_schema(
                {"query": {"type": "string", "description": "what is needed"}}, ["query"]
            ),
            search,
            kind="search",
        )

    def _search_skills_tool(self, tools: ToolRegistry, runner: SkillRunner) -> Tool:
        async def search_skills(args: dict[str, Any]) -> ToolOutcome:
            found = await asyncio.to_thread(
                self.retriever.search_skills,
                str(args["query"]),
                limit=self.config.max_search_results,
            )
            lines = [f"- {h.id}: {h.descriptor.get('description', '')}" for h in found.hits]
            if not lines:
                return ToolOutcome(True, "no skill matches that query")
            self._add_skill_call_tools(tools, runner)
            return ToolOutcome(
                True, "Matching skills (read one with read_skill):\n" + "\n".join(lines)
            )

        return Tool(
            "search_skills",
            "Search the installed skills when none listed fits the request.",
            object_schema({"query": {"type": "string"}}, ["query"]),
            search_skills,
            kind="search",
        )

    def _add_skill_call_tools(self, tools: ToolRegistry, runner: SkillRunner) -> None:
        """read_skill / run_skill, offered only once some skill is in play (saves tokens)."""

        def handler(name: str) -> Any:
            async def call(args: dict[str, Any]) -> ToolOutcome:
                text = await asyncio.to_thread(runner.call_tool, name, args)
                return ToolOutcome(not text.startswith("error:"), text.removeprefix("error: "))

            return call

        for schema in runner.tool_schemas():
            fn = schema["function"]
            name = str(fn["name"])
            if name not in tools:
                tools.add(
                    Tool(
                        name,
                        str(fn.get("description", "")),
                        fn["parameters"],
                        handler(name),
                        "skill",
                    )
                )


def _kind(tools: ToolRegistry, name: str) -> str:
    tool = tools.get(name)
    return tool.kind if tool else ""


def _coerce_arguments(arguments: Any) -> Any:
    """Models sometimes send the arguments as a JSON string; anything else is checked later."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return arguments
    return {} if arguments is None else arguments


def _assistant_message(content: str, calls: list[tuple[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "function": {
                    "name": name,
                    "arguments": _coerce_arguments(args)
                    if isinstance(_coerce_arguments(args), dict)
                    else {},
                }
            }
            for name, args in calls
        ],
    }


def _tool_message(name: str, content: str, *, native: bool) -> dict[str, Any]:
    if native:
        return {"role": "tool", "content": content, "tool_name": name}
    return {"role": "user", "content": f"Result of tool {name}:\n{content}"}


def _json_tools_text(tools: ToolRegistry) -> str:
    lines = [
        "## Tools",
        'Reply with one JSON object. To call a tool: {"tool": "<name>", "arguments": {...}}. '
        'To answer the user: {"tool": "answer", "answer": "<your answer>"}.',
    ]
    for name in tools.names():
        tool = tools.get(name)
        if tool is None:
            continue
        params = json.dumps(tool.parameters.get("properties", {}), separators=(",", ":"))
        lines.append(f"- {name}: {tool.description} parameters: {params}")
    return "\n".join(lines)


__all__ = [
    "LLM",
    "Agent",
    "AgentConfig",
    "LLMReply",
    "LLMToolCall",
    "PluginCallerLike",
    "PromptBlock",
    "SkillRunner",
    "TraceStep",
    "TurnResult",
]
