"""The strings inside parsed JSON, at any depth (lists and object values, in order)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def json_strings(data: Any) -> Iterator[str]:
    """Every string in `data`: itself, or the items of its lists and objects, depth first."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, list):
        for item in data:
            yield from json_strings(item)
    elif isinstance(data, dict):
        for value in data.values():
            yield from json_strings(value)
