"""OpenClaw's skill gating: `metadata.openclaw.{always, os, requires.{bins, anyBins, env, config}}`.

An ineligible skill stays in the registry and the index with its reason (so `skill list --all`
and `skill show` can explain it) but is never offered to the model.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.settings import Settings

# OpenClaw was called clawdis, clawdbot and moltbot before; skills in the wild use every name.
AGENT_KEYS = ("openclaw", "homeclaw", "clawdbot", "moltbot", "clawdis")
_GATING_KEYS = frozenset({"requires", "os", "always"})
_OS_ALIASES = {"macos": "darwin", "mac": "darwin", "osx": "darwin", "windows": "win32"}


@dataclass(frozen=True)
class Requirements:
    """What a skill needs before it may be offered; empty means always eligible."""

    always: bool = False
    os: tuple[str, ...] = ()
    bins: tuple[str, ...] = ()
    any_bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    config: tuple[str, ...] = ()
    primary_env: str | None = None
    namespace: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "always": self.always,
            "os": list(self.os),
            "bins": list(self.bins),
            "anyBins": list(self.any_bins),
            "env": list(self.env),
            "config": list(self.config),
            "primaryEnv": self.primary_env,
            "namespace": self.namespace,
        }


def agent_block(metadata: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """(namespace, block) of the agent-specific metadata, e.g. ("openclaw", {...})."""
    for key in AGENT_KEYS:
        value = metadata.get(key)
        if isinstance(value, dict):
            return key, value
    # Forks rename the namespace; one nested block holding gating keys is read the same way.
    candidates = [
        (str(k), v) for k, v in metadata.items() if isinstance(v, dict) and _GATING_KEYS & set(v)
    ]
    if len(candidates) == 1:
        return candidates[0]
    return None, {}


def requirements_of(metadata: Mapping[str, Any]) -> tuple[Requirements, list[str]]:
    """Requirements read from skill metadata, plus warnings for malformed fields."""
    namespace, block = agent_block(metadata)
    if namespace is None:
        return Requirements(), []
    warnings: list[str] = []
    where = f"metadata.{namespace}"
    requires = block.get("requires") or {}
    if not isinstance(requires, dict):
        warnings.append(f"{where}.requires must be a mapping; ignored")
        requires = {}

    def names(value: Any, field_name: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            warnings.append(f"{field_name} must be a list of strings; ignored")
            return ()
        return tuple(v.strip() for v in value if v.strip())

    os_names = tuple(
        _OS_ALIASES.get(name.lower(), name.lower())
        for name in names(block.get("os"), f"{where}.os")
    )
    primary = block.get("primaryEnv")
    return (
        Requirements(
            always=block.get("always") is True,
            os=os_names,
            bins=names(requires.get("bins"), f"{where}.requires.bins"),
            any_bins=names(requires.get("anyBins"), f"{where}.requires.anyBins"),
            env=names(requires.get("env"), f"{where}.requires.env"),
            config=names(requires.get("config"), f"{where}.requires.config"),
            primary_env=primary if isinstance(primary, str) else None,
            namespace=namespace,
        ),
        warnings,
    )


@dataclass
class EligibilityContext:
    """The machine a skill would run on: OS, PATH lookup, environment and config values."""

    platform: str = field(default_factory=lambda: sys.platform)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    which: Callable[[str], str | None] = shutil.which
    config_lookup: Callable[[str], Any] = lambda _path: None
    disabled: frozenset[str] = frozenset()
    entry_env: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def from_settings(
        cls, settings: Settings, env: Mapping[str, str] | None = None
    ) -> EligibilityContext:
        dumped = settings.model_dump(mode="json")

        def lookup(path: str) -> Any:
            found = _dotted(settings.skills.config, path)
            return found if found is not None else _dotted(dumped, path)

        return cls(
            env=dict(os.environ if env is None else env),
            config_lookup=lookup,
            disabled=frozenset(k for k, e in settings.skills.entries.items() if not e.enabled),
            entry_env={k: e.env for k, e in settings.skills.entries.items()},
        )


def _dotted(data: Any, path: str) -> Any:
    # Keys may themselves contain dots ("skills.entries.my.skill"): try the longest match first.
    if not path:
        return data
    if not isinstance(data, Mapping):
        return None
    if path in data:
        return data[path]
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:cut])
        if head in data:
            found = _dotted(data[head], ".".join(parts[cut:]))
            if found is not None:
                return found
    return None


def ineligible_reason(skill_id: str, req: Requirements, ctx: EligibilityContext) -> str | None:
    """Why `skill_id` may not be offered here, or None when it is eligible."""
    if skill_id in ctx.disabled:
        return f"disabled in config (skills.entries.{skill_id}.enabled: false)"
    if req.always:
        return None
    if req.os and ctx.platform not in req.os:
        return f"only for {', '.join(req.os)} (this system is {ctx.platform})"
    missing_bins = [b for b in req.bins if ctx.which(b) is None]
    if missing_bins:
        return "needs " + ", ".join(f"`{b}`" for b in missing_bins) + " on PATH"
    if req.any_bins and not any(ctx.which(b) for b in req.any_bins):
        return "needs one of " + ", ".join(f"`{b}`" for b in req.any_bins) + " on PATH"
    supplied = ctx.entry_env.get(skill_id, {})
    missing_env = [v for v in req.env if not (ctx.env.get(v) or supplied.get(v))]
    if missing_env:
        return (
            "needs env var "
            + ", ".join(missing_env)
            + f" (export it, or set skills.entries.{skill_id}.env)"
        )
    missing_config = [p for p in req.config if not ctx.config_lookup(p)]
    if missing_config:
        return (
            "needs config "
            + ", ".join(f"`{p}`" for p in missing_config)
            + " to be set (skills.config in the config file)"
        )
    return None
