"""The tool names a plugin's capabilities get (`<plugin>__<capability>`) must fit every LLM API.

OpenAI-compatible servers refuse a request whose tool name is longer than 64 characters, so a
long plugin id plus a long capability id fails every chat turn that retrieves the plugin.
"""

from __future__ import annotations

from collections.abc import Callable

from homeclaw_cli.core.capability_tools import tool_name
from homeclaw_cli.core.manifest import PluginManifest

MAX_TOOL_NAME = 64


def check_tool_names(manifest: PluginManifest, add: Callable[..., None]) -> None:
    """Warn about each capability whose tool name is too long for OpenAI-compatible servers."""
    for index, capability in enumerate(manifest.capabilities):
        name = tool_name(manifest.id, capability.id)
        over = len(name) - MAX_TOOL_NAME
        if over > 0:
            add(
                "warning",
                "tool-name-too-long",
                ("capabilities", index, "id"),
                f"tool name {name!r} is {len(name)} characters; OpenAI-compatible servers "
                f"refuse tool names over {MAX_TOOL_NAME}",
                f"shorten the plugin id or the capability id by {over} "
                f"character{'s' if over > 1 else ''}",
            )
