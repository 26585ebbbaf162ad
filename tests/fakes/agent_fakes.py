"""In-memory fakes of the agent's Protocols (LLM, Retriever, PluginCaller, SkillRunner)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.ports import LLMReply, LLMToolCall, TextSink
from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult
from homeclaw_cli.core.tool_registry import Tool, ToolOutcome, object_schema
from homeclaw_cli.errors import NotFoundError, UsageError
from tests.fakes.retrieval import hit


def manifest(
    plugin_id: str, description: str, caps: list[dict[str, Any]] | None = None
) -> PluginManifest:
    return PluginManifest.model_validate(
        {
            "id": plugin_id,
            "name": plugin_id.title(),
            "description": description,
            "capabilities": caps or [],
        }
    )


WEATHER = manifest(
    "weather",
    "Current weather and forecast for a city.",
    [
        {
            "id": "now",
            "name": "Now",
            "description": "Current weather in a city.",
            "parameters": [{"name": "city", "type": "string", "required": True}],
        },
        {
            "id": "summary",
            "name": "Summary",
            "description": "A weather summary for a city.",
            "parameters": [{"name": "city", "type": "string", "required": True}],
            "post_process": True,
            "post_process_prompt": "Summarise for a child.",
        },
    ],
)
NOTES = manifest(
    "notes",
    "Write and search personal notes.",
    [
        {
            "id": "add",
            "name": "Add",
            "description": "Add a note.",
            "parameters": [{"name": "text", "type": "string", "required": True}],
        }
    ],
)


class FakeLLM:
    def __init__(self, *replies: LLMReply | str, tools: bool = True) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.tools = tools
        self.model = "fake"

    async def supports_tools(self) -> bool:
        return self.tools

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        format: dict[str, Any] | None = None,
        on_text: TextSink | None = None,
        max_tokens: int | None = None,
    ) -> LLMReply:
        self.requests.append(
            {"messages": [dict(m) for m in messages], "tools": tools, "format": format}
        )
        reply = self.replies.pop(0)
        if isinstance(reply, str):
            reply = LLMReply(reply)
        if on_text and reply.content:
            for word in reply.content.split(" "):
                on_text(word + " ")
        return reply


def call(name: str, **arguments: Any) -> LLMReply:
    return LLMReply("", [LLMToolCall(name, arguments)])


# The agent tests name their hits Hit("id", "skill", descriptor=...): real RetrievalHits.
Hit = hit


class FakeRetriever:
    def __init__(
        self,
        plugins: dict[str, list[str]],
        skills: dict[str, list[RetrievalHit]] | None = None,
        scores: dict[str, float] | None = None,
    ) -> None:
        self.plugins = plugins  # query word -> plugin ids
        self.skills = skills or {}
        self.scores = scores or {}  # query word -> the score of what it finds (default 0.9)
        self.queries: list[str] = []

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        self.queries.append(query)
        ids: dict[str, float] = {}
        for word, found in self.plugins.items():
            if word in query.lower():
                for item in found:
                    ids.setdefault(item, self.scores.get(word, 0.9))
        hits = [hit(i, score=s, rank=rank) for rank, (i, s) in enumerate(ids.items(), 1)]
        return RetrievalResult(
            query, hits, hits, fallback=not hits, fallback_names=[] if hits else ["notes"]
        )

    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        hits = [h for word, found in self.skills.items() if word in query.lower() for h in found]
        return RetrievalResult(query, hits, hits)


@dataclass
class PResult:
    success: bool
    text: str = ""
    error: str | None = None


@dataclass
class Outcome:
    result: PResult
    post_process: bool = False
    post_process_prompt: str | None = None
    seconds: float = 0.0


class FakeCaller:
    def __init__(
        self,
        manifests: dict[str, PluginManifest],
        behaviour: Callable[[str, str, dict[str, Any]], PResult] | None = None,
    ) -> None:
        self.manifests = manifests
        self.calls: list[tuple[str, str | None, dict[str, Any]]] = []
        self.behaviour = behaviour or (lambda p, c, a: PResult(True, f"{p}.{c} {a}"))

    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Outcome:
        manifest = self.manifests.get(plugin_id)
        if manifest is None:
            raise NotFoundError(f"unknown plugin {plugin_id}")
        cap = manifest.capability(capability_id or "")
        if cap is None:
            raise NotFoundError(f"unknown capability {capability_id}")
        for param in cap.parameters:
            if param.required and param.name not in parameters:
                raise UsageError(f"missing parameter `{param.name}`")
        self.calls.append((plugin_id, capability_id, parameters))
        return Outcome(
            self.behaviour(plugin_id, capability_id or "", parameters),
            cap.post_process,
            cap.post_process_prompt,
        )


class FakeSkills:
    """SkillRunner: one skill `greet` with scripts/hello.sh."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, str, list[str]]] = []

    def prompt_block(self, hits: Any) -> str:
        names = [h.id for h in hits if h.kind == "skill"]
        if not names:
            return ""
        items = "".join(f"<skill><name>{n}</name></skill>" for n in names)
        return f"<available_skills>{items}</available_skills>"

    def tools(self) -> list[Tool]:
        read = object_schema({"skill": {"type": "string"}}, ["skill"])
        run = object_schema(
            {
                "skill_name": {"type": "string"},
                "script": {"type": "string"},
                "args": {"type": "array"},
            },
            ["skill_name", "script"],
        )
        return [
            Tool("read_skill", "read", read, self._read, "skill"),
            Tool("run_skill", "run", run, self._run, "skill"),
        ]

    async def _read(self, arguments: dict[str, Any]) -> ToolOutcome:
        if arguments["skill"] != "greet":
            return ToolOutcome(False, f"no skill {arguments['skill']!r}")
        return ToolOutcome(True, "# Greet\nRun scripts/hello.sh NAME.")

    async def _run(self, arguments: dict[str, Any]) -> ToolOutcome:
        args = [str(a) for a in arguments.get("args") or []]
        self.runs.append((arguments["skill_name"], arguments["script"], args))
        if "--fail" in args:  # a long report, then the error on stderr
            report = "\n".join(f"line {n}" for n in range(200))
            return ToolOutcome(False, f"exit code: 2\nstdout:\n{report}\nstderr:\nerror: no Bob")
        return ToolOutcome(True, f"exit code: 0\nstdout:\nhello {' '.join(args)}")


def unwrap(content: str) -> str:
    """The text inside the <tool_output> data marking a tool message carries."""
    match = re.fullmatch(r'<tool_output tool="[^"]*">\n(.*)\n</tool_output>', content, re.S)
    assert match, f"not a marked tool output: {content!r}"
    return match.group(1)
