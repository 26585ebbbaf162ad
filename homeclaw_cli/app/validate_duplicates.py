"""`plugin validate`: two validated folders that declare the same plugin id.

The registry (catalog/registry.py) tolerates it: the first folder that defines an id wins and
the others are shadowed, listed only by `plugin list --all`. Inside one plugins folder the
first is the first by folder name; across plugins folders it is the first folder in
precedence order. So this is a warning (an error under --strict) naming which one is used.
"""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.catalog.plugin_loader import LoadResult
from homeclaw_cli.core.diagnostics import Diagnostic
from homeclaw_cli.document import DocumentError, read_document

HINT = "give each plugin its own `id`, or remove one of the folders"
PRECEDENCE = (
    "the plugins folder that comes first wins (--plugins-dir, plugins.dirs, a trusted "
    "./plugins, your installed plugins, the bundled ones); `homeclaw plugin list --all` "
    "shows which"
)


def add_duplicate_id_warnings(results: list[LoadResult]) -> None:
    """Add a `duplicate-id` warning to each result whose id another result declares too."""
    by_id: dict[str, list[LoadResult]] = {}
    for result in results:
        if result.manifest is not None:
            by_id.setdefault(result.manifest.id, []).append(result)
    for plugin_id, group in by_id.items():
        if len(group) < 2:
            continue
        one_parent = len({r.folder.resolve().parent for r in group}) == 1
        winner = min(group, key=lambda r: r.folder.name) if one_parent else None
        for result in group:
            others = ", ".join(f"{r.folder}/" for r in group if r is not result)
            message = f"plugin id {plugin_id!r} is also declared by {others}: "
            if winner is None:
                message += PRECEDENCE
            elif result is winner:
                message += "this folder is used (the first by folder name wins); "
                message += "the other is shadowed and never offered"
            else:
                message += f"{winner.folder}/ is used (the first by folder name wins) and "
                message += "this one is shadowed: it is never offered or called"
            result.diagnostics.append(_warning(result, message))


def _warning(result: LoadResult, message: str) -> Diagnostic:
    path = result.manifest_path or result.folder
    position = _id_position(result.manifest_path)
    return Diagnostic(
        "warning",
        "duplicate-id",
        path,
        message,
        field="id",
        line=position[0] if position else None,
        column=position[1] if position else None,
        hint=HINT,
    )


def _id_position(manifest_path: Path | None) -> tuple[int, int] | None:
    if manifest_path is None:
        return None
    try:
        return read_document(manifest_path).position(("id",))
    except (DocumentError, OSError):
        return None
