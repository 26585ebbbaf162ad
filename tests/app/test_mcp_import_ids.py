"""The capability ids `plugin mcp-import` gives an MCP server's tools."""

from __future__ import annotations

from homeclaw_cli.app.mcp_import import capability_ids
from homeclaw_cli.catalog.tool_name_checks import MAX_TOOL_NAME


def test_names_that_make_one_id_are_numbered_and_valid_names_kept() -> None:
    ids = capability_ids(["a.b", "a-b", "getTime"])
    assert ids == {"a.b": "a-b-2", "a-b": "a-b", "getTime": "get-time"}


def test_long_names_are_cut_so_the_tool_name_fits_openai_compatible_servers() -> None:
    """`<plugin>__<capability>` over 64 characters makes the server refuse every chat request
    that retrieves the plugin."""
    plugin = "company-docs"
    room = MAX_TOOL_NAME - len(plugin) - 2
    names = ["search_" + "x" * 100, "search_" + "x" * 99 + "y", "short"]
    ids = capability_ids(names, room)
    assert all(len(f"{plugin}__{cap}") <= MAX_TOOL_NAME for cap in ids.values())
    assert len(set(ids.values())) == 3 and ids["short"] == "short"
    assert ids[names[1]].endswith("-2")
