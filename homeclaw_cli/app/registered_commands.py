"""What `plugin register` says about the command of a registration that runs one.

An external plugin has no folder: its process starts in whatever folder homeclaw is started
from (the MCP client's for `mcp serve`), so a relative path finds another file or none, and a
command that is not there fails only at the first call, long after the registration.
"""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.catalog.plugin_files import resolve_command
from homeclaw_cli.core.manifest import PluginManifest


def command_warnings(manifest: PluginManifest, cwd: Path) -> list[str]:
    """Warnings about the commands (config and `config.start`) of `manifest`, registered
    from `cwd`: relative paths, and commands that cannot be found."""
    warnings: list[str] = []
    relative: list[str] = []
    for part in (manifest.config, manifest.managed_start()):
        command = getattr(part, "command", None)
        if not isinstance(command, str):
            continue
        if "/" in command and not command.startswith(("/", "~", "$", "{")):
            relative.append(command)
        elif not command.startswith(("$", "{")) and resolve_command(command, None) is None:
            warnings.append(
                f"command {command!r} of {manifest.id!r} is not on PATH or not there: its "
                "calls will fail until it is"
            )
        args: list[str] = getattr(part, "args", [])
        relative += [
            a for a in args if not a.startswith(("/", "~", "$", "{", "-")) and (cwd / a).exists()
        ]
    if relative:
        shown = ", ".join(repr(r) for r in relative)
        warnings.append(
            f"{shown} in the command of {manifest.id!r} is relative to {cwd}, but an external "
            "plugin runs in the folder homeclaw is started from; register it with absolute paths"
        )
    return warnings
