"""The agent loop's own cost per turn and the system prompt's size vs installed plugins.

Run: .venv/bin/python benchmarks/bench_agent.py [--turns N]

Plugins: the 80 evaluation manifests in benchmarks/retrieval/plugins, replicated with new ids
up to 1,000. The model is (a) an in-process fake that answers instantly, so everything
measured is homeclaw's own work (retrieval, prompt, tool schemas, argument checks, dispatch,
history), and (b) FakeOllama over HTTP with the real `ollama` client, which adds the client
and the local HTTP round-trips. Retrieval is the keyword fallback here (the LanceDB retrieval
is benchmarked by bench_index.py); its time is reported separately and excluded from "loop overhead".

Also prints the tool-design measurement behind core/agent.py: prompt tokens for one tool per
retrieved capability versus a single generic route_to_plugin(plugin_id, capability_id,
parameters) whose parameter docs must then live in the system prompt text.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from homeclaw_cli.app.keyword_fallback import KeywordRetriever  # noqa: E402
from homeclaw_cli.catalog.plugin_loader import load_plugin  # noqa: E402
from homeclaw_cli.catalog.registry import PluginEntry, Registry  # noqa: E402
from homeclaw_cli.core.agent import Agent, AgentConfig  # noqa: E402
from homeclaw_cli.core.agent_prompt import build_system_prompt, read_workspace  # noqa: E402
from homeclaw_cli.core.capability_tools import plugin_tools  # noqa: E402
from homeclaw_cli.core.manifest import PluginManifest  # noqa: E402
from homeclaw_cli.core.ports import LLMReply, LLMToolCall  # noqa: E402
from homeclaw_cli.core.tokens import estimate_tokens  # noqa: E402
from homeclaw_cli.core.tool_registry import ToolRegistry  # noqa: E402
from homeclaw_cli.runtime.builtin_tools import BuiltinConfig, add_builtins  # noqa: E402

EVAL_PLUGINS = REPO / "benchmarks" / "retrieval" / "plugins"
QUERIES = [
    "what's the weather in Paris tomorrow",
    "convert 100 dollars to euros",
    "add milk to my grocery list",
    "when is the next train to Lyon",
    "remind me to call mum at 6",
]


def load_manifests(count: int) -> list[PluginManifest]:
    base = []
    for folder in sorted(EVAL_PLUGINS.iterdir()):
        result = load_plugin(folder)
        if result.manifest is not None:
            base.append(result.manifest)
    out: list[PluginManifest] = []
    copy = 0
    while len(out) < count:
        for manifest in base:
            if len(out) >= count:
                break
            if copy == 0:
                out.append(manifest)
            else:
                data = manifest.model_dump(mode="json", exclude_none=True)
                data["id"] = f"{manifest.id}-{copy}"
                out.append(PluginManifest.model_validate(data))
        copy += 1
    return out


FILLER_WORDS = ["zorb", "quell", "vint", "maro", "drask", "pelt", "onyx", "wist", "carn", "lumo"]


def with_fillers(real: list[PluginManifest], count: int) -> list[PluginManifest]:
    """`real` plus synthetic plugins on unrelated topics, up to `count` installed."""
    out = list(real)
    for i in range(count - len(real)):
        word = FILLER_WORDS[i % len(FILLER_WORDS)]
        out.append(
            PluginManifest.model_validate(
                {
                    "id": f"filler-{i}",
                    "name": f"Filler {i}",
                    "description": f"Synthetic {word} plugin number {i} for {word} {FILLER_WORDS[i % 7]}.",
                    "capabilities": [
                        {
                            "id": "run_it",
                            "name": "Run",
                            "description": f"Do {word}.",
                            "parameters": [{"name": "q", "type": "string"}],
                        }
                    ],
                }
            )
        )
    return out


def registry_of(manifests: list[PluginManifest]) -> Registry:
    entries = {m.id: PluginEntry(m, "bench", None, None) for m in manifests}
    return Registry(plugins=entries)


class InstantLLM:
    """Calls the first offered plugin tool, then answers (post-processing when asked)."""

    model = "instant"

    async def supports_tools(self) -> bool:
        return True

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: Any = None,
        format: Any = None,
        on_text: Any = None,
        max_tokens: int | None = None,
    ) -> LLMReply:
        plugin_tools_offered = [t for t in tools or [] if "__" in t["function"]["name"]]
        if plugin_tools_offered and messages[-1]["role"] == "user":
            fn = plugin_tools_offered[0]["function"]
            args = {name: "x" for name in fn["parameters"].get("required", [])}
            props = fn["parameters"]["properties"]
            args = {k: (1 if props[k].get("type") == "number" else v) for k, v in args.items()}
            return LLMReply("", [LLMToolCall(fn["name"], args)])
        if on_text:
            on_text("done")
        return LLMReply("done")


class InstantCaller:
    async def call(
        self, plugin_id: str, capability_id: str | None, parameters: dict[str, Any], **_: Any
    ) -> Any:
        from homeclaw_cli.runtime.caller import CallOutcome
        from homeclaw_cli.runtime.runners.base import PluginResult

        return CallOutcome(
            PluginResult(request_id="r", plugin_id=plugin_id, success=True, text="result"),
            False,
            None,
            0.0,
        )


def make_agent(registry: Registry, llm: Any) -> Agent:
    builtins = ToolRegistry()
    add_builtins(builtins, BuiltinConfig(allowed_dirs=[REPO]))

    def lookup(plugin_id: str) -> PluginManifest | None:
        entry = registry.plugins.get(plugin_id)
        return entry.manifest if entry else None

    return Agent(
        llm=llm,
        retriever=KeywordRetriever(registry, max_in_prompt=5),
        caller=InstantCaller(),
        manifests=lookup,
        builtins=builtins,
        config=AgentConfig(max_rounds=4),
    )


async def run_turns(agent: Agent, turns: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"overhead": [], "retrieve": [], "total": [], "tokens": []}
    for i in range(turns):
        agent.clear()
        result = await agent.turn(QUERIES[i % len(QUERIES)], on_text=lambda _: None)
        samples["overhead"].append(result.timings["overhead"])
        samples["retrieve"].append(result.timings["retrieve"])
        samples["total"].append(result.timings["total"])
        samples["tokens"].append(float(result.prompt_tokens))
    return samples


def ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return f"median {statistics.median(values) * 1000:7.3f} ms  p95 {p95 * 1000:7.3f} ms"


def tool_design(manifests: list[PluginManifest]) -> tuple[int, int]:
    """(per-capability tokens, route_to_plugin tokens) for the same 5 retrieved plugins."""
    retrieved = manifests[:5]
    workspace = read_workspace([])
    per_cap = build_system_prompt(workspace, "", retrieved, []).tokens
    per_cap += estimate_tokens(json.dumps([t for m in retrieved for t in plugin_tools(m)]))
    lines = ["## Routing", "Call route_to_plugin(plugin_id, capability_id, parameters):"]
    for m in retrieved:
        lines.append(f"- {m.id}: {m.description}")
        for t in plugin_tools(m):
            fn = t["function"]
            lines.append(
                f"  - {fn['name'].split('__')[1]}: {fn['description']} "
                f"parameters {json.dumps(fn['parameters']['properties'])}"
            )
    route_tool = {
        "type": "function",
        "function": {
            "name": "route_to_plugin",
            "parameters": {
                "type": "object",
                "properties": {
                    "plugin_id": {"type": "string"},
                    "capability_id": {"type": "string"},
                    "parameters": {"type": "object"},
                },
                "required": ["plugin_id", "capability_id"],
            },
        },
    }
    route = estimate_tokens(workspace[0].text + "\n".join(lines)) + estimate_tokens(
        json.dumps(route_tool)
    )
    return per_cap, route


def http_turns(registry: Registry, turns: int) -> list[float]:
    from homeclaw_cli.adapters.llm_ollama import OllamaLLM
    from tests.fakes.ollama_server import FakeOllama, text, tool_call

    with FakeOllama() as fake:
        fake.add_model("llama3.2")

        async def go() -> list[float]:
            llm = OllamaLLM(fake.host, "llama3.2")
            agent = make_agent(registry, llm)
            walls = []
            try:
                for i in range(turns):
                    agent.clear()
                    fake.script(tool_call("none__x", {}), text("ok"))
                    start = time.perf_counter()
                    result = await agent.turn(QUERIES[i % len(QUERIES)], on_text=lambda _: None)
                    walls.append(time.perf_counter() - start - result.timings["retrieve"])
            finally:
                await llm.aclose()
            return walls

        return asyncio.run(go())


def parsing() -> str:
    """Small-model text tool calls: how many shapes are recognized, false positives, speed."""
    from homeclaw_cli.core.tool_parse import parse_content_calls
    from tests.core.test_tool_parse import KNOWN, NOT_CALLS, RECOGNIZED

    hits = sum(bool(parse_content_calls(c, KNOWN)) for c in RECOGNIZED)
    false = sum(bool(parse_content_calls(c, KNOWN)) for c in NOT_CALLS)
    start = time.perf_counter()
    rounds = 2000
    for _ in range(rounds):
        for content in RECOGNIZED + NOT_CALLS:
            parse_content_calls(content, KNOWN)
    per = (time.perf_counter() - start) / (rounds * (len(RECOGNIZED) + len(NOT_CALLS)))
    return (
        f"text tool calls: {hits}/{len(RECOGNIZED)} small-model shapes recognized, "
        f"{false}/{len(NOT_CALLS)} false positives, {per * 1e6:.1f} us per reply"
    )


def indexed_turns(manifests: list[PluginManifest], turns: int) -> tuple[float, dict[str, Any]]:
    """Sync `manifests` into a temporary index with the real embedding model, then run turns
    whose retrieval is the real RetrievalService (query embedding + LanceDB hybrid search)."""
    import tempfile

    import yaml

    from homeclaw_cli.app.retrieval import RetrievalService
    from homeclaw_cli.app.sync import sync
    from homeclaw_cli.catalog.registry import scan
    from homeclaw_cli.settings import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "plugins"
        for manifest in manifests:
            data = manifest.model_dump(mode="json", exclude_none=True)
            data |= {"type": "subprocess", "config": {"command": "python3", "args": ["x.py"]}}
            (root / manifest.id).mkdir(parents=True)
            (root / manifest.id / "plugin.yaml").write_text(yaml.safe_dump(data))
        env = {"HOMECLAW_HOME": tmp, "HOMECLAW_NO_BUNDLED": "1", "HF_HUB_OFFLINE": "1"}
        settings = load_settings(env=env, extra_plugin_dirs=[root], cwd=Path(tmp))
        start = time.perf_counter()
        sync(settings, kinds=("plugins",))
        sync_seconds = time.perf_counter() - start
        registry = scan(settings)
        agent = make_agent(registry, InstantLLM())
        agent.retriever = RetrievalService(settings)
        agent.retriever.search_plugins("warm up the query embedder")
        samples = asyncio.run(run_turns(agent, turns))
    return sync_seconds, samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument(
        "--index", action="store_true", help="also run with the real index (embeds 1,000 plugins)"
    )
    args = parser.parse_args()
    print(f"agent loop, {args.turns} turns each (instant in-process model, instant plugin)")
    real = load_manifests(10)
    sets = [
        ("10 plugins", real),
        ("1000 = the same 10 + 990 unrelated", with_fillers(real, 1000)),
        ("1000 = 80 eval plugins replicated", load_manifests(1000)),
    ]
    for label, manifests in sets:
        registry = registry_of(manifests)
        samples = asyncio.run(run_turns(make_agent(registry, InstantLLM()), args.turns))
        tokens = samples["tokens"]
        print(f"  {label}:")
        print(f"    loop overhead      {ms(samples['overhead'])}")
        print(f"    keyword retrieval  {ms(samples['retrieve'])}")
        print(
            f"    prompt (system + tool schemas) tokens: min {min(tokens):.0f}, median "
            f"{statistics.median(tokens):.0f}, max {max(tokens):.0f}"
        )
    registry = registry_of(load_manifests(10))
    walls = http_turns(registry, max(args.turns // 4, 20))
    print(f"  via real ollama client + FakeOllama HTTP (2 model calls, no retrieval): {ms(walls)}")
    if args.index:
        print(
            "with the real index (sentence-transformers + LanceDB), turn overhead = everything "
            "but the model:"
        )
        for label, manifests in sets[:2]:
            sync_seconds, samples = indexed_turns(manifests, min(args.turns, 50))
            overhead = [
                o + r for o, r in zip(samples["overhead"], samples["retrieve"], strict=True)
            ]
            tokens = samples["tokens"]
            print(f"  {label}: sync {sync_seconds:.1f} s")
            print(f"    retrieval          {ms(samples['retrieve'])}")
            print(f"    loop + retrieval   {ms(overhead)}")
            print(
                f"    prompt tokens: median {statistics.median(tokens):.0f}, max {max(tokens):.0f}"
            )
    print(parsing())
    per_cap, route = tool_design(load_manifests(10))
    print(
        f"tool design, 5 retrieved plugins: per-capability tools {per_cap} tokens, "
        f"route_to_plugin + parameter docs in the prompt {route} tokens"
    )


if __name__ == "__main__":
    main()
