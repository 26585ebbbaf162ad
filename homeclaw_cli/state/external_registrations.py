"""External plugin registrations (seed 000 §7, seed 001 §3), persisted in external_plugins.json.

File format: {"version": 1, "plugins": [<registration payload>, ...]} where a payload is the
seed's register body (`plugin_id` instead of `id`). Writers (the API server, `plugin
register`) go through register_external / unregister_external, under a lock and atomic, so
readers never see a half file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from homeclaw_cli.core.diagnostics import Diagnostic
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.document import DocumentError, read_text_file
from homeclaw_cli.errors import ConfigError, ConflictError, NotFoundError, field_problems
from homeclaw_cli.fsutil import atomic_write_text, file_lock

FORMAT_VERSION = 1
MAX_FILE_BYTES = 16 * 1024 * 1024
LOCK_WAIT_SEC = 30.0


def payload_to_descriptor(payload: dict[str, Any]) -> dict[str, Any]:
    """A registration body uses `plugin_id`; manifests use `id`."""
    data = dict(payload)
    if "plugin_id" in data and "id" not in data:
        data["id"] = data.pop("plugin_id")
    data.pop("tools", None)  # seed 001 §3.2: optional metadata for future use
    return data


def manifest_to_payload(manifest: PluginManifest) -> dict[str, Any]:
    data = manifest.model_dump(mode="json", exclude_none=True, exclude={"config": {"type"}})
    return {"plugin_id": data.pop("id"), **data}


def read_external_plugins(path: Path) -> tuple[list[PluginManifest], list[Diagnostic]]:
    """Valid registrations, plus a diagnostic per problem (never raises for bad content)."""
    if not path.is_file():
        return [], []
    try:
        raw = json.loads(read_text_file(path, MAX_FILE_BYTES))
    except (DocumentError, json.JSONDecodeError) as exc:
        message = exc.message if isinstance(exc, DocumentError) else f"invalid JSON: {exc.msg}"
        return [], [
            Diagnostic(
                "error",
                "external-file",
                path,
                message,
                hint="restore it from the .bak copy next to it, or delete it and re-register",
            )
        ]
    entries = raw.get("plugins", []) if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        return [], [Diagnostic("error", "external-file", path, "`plugins` must be a list")]
    manifests: list[PluginManifest] = []
    problems: list[Diagnostic] = []
    for index, payload in enumerate(entries):
        if not isinstance(payload, dict):
            problems.append(
                Diagnostic(
                    "error",
                    "external-entry",
                    path,
                    "each registration must be a JSON object",
                    field=f"plugins[{index}]",
                )
            )
            continue
        try:
            manifests.append(PluginManifest.model_validate(payload_to_descriptor(payload)))
        except ValidationError as exc:  # one bad entry must not hide the others
            problems.append(
                Diagnostic(
                    "error",
                    "external-entry",
                    path,
                    "; ".join(field_problems(exc, "entry")),
                    field=f"plugins[{index}]",
                )
            )
        except ValueError as exc:
            problems.append(
                Diagnostic("error", "external-entry", path, str(exc), field=f"plugins[{index}]")
            )
    return manifests, problems


# --- writers: register / unregister ------------------------------------------------------
# They work on the raw entries so that an entry this version cannot validate is kept as it
# is (it still shows as broken in `plugin list`), never dropped by an unrelated write.

Change = Literal["added", "updated", "unchanged"]


class CorruptExternalFile(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RegisterChange:
    change: Change
    backup: Path | None = None  # where a corrupt file was moved before this write
    corrupt_reason: str | None = None


def registration_lock(state_dir: Path) -> Path:
    """The one lock every writer of external_plugins.json takes (CLI and API alike)."""
    return state_dir / "external.lock"


def _entry_id(entry: Any) -> str | None:
    if isinstance(entry, dict):
        value = entry.get("plugin_id", entry.get("id"))
        return value if isinstance(value, str) else None
    return None


def _load_entries(path: Path) -> list[Any]:
    if not path.is_file():
        return []
    try:
        raw = json.loads(read_text_file(path, MAX_FILE_BYTES))
    except DocumentError as exc:
        raise CorruptExternalFile(exc.message) from None
    except json.JSONDecodeError as exc:
        raise CorruptExternalFile(f"invalid JSON: {exc.msg} (line {exc.lineno})") from None
    entries = raw.get("plugins", []) if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        raise CorruptExternalFile("`plugins` is not a list")
    return entries


def _write_entries(path: Path, entries: list[Any]) -> None:
    # One registration per line: still easy to read and diff, and the C JSON encoder (which
    # `indent` turns off) keeps a rewrite cheap with hundreds of registrations.
    entries = sorted(entries, key=lambda e: _entry_id(e) or "")
    lines = ",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in entries)
    body = f'{{\n  "version": {FORMAT_VERSION},\n  "plugins": [\n{lines}\n  ]\n}}\n'
    if not entries:
        body = f'{{\n  "version": {FORMAT_VERSION},\n  "plugins": []\n}}\n'
    atomic_write_text(path, body)


def backup_path(path: Path) -> Path:
    """The first free `<name>.bak`, `<name>.bak.1`, ...: an older backup is never overwritten."""
    candidate = path.with_name(path.name + ".bak")
    index = 0
    while candidate.exists():
        index += 1
        candidate = path.with_name(f"{path.name}.bak.{index}")
    return candidate


def register_external(
    path: Path,
    lock: Path,
    manifest: PluginManifest,
    *,
    replace: bool = False,
    on_wait: Callable[[str], None] | None = None,
) -> RegisterChange:
    """Add (or with `replace`, update) one registration under the registration lock.

    Re-registering an identical descriptor is a no-op, so a plugin may register itself every
    time it starts. A different descriptor under a taken id raises ConflictError unless
    `replace`. A file that cannot be read is moved to a .bak copy (reported in the result)
    and a new file is started: the old content is kept for the user, never silently lost.
    `on_wait` hears one line when another process holds the lock.
    """
    payload = manifest_to_payload(manifest)
    with file_lock(lock, timeout=LOCK_WAIT_SEC, what="external_plugins.json", on_wait=on_wait):
        backup: Path | None = None
        corrupt_reason: str | None = None
        try:
            entries = _load_entries(path)
        except CorruptExternalFile as exc:
            backup = backup_path(path)
            path.replace(backup)
            entries, corrupt_reason = [], exc.reason
        index = next((i for i, e in enumerate(entries) if _entry_id(e) == manifest.id), None)
        if index is None:
            entries.append(payload)
            change: Change = "added"
        else:
            if _same(entries[index], payload):
                return RegisterChange("unchanged", backup, corrupt_reason)
            if not replace:
                raise _taken(manifest.id)
            entries[index] = payload
            change = "updated"
        _write_entries(path, entries)
    return RegisterChange(change, backup, corrupt_reason)


def refuse_taken_id(path: Path, manifest: PluginManifest) -> None:
    """ConflictError now when `manifest.id` is registered with another descriptor, so that a
    conflict is not hidden behind a failed health check (the write checks again, locked)."""
    try:
        entries = _load_entries(path)
    except CorruptExternalFile:
        return  # the write moves it aside
    payload = manifest_to_payload(manifest)
    if any(_entry_id(e) == manifest.id and not _same(e, payload) for e in entries):
        raise _taken(manifest.id)


def _taken(plugin_id: str) -> ConflictError:
    return ConflictError(
        f"an external plugin with id {plugin_id!r} is already registered "
        "with a different descriptor",
        hint="unregister it first, or register again with replace "
        "(`?replace=true`, or `homeclaw plugin register --replace`)",
    )


def _same(entry: Any, payload: dict[str, Any]) -> bool:
    try:
        existing = PluginManifest.model_validate(payload_to_descriptor(entry))
    except Exception:  # an invalid stored entry is simply different
        return False
    return manifest_to_payload(existing) == payload


def unregister_external(
    path: Path, lock: Path, plugin_id: str, *, on_wait: Callable[[str], None] | None = None
) -> None:
    """Remove one registration; NotFoundError when there is none with that id."""
    with file_lock(lock, timeout=LOCK_WAIT_SEC, what="external_plugins.json", on_wait=on_wait):
        try:
            entries = _load_entries(path)
        except CorruptExternalFile as exc:
            raise ConfigError(
                f"{path} cannot be read ({exc.reason}), so nothing was unregistered",
                hint="fix or delete the file (registering again moves it to a .bak copy)",
            ) from None
        kept = [e for e in entries if _entry_id(e) != plugin_id]
        if len(kept) == len(entries):
            known = [i for i in map(_entry_id, entries) if i]
            raise NotFoundError(
                f"no external plugin registered with id {plugin_id!r}",
                hint=("registered: " + ", ".join(sorted(known))) if known else None,
            )
        _write_entries(path, kept)
