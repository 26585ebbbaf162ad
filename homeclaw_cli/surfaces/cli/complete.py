"""Shell completion sources: plugin and skill ids, capabilities, `-p` parameter names and the
values of options that take one of a fixed set.

Typer calls these with the partly parsed command line (`ctx.params`) while the shell asks;
they must stay quiet and never fail, so any error yields no candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import typer

from homeclaw_cli.surfaces.cli.state import get_state

if TYPE_CHECKING:
    from homeclaw_cli.core.manifest import Capability


def _starting(names: Sequence[str], incomplete: str) -> list[str]:
    return [n for n in names if n.startswith(incomplete)]


def plugin_ids(ctx: typer.Context, incomplete: str) -> list[str]:
    """Plugin ids, the disabled ones too (enable, show)."""
    try:
        registry = get_state(ctx).context().registry
        ids = sorted({*registry.plugins, *registry.disabled})
    except Exception:  # completion must never print a traceback into the shell
        return []
    return _starting(ids, incomplete)


def skill_ids(ctx: typer.Context, incomplete: str) -> list[str]:
    """Skill ids, the disabled ones too."""
    try:
        registry = get_state(ctx).context().skill_registry
        ids = sorted({*registry.skills, *registry.disabled})
    except Exception:
        return []
    return _starting(ids, incomplete)


def installed_ids(kind: Literal["plugin", "skill"]) -> Callable[[typer.Context, str], list[str]]:
    """Ids of the installed items of a kind (remove, update): the folders in its user folder
    and the lockfile's entries, not the bundled ones or those of other plugin folders."""

    def installed(ctx: typer.Context, incomplete: str) -> list[str]:
        from homeclaw_cli.state.lockfile import lockfile_path, read_lockfile  # only completing

        try:
            settings = get_state(ctx).context().settings
            folder = settings.user_plugins_dir if kind == "plugin" else settings.user_skills_dir
            found = folder.iterdir() if folder.is_dir() else iter(())
            ids = {p.name for p in found if p.is_dir() and not p.name.startswith(".")}
            ids |= set(read_lockfile(lockfile_path(settings)).section(kind))
        except Exception:
            return []
        return _starting(sorted(ids), incomplete)

    return installed


def _call_words(ctx: typer.Context) -> tuple[str | None, str | None, list[str]]:
    """(plugin id, capability, -p values given) of the `plugin call` being completed.

    While an option's value is completed (`-p <TAB>`) the command line ends in that option,
    which the parser refuses, so ctx.params is empty: the shell's words say it instead.
    """
    if ctx.params.get("plugin_id"):
        values = [str(p) for p in ctx.params.get("params") or []]
        return ctx.params["plugin_id"], ctx.params.get("capability"), values
    import os
    import shlex

    try:
        words = shlex.split(os.environ.get("COMP_WORDS", ""))
    except ValueError:
        return None, None, []
    words = words[words.index("call") + 1 :] if "call" in words else []
    positional: list[str] = []
    given: list[str] = []
    for before, word in zip(["", *words], words, strict=False):
        if before in ("-p", "--param"):
            given.append(word)
        elif not word.startswith("-") and before not in ("-i", "--input"):
            positional.append(word)
    first, second = [*positional, None, None][:2]
    return first, second, given


def _capabilities(ctx: typer.Context, plugin_id: str | None = None) -> list[Capability]:
    plugin_id = plugin_id or ctx.params.get("plugin_id") or ""
    try:
        entry = get_state(ctx).context().registry.plugins.get(plugin_id)
    except Exception:
        return []
    return entry.manifest.callable_capabilities() if entry is not None else []


def capabilities(ctx: typer.Context, incomplete: str) -> list[str]:
    """The capabilities of the plugin named before."""
    return _starting([c.id for c in _capabilities(ctx)], incomplete)


def parameters(ctx: typer.Context, incomplete: str) -> list[str]:
    """`-p NAME=` for the chosen capability's parameters; after `NAME=`, its enum values."""
    plugin_id, wanted, given_values = _call_words(ctx)
    caps = _capabilities(ctx, plugin_id)
    chosen = [c for c in caps if c.id == wanted] if wanted else caps[:1] if len(caps) == 1 else []
    if not chosen:
        return []
    given = {value.partition("=")[0].rstrip(":") for value in given_values}
    name, sep, _ = incomplete.partition("=")
    for param in chosen[0].parameters:
        if sep and param.name == name.rstrip(":"):
            values = [str(v).lower() if isinstance(v, bool) else str(v) for v in param.enum or []]
            return _starting([f"{name}={v}" for v in values], incomplete)
    names = [f"{p.name}=" for p in chosen[0].parameters if p.name not in given]
    return _starting(names, incomplete)


def choices(*values: str) -> Callable[[typer.Context, str], list[str]]:
    """A completion source for an option that takes one of `values`."""

    def complete(ctx: typer.Context, incomplete: str) -> list[str]:
        return _starting(values, incomplete)

    return complete


def plugin_argument(help_text: str, **extra: Any) -> Any:
    """A PLUGIN_ID argument that completes installed plugin ids."""
    return typer.Argument(metavar="PLUGIN_ID", help=help_text, autocompletion=plugin_ids, **extra)


def installed_argument(kind: Literal["plugin", "skill"], help_text: str = "") -> Any:
    """The ID argument of `remove` and `update`: completes the installed items of `kind` only."""
    return typer.Argument(
        metavar=f"{kind.upper()}_ID",
        help=help_text or f"Installed {kind} id.",
        autocompletion=installed_ids(kind),
    )


def skill_argument(help_text: str, **extra: Any) -> Any:
    """A SKILL_ID argument that completes skill ids."""
    return typer.Argument(metavar="SKILL_ID", help=help_text, autocompletion=skill_ids, **extra)
