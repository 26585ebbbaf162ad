"""Built-in tools, argument checks and the plugin allowlist."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.core.approval import EFFECTS
from homeclaw_cli.core.tool_registry import (
    Tool,
    ToolOutcome,
    ToolRegistry,
    check_arguments,
    coerce_arguments,
    object_schema,
)
from homeclaw_cli.runtime.builtin_tools import BuiltinConfig, add_builtins

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "number"}},
    "required": ["city"],
}


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"city": "Oslo"}, None),
        ({"city": "Oslo", "days": 3}, None),
        ({}, "missing required parameter `city`"),
        ({"city": "Oslo", "days": "3"}, "parameter `days` must be a number, got string"),
        ({"city": "Oslo", "days": True}, "parameter `days` must be a number, got boolean"),
        ({"cty": "Oslo"}, "unknown parameter `cty` (did you mean `city`?); valid: city, days"),
        ("Oslo", "arguments must be a JSON object, got str"),
    ],
)
def test_check_arguments(args: Any, problem: str | None) -> None:
    assert check_arguments(SCHEMA, args) == problem


ARRAY_SCHEMA = {
    "type": "object",
    "properties": {"ids": {"type": "array", "items": {"type": "integer"}}},
}


def test_array_items_are_checked_and_repaired_like_parameters() -> None:
    """A server refusing `["a"]` for integers is a worse error than homeclaw's own, and small
    models write `["2", "3"]` for integers as they write "5" for a number."""
    problem = check_arguments(ARRAY_SCHEMA, {"ids": [1, "a"]})
    assert problem == "parameter `ids` item 1 must be an integer, got string"
    repaired = coerce_arguments(ARRAY_SCHEMA, {"ids": ["2", "3"]})
    assert repaired == {"ids": [2, 3]} and check_arguments(ARRAY_SCHEMA, repaired) is None
    assert coerce_arguments(ARRAY_SCHEMA, {"ids": "4"}) == {"ids": [4]}


@pytest.mark.parametrize(
    ("args", "repaired"),
    [
        ({"place": "Oslo"}, {"city": "Oslo"}),
        ({"place": "Oslo", "days": "3"}, {"city": "Oslo", "days": 3}),
        # a value of another type is no evidence: `days: 2` is not a city
        ({"days_ahead": 2}, {"days_ahead": 2}),
        # ambiguous or nothing missing: left for the correction, which names the field
        ({"place": "Oslo", "where": "Bergen"}, {"place": "Oslo", "where": "Bergen"}),
        ({"city": "Oslo", "place": "Bergen"}, {"city": "Oslo", "place": "Bergen"}),
        ({"place": ["Oslo"]}, {"place": ["Oslo"]}),
    ],
)
def test_one_unknown_parameter_is_renamed_to_the_one_required_missing(
    args: dict[str, Any], repaired: dict[str, Any]
) -> None:
    assert coerce_arguments(SCHEMA, args) == repaired


@pytest.mark.parametrize("empty", ["", None, [], {}])
def test_an_empty_value_for_a_parameter_the_tool_lacks_is_dropped(empty: Any) -> None:
    """`{"path": ""}` to a tool that takes no parameters: the value says nothing."""
    none_taken = {"type": "object", "properties": {}}
    assert coerce_arguments(none_taken, {"path": empty}) == {}
    assert coerce_arguments(SCHEMA, {"city": "Oslo", "units": empty}) == {"city": "Oslo"}
    # a made-up parameter with a value is still refused, naming the valid ones
    assert coerce_arguments(none_taken, {"path": "/tmp"}) == {"path": "/tmp"}
    assert check_arguments(none_taken, {"path": "/tmp"}) is not None


async def _unused(args: dict[str, Any]) -> ToolOutcome:
    raise AssertionError("not run")


def _plugin_tool(name: str, schema: dict[str, Any], *, writes: bool = False) -> Tool:
    effects = frozenset(EFFECTS) if writes else frozenset({"read"})
    return Tool(name, name, schema, _unused, kind="plugin", effects=effects)


PLACE = {"place": {"type": "string"}}
WHEN = {"when": {"type": "string"}}


def _clock_and_dates(*more: Tool) -> ToolRegistry:
    return ToolRegistry(
        [
            _plugin_tool("dates__find_date", object_schema(WHEN)),
            _plugin_tool("timezones__current_time", object_schema(PLACE)),
            _plugin_tool("weather__now", object_schema({"city": {"type": "string"}}, ["city"])),
            *more,
        ]
    )


def test_a_call_with_only_another_tools_parameters_means_that_tool() -> None:
    registry = _clock_and_dates()
    assert registry.meant_by_arguments("dates__find_date", {"place": "Sydney"}) == (
        "timezones__current_time"
    )
    # the named tool takes the call, or takes it once repaired (`place` for its one
    # required `city`): it stays where the model sent it
    assert registry.meant_by_arguments("dates__find_date", {"when": "today"}) is None
    assert registry.meant_by_arguments("weather__now", {"place": "Oslo"}) is None
    # a parameter no other tool declares, or one of each tool's: no other tool fits
    assert registry.meant_by_arguments("dates__find_date", {"zone": "Sydney"}) is None
    assert registry.meant_by_arguments("dates__find_date", {"place": "X", "when": "y"}) is None
    assert registry.meant_by_arguments("dates__find_date", {}) is None


def test_a_call_goes_to_another_tool_only_when_one_read_only_plugin_tool_fits() -> None:
    twin = _plugin_tool("mcp-time__get_time", object_schema(PLACE))
    assert _clock_and_dates(twin).meant_by_arguments("dates__find_date", {"place": "X"}) is None
    writer = _plugin_tool("notes__add", object_schema({"text": {"type": "string"}}), writes=True)
    registry = _clock_and_dates(writer)
    assert registry.meant_by_arguments("dates__find_date", {"text": "buy milk"}) is None


class _Big(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = b"x" * 5000 if self.path == "/big" else b"hello"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def web() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Big)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def tools(tmp_path: Path, **config: Any) -> ToolRegistry:
    registry = ToolRegistry()
    add_builtins(registry, BuiltinConfig(allowed_dirs=[tmp_path], **config))
    return registry


def run(registry: ToolRegistry, name: str, args: Any, caller: str = "model") -> ToolOutcome:
    return asyncio.run(registry.execute(name, args, caller=caller))


def test_fetch_url_limits_and_private_hosts(tmp_path: Path, web: str) -> None:
    refused = run(tools(tmp_path), "fetch_url", {"url": web + "/"})
    assert not refused.ok and "fetch_allow_private" in refused.text
    allowed = tools(tmp_path, fetch_allow_private=True, fetch_max_bytes=1024)
    small = run(allowed, "fetch_url", {"url": web + "/"})
    assert small.ok and small.text == "HTTP 200\nhello"
    big = run(allowed, "fetch_url", {"url": web + "/big"})
    assert big.text.endswith("[truncated at 1024 bytes]") and big.text.count("x") == 1024
    assert not run(allowed, "fetch_url", {"url": "file:///etc/passwd"}).ok


def test_list_dir_and_current_time(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("a")
    assert run(tools(tmp_path), "list_dir", {}).text == "a.txt\nsub/"
    assert not run(tools(tmp_path), "list_dir", {"path": "/"}).ok
    assert "UTC" in run(tools(tmp_path), "current_time", {"timezone": "UTC"}).text
    assert not run(tools(tmp_path), "current_time", {"timezone": "Mars/Base"}).ok


def test_plugins_may_call_only_allowlisted_tools(tmp_path: Path) -> None:
    registry = tools(tmp_path)
    assert run(registry, "current_time", {}, caller="plugin:weather").ok
    refused = run(registry, "read_file", {"path": "a"}, caller="plugin:weather")
    assert not refused.ok and "not allowlisted for plugins" in refused.text


def test_a_crashing_tool_is_an_error_outcome() -> None:
    from homeclaw_cli.core.tool_registry import Tool, object_schema

    async def boom(args: dict[str, Any]) -> ToolOutcome:
        raise RuntimeError("kaput")

    registry = ToolRegistry()
    registry.add(Tool("boom", "explodes", object_schema({}), boom))
    outcome = run(registry, "boom", {})
    assert not outcome.ok and outcome.failed_for_good and "kaput" in outcome.text
