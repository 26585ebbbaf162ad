"""Notes kept as one JSON file in the plugin's data dir, written atomically under a lock."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from homeclaw_cli.fsutil import atomic_write_text, file_lock
from homeclaw_cli.sdk import BasePlugin, PluginError


class NotesPlugin(BasePlugin):
    def initialize(self) -> None:
        self.path = self.data_dir / "notes.json"
        self.lock = self.data_dir / "notes.lock"

    def _load(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            return []
        try:
            notes: list[dict[str, Any]] = json.loads(self.path.read_text(encoding="utf-8"))["notes"]
        except (ValueError, KeyError) as exc:
            raise PluginError(
                f"notes file {self.path} is damaged ({exc}); fix or move it"
            ) from None
        return notes

    def _save(self, notes: list[dict[str, Any]]) -> None:
        atomic_write_text(self.path, json.dumps({"notes": notes}, indent=2, ensure_ascii=False))

    @staticmethod
    def _line(note: dict[str, Any]) -> str:
        tags = f" [{', '.join(note['tags'])}]" if note.get("tags") else ""
        return f"#{note['id']} ({note['created'][:16].replace('T', ' ')}) {note['text']}{tags}"

    def add_note(self, text: str, tags: list[Any] | None = None) -> str:
        if not text.strip():
            raise PluginError("the note is empty")
        with file_lock(self.lock, what="the notes file"):
            notes = self._load()
            note = {
                "id": max((n["id"] for n in notes), default=0) + 1,
                "text": text.strip(),
                "tags": [str(t) for t in (tags or [])],
                "created": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            }
            notes.append(note)
            self._save(notes)
        return f"Saved note {self._line(note)}"

    def list_notes(self, limit: float = 10) -> str:
        notes = self._load()
        if not notes:
            return "No notes yet."
        return "\n".join(self._line(n) for n in reversed(notes[-max(int(limit), 1) :]))

    def search_notes(self, query: str) -> str:
        words = query.lower().split()
        found = [
            n
            for n in self._load()
            if all(w in (n["text"] + " " + " ".join(n.get("tags", []))).lower() for w in words)
        ]
        return "\n".join(self._line(n) for n in found) if found else f"No note matches {query!r}."

    def delete_note(self, note_id: float) -> str:
        with file_lock(self.lock, what="the notes file"):
            notes = self._load()
            keep = [n for n in notes if n["id"] != int(note_id)]
            if len(keep) == len(notes):
                raise PluginError(f"there is no note #{int(note_id)}")
            self._save(keep)
        return f"Deleted note #{int(note_id)}."
