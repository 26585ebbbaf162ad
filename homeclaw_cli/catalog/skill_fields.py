"""The SKILL.md keys homeclaw reads beyond `name` and `description`: `permissions` and
`effects`, checked by the same models (and worded the same) as a plugin manifest's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from homeclaw_cli.catalog.plugin_checks import format_loc
from homeclaw_cli.catalog.schema_errors import schema_message
from homeclaw_cli.core.approval import Effect
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.document import FieldPath

_EFFECTS = TypeAdapter(list[Effect])


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a SKILL.md: the field, its line and column in the file, the fix."""

    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None


Positions = Mapping[FieldPath, tuple[int, int]]


def field_problems(frontmatter: Mapping[str, Any], positions: Positions) -> list[Problem]:
    """Every error in the frontmatter's `permissions` and `effects` (positions: file lines)."""
    return [
        *_permission_problems(frontmatter.get("permissions"), positions),
        *_effect_problems(frontmatter.get("effects"), positions),
    ]


def _permission_problems(raw: Any, positions: Positions) -> list[Problem]:
    if raw is None:
        return []
    if not isinstance(raw, Mapping):
        return [
            _at(
                ("permissions",),
                positions,
                "must be a mapping, e.g. `permissions: {network: [api.example.com], "
                f"env_vars: [API_KEY]}}` (got {type(raw).__name__})",
            )
        ]
    try:
        Permissions.model_validate(dict(raw))
    except ValidationError as exc:
        return [_from_error(err, ("permissions",), positions) for err in exc.errors()]
    return []


def _effect_problems(raw: Any, positions: Positions) -> list[Problem]:
    if raw is None:
        return []
    try:
        _EFFECTS.validate_python([raw] if isinstance(raw, str) else raw)
    except ValidationError as exc:
        # `effects: maybe` is the list [maybe]: name the key, not an item the author never wrote.
        single = isinstance(raw, str)
        return [
            _from_error({**err, "loc": () if single else err["loc"]}, ("effects",), positions)
            for err in exc.errors()
        ]
    return []


def _from_error(err: Any, prefix: FieldPath, positions: Positions) -> Problem:
    loc: FieldPath = (*prefix, *err["loc"])
    if err["type"] == "manifest_rule":
        ctx = err.get("ctx") or {}
        return _at((*loc, *ctx.get("subpath", ())), positions, str(ctx["reason"]))
    known = Permissions.model_fields if prefix == ("permissions",) else ()
    return _at(loc, positions, schema_message(err, loc, known))


def _at(loc: FieldPath, positions: Positions, message: str) -> Problem:
    found = loc
    while found and found not in positions:
        found = found[:-1]
    line, column = positions.get(found, (None, None))
    return Problem(message, line, column, format_loc(loc))
