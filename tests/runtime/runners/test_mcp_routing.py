from __future__ import annotations

from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.mcp_client import McpTool
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.runtime.runners.base import PluginRequest, RunTarget
from homeclaw_cli.runtime.runners.mcp import request_arguments, route, unmapped_capabilities


def manifest(caps: list[str], **config: Any) -> PluginManifest:
    return PluginManifest.model_validate(
        {
            "id": "m",
            "name": "M",
            "description": "An MCP plugin.",
            "type": "mcp",
            "config": {"command": "x", **config},
            "capabilities": [{"id": c, "name": c, "description": "d"} for c in caps],
        }
    )


def tool(name: str, props: dict[str, Any] | None = None) -> McpTool:
    return McpTool(name, "", {"type": "object", "properties": props or {}})


def target(m: PluginManifest, cap_id: str) -> RunTarget:
    cap = next(c for c in m.callable_capabilities() if c.id == cap_id)
    return RunTarget(m, cap, None, Path("/tmp"), declared=bool(m.capabilities))


def request(cap_id: str, **params: Any) -> PluginRequest:
    return PluginRequest(plugin_id="m", capability_id=cap_id, parameters=params, user_input="hi")


def test_explicit_mapping_then_same_name_then_underscored_name() -> None:
    m = manifest(["get-time", "read_file", "list-dir"], tools={"get-time": "getTime"})
    tools = [tool("getTime"), tool("read_file"), tool("list_dir")]
    assert route(target(m, "get-time"), request("get-time"), tools)[0] == "getTime"
    assert route(target(m, "read_file"), request("read_file", path="/a"), tools) == (
        "read_file",
        {"path": "/a"},
    )
    assert route(target(m, "list-dir"), request("list-dir"), tools)[0] == "list_dir"


def test_designated_tool_gets_the_request_shaped_by_its_schema() -> None:
    m = manifest([])
    whole = tool("handle_request", {"request": {"type": "object"}})
    name, args = route(target(m, "run"), request("run", input="hi"), [whole])
    assert name == "handle_request"
    assert args["request"]["user_input"] == "hi"
    assert args["request"]["capability_id"] == "run"

    fields = {"user_input": {"type": "string"}, "chat_context": {"type": "string"}}
    assert request_arguments({"properties": fields}, request("run")) == {
        "user_input": "hi",
        "chat_context": "",
    }
    assert request_arguments({"properties": {"input": {"type": "string"}}}, request("run")) == {
        "input": "hi"
    }


def test_no_tool_when_nothing_matches() -> None:
    m = manifest(["weather"], tool="main")
    assert route(target(m, "weather"), request("weather"), [tool("other")]) == (None, {})
    assert unmapped_capabilities(m, [tool("other")]) == ["weather"]
    assert unmapped_capabilities(m, [tool("main")]) == []
    assert unmapped_capabilities(manifest([]), [tool("x")]) == ["run"]
