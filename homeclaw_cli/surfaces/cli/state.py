"""Per-invocation state shared by every command: global flags, lazily loaded Settings and the
AppContext built from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.settings import Settings


@dataclass
class AppState:
    """The global flags of one invocation and its Settings, loaded on first use."""

    config_file: Path | None = None
    plugin_dirs: list[Path] = field(default_factory=list)
    debug: bool = False
    flags: dict[str, Any] = field(default_factory=dict)
    _settings: Settings | None = None
    _context: AppContext | None = None

    @classmethod
    def from_global_options(cls, params: Mapping[str, Any]) -> AppState:
        """The state the root command's options (`--config`, `--plugins-dir`, ...) give, read
        from its context's params."""
        trusted = {"plugins.trust_workspace": True, "skills.trust_workspace": True}
        return cls(
            config_file=Path(params["config"]) if params.get("config") else None,
            plugin_dirs=[Path(folder) for folder in params.get("plugins_dir") or []],
            debug=bool(params.get("debug")),
            flags=dict(trusted) if params.get("trust_workspace") else {},
        )

    def settings(self, **flags: Any) -> Settings:
        """Load Settings once per invocation (flags given here win over config and env)."""
        if self._settings is None or flags:
            from homeclaw_cli.settings import check_item_dirs, load_settings

            self._settings = load_settings(
                config_file=self.config_file,
                flags={**self.flags, **flags},
                extra_plugin_dirs=self.plugin_dirs,
            )
            check_item_dirs(self._settings)  # --plugins-dir is checked by the root command
        return self._settings

    def context(self, **flags: Any) -> AppContext:
        """The invocation's AppContext, built once over `settings(**flags)` (new settings, new
        context)."""
        settings = self.settings(**flags)
        if self._context is None or self._context.settings is not settings:
            from homeclaw_cli.app.context import AppContext

            self._context = AppContext(settings)
            self._context.notice = _notice
        return self._context


def _notice(message: str) -> None:
    """AppContext.notice for every command: one line on stderr, never on stdout."""
    from homeclaw_cli.surfaces.render import Output

    Output().info(message)


def get_state(ctx: typer.Context) -> AppState:
    """The invocation's AppState, kept on the root context and made from its options.

    Shell completion parses the command line without running the root callback, so the
    global options are read from the root's params, which both paths have parsed by now.
    """
    root = ctx.find_root()
    if not isinstance(root.obj, AppState):
        root.obj = AppState.from_global_options(root.params)
    return root.obj


def llm_settings(ctx: typer.Context, model: str | None, host: str | None, **extra: Any) -> Settings:
    """Settings with the --model/--host flags of `chat` and `doctor` (and `extra` overrides)
    applied when given."""
    return get_state(ctx).settings(**_llm_flags(model, host), **extra)


def llm_context(ctx: typer.Context, model: str | None, host: str | None) -> AppContext:
    """The AppContext over llm_settings (for `chat` and `doctor`)."""
    return get_state(ctx).context(**_llm_flags(model, host))


def _llm_flags(model: str | None, host: str | None) -> dict[str, str]:
    flags = {"llm.model": model, "llm.host": host}
    return {k: v for k, v in flags.items() if v}
