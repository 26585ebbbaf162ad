"""`plugin enable|disable` and `skill enable|disable`: switch an item off without deleting it."""

from __future__ import annotations

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.pipeline import sync_index
from homeclaw_cli.core.permissions import Kind
from homeclaw_cli.state import audit
from homeclaw_cli.state.disabled_plugins import read_disabled, set_disabled


def set_enabled(context: AppContext, kind: Kind, item_id: str, enabled: bool) -> bool:
    """Enable or disable any plugin or skill by id; True when the state changed.

    An unknown id raises the registry's NotFoundError (with its did-you-mean); an id that is
    only in the disabled list (its folder is gone) can still be enabled.
    """
    settings = context.settings
    if kind == "plugin":
        plugins = context.registry
        known = item_id in plugins.plugins or item_id in plugins.disabled
        lookup = plugins.get
    else:
        skills = context.skill_registry
        known = item_id in skills.skills or item_id in skills.disabled
        lookup = skills.get  # type: ignore[assignment]
    if not known and item_id not in read_disabled(settings.state_dir, kind):
        lookup(item_id)  # raises NotFoundError with a did-you-mean
    changed = set_disabled(settings.state_dir, item_id, not enabled, kind)
    if changed:
        audit.record(settings.data_dir, "enable" if enabled else "disable", item_id, kind=kind)
        sync_index(context, kind)
    return changed
