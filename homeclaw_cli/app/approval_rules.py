"""Approval rules that name nothing installed: a typo in `--approve-rule notes.delete=never`
would otherwise be silently ignored, and the call it meant to stop would run."""

from __future__ import annotations

from collections.abc import Iterable

from homeclaw_cli.catalog.registry import PluginEntry
from homeclaw_cli.errors import UsageError
from homeclaw_cli.settings import Settings
from homeclaw_cli.suggest import did_you_mean

RULES_KEY = "tools.approve_rules"


def rule_names(
    plugins: Iterable[PluginEntry], skills: Iterable[str], tools: Iterable[str]
) -> tuple[set[str], set[str]]:
    """The names a rule may use (plugin, plugin.capability, tool, run_skill.<skill>), and the
    plugins whose capabilities are only known once connected (MCP): any `id.x` is theirs."""
    names = set(tools) | {f"run_skill.{skill}" for skill in skills}
    open_ended: set[str] = set()
    for entry in plugins:
        names.add(entry.id)
        for capability in entry.manifest.capabilities:
            names |= {f"{entry.id}.{capability.id}", f"{entry.id}__{capability.id}"}
        if entry.manifest.type == "mcp":
            open_ended.add(entry.id)
    return names, open_ended


def check_rules(settings: Settings, names: set[str], open_ended: set[str]) -> list[str]:
    """Warnings for config rules that match nothing; a UsageError for such an --approve-rule."""
    unknown = [
        key
        for key in settings.tools.approve_rules
        if key not in names and key.partition(".")[0] not in open_ended
    ]
    if not unknown:
        return []
    source = settings.sources.get(RULES_KEY, "")
    key = unknown[0]
    problem = f"names no installed plugin, capability or tool{did_you_mean(key, names)}"
    if source.startswith("flag"):
        raise UsageError(
            f"--approve-rule {key}={settings.tools.approve_rules[key]} {problem}",
            hint="use PLUGIN or PLUGIN.CAPABILITY as `homeclaw plugin list` and "
            "`homeclaw plugin show PLUGIN` name them",
        )
    where = source.removeprefix("config ").removeprefix("env ") or RULES_KEY
    return [
        f"{RULES_KEY}: {k} in {where} "
        f"names no installed plugin, capability or tool{did_you_mean(k, names)}; it applies to "
        "nothing"
        for k in unknown
    ]
