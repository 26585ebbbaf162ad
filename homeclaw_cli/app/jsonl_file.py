"""Read a JSONL file a user wrote (eval queries, chat tasks) without a traceback on junk."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.document import DocumentError, read_text_file
from homeclaw_cli.errors import UsageError

MAX_JSONL_BYTES = 16 * 1024 * 1024


def read_jsonl_lines(path: Path, hint: str) -> list[str]:
    """The file's lines; a binary, non-UTF-8 or unreadable file is one usage error naming it."""
    try:
        text = read_text_file(path, limit=MAX_JSONL_BYTES)
    except DocumentError as exc:
        message = exc.message.replace("descriptors are", "JSONL files are")
        raise UsageError(f"{path}: {message}", hint=f"save it as UTF-8 text; {hint}") from None
    return text.splitlines()
