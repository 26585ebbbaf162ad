"""`homeclaw mcp serve` tested with the mcp SDK's real Client: in-process, stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.mcp_toolbox import Services, Toolbox
from homeclaw_cli.core.capability_tools import parameters_schema
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.retrieval import RetrievalResult
from homeclaw_cli.errors import UsageError
from homeclaw_cli.runtime.skill_run import ScriptResult
from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.state.external_registrations import register_external, registration_lock
from homeclaw_cli.state.health import HealthStore
from homeclaw_cli.surfaces.mcp.server import build_server
from tests.fakes.processes import LineProcess, child_env
from tests.fakes.retrieval import hit

# --- fakes with the contract shapes (PluginCaller, RetrievalService, skills) --------------


@dataclass
class FakeResult:
    success: bool
    text: str = ""
    error: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class FakeOutcome:
    result: FakeResult
    post_process: bool = False
    post_process_prompt: str | None = None


class FakeCaller:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None, dict[str, Any]]] = []
        self.closed = False

    async def call(
        self, plugin_id: str, capability_id: str | None, parameters: dict[str, Any], **_: Any
    ) -> FakeOutcome:
        self.calls.append((plugin_id, capability_id, parameters))
        if parameters.get("text") == "raise":
            raise UsageError("the caller refused", hint="say something else")
        if parameters.get("text") == "fail":
            return FakeOutcome(FakeResult(False, error="the plugin server is down"))
        if parameters.get("text") == "summarise":
            return FakeOutcome(FakeResult(True, text="raw"), True, "Make it a haiku.")
        return FakeOutcome(FakeResult(True, text=str(parameters.get("text", "")).upper()))

    async def aclose(self) -> None:
        self.closed = True


class FakeRetrieval:
    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        desc = {
            "id": "echo",
            "manifest": {"description": "Shout", "capabilities": [{"id": "shout"}]},
        }
        hits = [hit("echo", "plugin", 0.9, descriptor=desc)]
        return RetrievalResult(query, hits, hits)

    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        hits = [hit("pdf", "skill", 0.5, descriptor={"description": "PDFs"})]
        return RetrievalResult(query, hits, hits)


@dataclass
class FakeSkill:
    name: str
    description: str
    body: str
    scripts: list[str]
    eligible: bool = True
    frontmatter: dict[str, Any] = field(default_factory=dict)


class FakeSkills:
    """SkillSource with one eligible skill (pdf) and one that is not (off)."""

    def __init__(self, _: AppContext) -> None:
        pass

    def skills(self) -> dict[str, Any]:
        return {
            "pdf": FakeSkill("PDF tools", "Work with PDFs.", "Use pdftotext.", ["extract.sh"]),
            "off": FakeSkill("Off", "Not eligible.", "", [], eligible=False),
        }

    def read(self, skill_id: str, path: str) -> str:
        raise AssertionError("MCP shows a skill's body, it does not read files")

    def run(
        self, skill_id: str, script: str, args: list[str], cancel: threading.Event | None = None
    ) -> ScriptResult:
        stdout = f"{skill_id}/{script} {' '.join(args)}"
        return ScriptResult(0 if args != ["bad"] else 2, stdout, "", False, False, 0.0)


ECHO = {
    "id": "echo",
    "name": "Echo",
    "description": "Echo a message back, shouted.",
    "health_check_url": "http://127.0.0.1:9/health",
    "type": "http",
    "config": {"base_url": "http://127.0.0.1:9"},
    "capabilities": [
        {
            "id": "shout",
            "name": "Shout",
            "description": "Repeat a message in upper case.",
            "output_description": "The message, shouted.",
            "parameters": [{"name": "text", "type": "string", "description": "Message"}],
            "method": "POST",
            "path": "/echo",
        }
    ],
}


@pytest.fixture
def settings(hc_home: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")
    settings = load_settings()
    register_external(
        settings.external_plugins_file,
        registration_lock(settings.state_dir),
        PluginManifest.model_validate(ECHO),
    )
    return settings


@pytest.fixture
def caller() -> FakeCaller:
    return FakeCaller()


@pytest.fixture
def toolbox(settings: Settings, caller: FakeCaller) -> Toolbox:
    services = Services(lambda _: caller, lambda _: FakeRetrieval(), FakeSkills)
    return Toolbox(AppContext(settings), services)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_tools_are_capabilities_skills_and_search(toolbox: Toolbox) -> None:
    async def scenario() -> Any:
        async with Client(build_server(toolbox)) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(scenario())}
    assert set(tools) == {"homeclaw_search", "echo__shout", "skill__pdf"}
    manifest = PluginManifest.model_validate(ECHO)
    assert tools["echo__shout"].input_schema == parameters_schema(manifest.capabilities[0])
    assert tools["echo__shout"].description == (
        "[Echo] Repeat a message in upper case. Returns: The message, shouted."
    )
    assert tools["skill__pdf"].input_schema["properties"]["script"]["enum"] == ["extract.sh"]
    assert tools["homeclaw_search"].input_schema["required"] == ["query"]


def test_calling_a_plugin_goes_through_the_caller(toolbox: Toolbox, caller: FakeCaller) -> None:
    async def scenario() -> Any:
        async with Client(build_server(toolbox)) as client:
            ok = await client.call_tool("echo__shout", {"text": "hi"})
            failed = await client.call_tool("echo__shout", {"text": "fail"})
            unknown = await client.call_tool("missing__run", {})
            nonsense = await client.call_tool("nonsense", {})
            post = await client.call_tool("echo__shout", {"text": "summarise"})
            refused = await client.call_tool("echo__shout", {"text": "raise"})
            bad = await client.call_tool("echo__shout", {"txt": 5})  # a string would be renamed
            return ok, failed, unknown, nonsense, post, refused, bad

    ok, failed, unknown, nonsense, post, refused, bad = run(scenario())
    assert post.content[0].text == (
        "raw\n\n[Rewrite this result for the user before showing it: Make it a haiku.]"
    )
    assert (ok.is_error, ok.content[0].text) == (False, "HI")
    assert (failed.is_error, failed.content[0].text) == (True, "the plugin server is down")
    assert unknown.is_error
    assert unknown.content[0].text.startswith("unknown tool `missing__run`")
    assert nonsense.is_error
    assert (refused.is_error, refused.content[0].text) == (
        True,
        "the caller refused (say something else)",
    )
    assert bad.is_error and "unknown parameter `txt` (did you mean `text`?)" in bad.content[0].text
    assert caller.calls[0] == ("echo", "shout", {"text": "hi"})
    assert len(caller.calls) == 4  # unknown tools and bad arguments never reach the caller
    assert caller.closed  # the server's lifespan closes the caller's sessions


def test_search_and_skills(toolbox: Toolbox) -> None:
    async def scenario() -> Any:
        async with Client(build_server(toolbox)) as client:
            return (
                await client.call_tool("homeclaw_search", {"query": "shout hello"}),
                await client.call_tool("homeclaw_search", {"query": ""}),
                await client.call_tool("skill__pdf", {}),
                await client.call_tool("skill__pdf", {"script": "extract.sh", "args": ["a"]}),
                await client.call_tool("skill__pdf", {"script": "extract.sh", "args": ["bad"]}),
            )

    found, empty, instructions, ran, failed = run(scenario())
    hits = json.loads(found.content[0].text)["hits"]
    assert [(h["kind"], h["id"], h["tools"]) for h in hits] == [
        ("plugin", "echo", ["echo__shout"]),
        ("skill", "pdf", ["skill__pdf"]),
    ]
    assert empty.is_error
    assert "Use pdftotext." in instructions.content[0].text
    assert ran.content[0].text.strip() == "pdf/extract.sh a"
    assert failed.is_error
    assert "exit code 2" in failed.content[0].text


@pytest.mark.parametrize("limit", [0, -3, 51])
def test_search_refuses_a_limit_outside_its_schema(toolbox: Toolbox, limit: int) -> None:
    async def scenario() -> Any:
        async with Client(build_server(toolbox)) as client:
            return await client.call_tool("homeclaw_search", {"query": "shout", "limit": limit})

    result = run(scenario())
    assert result.is_error, result.content[0].text
    assert result.content[0].text == (
        f"bad call to `homeclaw_search`: parameter `limit` must be at least 1 and at most 50, "
        f"got {limit}"
    )


def test_unhealthy_plugins_are_left_out_of_the_list_but_still_callable(
    toolbox: Toolbox, settings: Settings
) -> None:
    HealthStore(settings.state_dir).record("echo", False, "down", unhealthy_after=1)
    assert "echo__shout" not in {tool.name for tool in toolbox.list_tools()}
    outcome = run(toolbox.call("echo__shout", {"text": "back"}))
    assert (outcome.ok, outcome.text) == (True, "BACK")


def test_a_call_the_config_forbids_is_refused_and_every_change_is_audited(
    hc_home: Path, monkeypatch: pytest.MonkeyPatch, caller: FakeCaller
) -> None:
    """Asking is the MCP client's job; a `never` rule is homeclaw's, and holds for any client."""
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")
    monkeypatch.setenv("HOMECLAW_TOOLS__APPROVE_RULES", "{echo.shout: never}")
    settings = load_settings()
    register_external(
        settings.external_plugins_file,
        registration_lock(settings.state_dir),
        PluginManifest.model_validate(ECHO),
    )
    services = Services(lambda _: caller, lambda _: FakeRetrieval(), FakeSkills)

    async def scenario() -> Any:
        async with Client(build_server(Toolbox(AppContext(settings), services))) as client:
            return await client.call_tool("echo__shout", {"text": "hi"})

    refused = run(scenario())
    assert refused.is_error and caller.calls == []
    assert refused.content[0].text == (
        'not run: echo__shout(text="hi") is not allowed (echo.shout is `never`)'
    )
    monkeypatch.setenv("HOMECLAW_TOOLS__APPROVE_RULES", "{}")
    settings = load_settings()
    toolbox = Toolbox(AppContext(settings), services)
    ran = run(toolbox.call("echo__shout", {"text": "hi"}))
    assert ran.ok and caller.calls == [("echo", "shout", {"text": "hi"})]
    # A call that cannot run is no decision: it was audited as allowed, and never ran.
    bad = run(toolbox.call("echo__shout", {"text": "hi", "volume": 11}))
    assert not bad.ok and "unknown parameter `volume`" in bad.text
    events = [
        json.loads(line)
        for line in (settings.data_dir / "audit.jsonl").read_text().splitlines()
        if '"tool-approval"' in line
    ]
    assert [(e["id"], e["allowed"], e["decided"]) for e in events] == [
        ("echo.shout", False, "refused"),
        ("echo.shout", True, "the MCP client's"),
    ]


def test_stdio_transport_with_the_real_cli(settings: Settings) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "homeclaw_cli", "mcp", "serve"],
        env=child_env(),
    )

    async def scenario() -> Any:
        async with Client(params) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(scenario())}
    assert {"homeclaw_search", "echo__shout"} <= set(tools)
    # Effects travel as MCP hints: the client can ask its user before a change.
    assert tools["homeclaw_search"].annotations.read_only_hint is True
    shout = tools["echo__shout"].annotations  # a POST without declared effects: a write
    assert shout.read_only_hint is False and shout.destructive_hint is False


def test_stdio_calls_a_bundled_inline_plugin_without_corrupting_the_stream(
    settings: Settings,
) -> None:
    # An inline plugin runs inside the MCP server process, whose stdout is the protocol.
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "homeclaw_cli", "mcp", "serve"],
        env=child_env({"HOMECLAW_NO_BUNDLED": "0"}),
    )

    async def scenario() -> Any:
        async with Client(params) as client:
            first = await client.call_tool("calculator__evaluate", {"expression": "6*7"})
            second = await client.call_tool("calculator__evaluate", {"expression": "2**10"})
            return first, second

    first, second = run(scenario())
    assert (first.is_error, first.content[0].text.strip()) == (False, "6*7 = 42")
    assert second.content[0].text.strip() == "2**10 = 1024"


def test_streamable_http_transport_needs_the_token(settings: Settings) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    proc = LineProcess(
        [sys.executable, "-m", "homeclaw_cli", "mcp", "serve", "-t", "http", "--port", "0"],
        env=child_env(),
    )
    try:
        url = proc.wait_for(r"MCP server on (http://\S+/mcp)").group(1)
        token = (settings.state_dir / "serve_token").read_text().strip()
        refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401

        async def scenario() -> Any:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                return (await client.list_tools()).tools

        assert "echo__shout" in {t.name for t in run(scenario())}
    finally:
        proc.stop()


def test_streamable_http_without_token(settings: Settings) -> None:
    proc = LineProcess(
        [
            sys.executable,
            "-m",
            "homeclaw_cli",
            "mcp",
            "serve",
            "-t",
            "http",
            "--port",
            "0",
            "--no-token",
        ],
        env=child_env(),
    )
    try:
        url = proc.wait_for(r"MCP server on (http://\S+/mcp)").group(1)

        async def scenario() -> Any:
            async with Client(url) as client:
                return (await client.list_tools()).tools

        assert "echo__shout" in {t.name for t in run(scenario())}
        assert any("token is turned off" in line for line in proc.seen)
    finally:
        proc.stop()


def test_real_skills_through_scan_skills_and_run_skill(settings: Settings) -> None:
    from homeclaw_cli.app.mcp_toolbox import default_services
    from tests.skill_helpers import make_skill

    make_skill(
        settings.user_skills_dir,
        "greeter",
        description="Greets people by name.",
        body="# Greet\n\nRun scripts/hello.py NAME.\n",
        scripts={"hello.py": "import sys\nprint('hello ' + ' '.join(sys.argv[1:]))\n"},
    )
    services = default_services()
    services.caller = lambda _: FakeCaller()
    toolbox = Toolbox(AppContext(settings), services)

    async def scenario() -> Any:
        async with Client(build_server(toolbox)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            read = await client.call_tool("skill__greeter", {})
            ran = await client.call_tool("skill__greeter", {"script": "hello.py", "args": ["Ada"]})
            escape = await client.call_tool("skill__greeter", {"script": "../SKILL.md"})
            return tools, read, ran, escape

    tools, read, ran, escape = run(scenario())
    assert tools["skill__greeter"].input_schema["properties"]["script"]["enum"] == ["hello.py"]
    assert "Run scripts/hello.py NAME." in read.content[0].text
    assert (ran.is_error, ran.content[0].text.strip()) == (False, "hello Ada")
    assert escape.is_error


def test_a_real_http_plugin_through_the_real_plugin_caller(hc_home: Path) -> None:
    from homeclaw_cli.app.mcp_toolbox import default_services
    from tests.fakes.external_plugin import descriptor
    from tests.fakes.processes import start_plugin

    plugin, port, _ = start_plugin(child_env(), homeclaw=None, token_file=None)
    try:
        settings = load_settings(env={"HOMECLAW_HOME": str(hc_home), "HOMECLAW_NO_BUNDLED": "1"})
        payload = descriptor("echo", port)
        payload["id"] = payload.pop("plugin_id")
        register_external(
            settings.external_plugins_file,
            registration_lock(settings.state_dir),
            PluginManifest.model_validate(payload),
        )
        services = default_services()
        services.retrieval = lambda _: FakeRetrieval()

        async def scenario() -> Any:
            async with Client(build_server(Toolbox(AppContext(settings), services))) as client:
                return await client.call_tool("echo__shout", {"text": "over mcp"})

        reply = run(scenario())
        assert (reply.is_error, reply.content[0].text) == (False, "OVER MCP")
    finally:
        plugin.kill()


def test_search_tool_runs_the_real_retrieval(settings: Settings, fake_models: Any) -> None:
    from homeclaw_cli.app.mcp_toolbox import default_services
    from homeclaw_cli.app.sync import sync

    sync(settings, kinds=("plugins",))
    services = default_services()
    services.caller = lambda _: FakeCaller()

    async def scenario() -> Any:
        async with Client(build_server(Toolbox(AppContext(settings), services))) as client:
            return await client.call_tool(
                "homeclaw_search", {"query": "shout a message back", "kind": "plugins"}
            )

    reply = run(scenario())
    assert not reply.is_error, reply.content[0].text
    hits = json.loads(reply.content[0].text)["hits"]
    assert hits[0]["id"] == "echo"
    assert hits[0]["tools"] == ["echo__shout"]
