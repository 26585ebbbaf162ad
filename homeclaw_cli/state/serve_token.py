"""The bearer token `homeclaw serve` requires for register/unregister.

Generated on first run into <state_dir>/serve_token with mode 0600: only the user who runs
homeclaw (and the plugins they start) can read it. A plugin sends
`Authorization: Bearer <token>`.
"""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

from homeclaw_cli.fsutil import atomic_write_text, file_lock

TOKEN_FILE = "serve_token"


def token_path(state_dir: Path) -> Path:
    return state_dir / TOKEN_FILE


def load_or_create_token(state_dir: Path) -> tuple[str, bool]:
    """(token, created): reuse the stored token, or generate one with mode 0600."""
    path = token_path(state_dir)
    with file_lock(state_dir / "serve_token.lock", what="the serve token"):
        if path.is_file():
            token = path.read_text(encoding="utf-8").strip()
            if token:
                if stat.S_IMODE(path.stat().st_mode) & 0o077:
                    path.chmod(0o600)  # someone loosened it; the token is a secret
                return token, False
        token = secrets.token_urlsafe(32)
        atomic_write_text(path, token + "\n", mode=0o600)
        return token, True


def token_matches(expected: str, authorization: str | None) -> bool:
    """Constant-time check of an `Authorization: Bearer ...` header."""
    if not authorization:
        return False
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return secrets.compare_digest(value.strip().encode(), expected.encode())
