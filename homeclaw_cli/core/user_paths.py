"""A path the model shortened, completed from the path the user typed.

Small models cut a path down to its last parts: asked about
`skills/data-inspect/examples/cities.csv`, the 1.5B model ran the skill on
`examples/cities.csv` three times, got "not a file" three times, and gave up. When a call's
value ends a path of the user's messages, and ends no other, the user's path is what was
meant: the call runs with it. Only the user's own words are used, so nothing the model or a
tool wrote can steer a call to a path the user did not name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_TOKEN = re.compile(r"[^\s`'\"<>()\[\]{},;]+")
_TRAILING = "?!:."  # sentence punctuation after a path ("... cities.csv?")
_FILE_NAME = re.compile(r"[^\W_][\w-]*\.[A-Za-z0-9]{1,8}")  # cities.csv, notes.md


def user_paths(said: Iterable[str]) -> frozenset[str]:
    """The paths (words with a slash) in what the user said."""
    tokens = (t.rstrip(_TRAILING) for text in said for t in _TOKEN.findall(text))
    return frozenset(t for t in tokens if "/" in t.strip("/"))


def complete_paths(arguments: Any, paths: Iterable[str], keep: Iterable[str] = ()) -> Any:
    """A call's arguments with each shortened path replaced by the one user path it ends;
    the arguments named in `keep` (a tool's own options: run_skill's script) stay as they are."""
    known, kept = frozenset(paths), frozenset(keep)
    if not known or not isinstance(arguments, dict):
        return arguments
    return {k: v if k in kept else _complete(v, known) for k, v in arguments.items()}


def _complete(value: Any, paths: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _complete(v, paths) for k, v in value.items()}
    if isinstance(value, list):
        return [_complete(v, paths) for v in value]
    return _completed(value, paths) if isinstance(value, str) else value


def _completed(value: str, paths: frozenset[str]) -> str:
    if value in paths or not _looks_like_path(value):
        return value
    tail = "/" + value.removeprefix("./").strip("/")
    ends = [p for p in paths if p.rstrip("/").endswith(tail)]
    return ends[0] if len(ends) == 1 else value


def _looks_like_path(value: str) -> bool:
    """A relative path (`examples/cities.csv`, `examples/`) or a file name (`cities.csv`); not
    a word, a flag or an absolute path (which cannot be a shortened one)."""
    if not value or value.startswith(("-", "/", "~")) or any(ch.isspace() for ch in value):
        return False
    return "/" in value or _FILE_NAME.fullmatch(value) is not None
