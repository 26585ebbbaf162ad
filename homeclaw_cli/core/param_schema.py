"""Check the JSON Schema an object or array parameter shows the model (its `json_schema`).

The schema goes into every tool definition the model receives; a malformed one (`properties: 5`,
a misspelt type) is refused by strict tool APIs or misleads the model on every chat turn, so
`plugin validate` names it instead.
"""

from __future__ import annotations

from typing import Any

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
SchemaPath = tuple[str | int, ...]
MAX_DEPTH = 32
# Keywords that bring properties from elsewhere, which `required` may name.
_MORE_PROPERTIES = (
    "additionalProperties",
    "patternProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "dependentSchemas",
    "if",
)


def schema_problem(schema: dict[str, Any], param_type: str) -> tuple[str, SchemaPath] | None:
    """The first mistake in a parameter's `json_schema` and where it is, or None."""
    declared = schema.get("type")
    if declared is not None and declared != param_type:
        return (
            f"json_schema type {declared!r} differs from the parameter's type {param_type!r}; "
            "remove it (the parameter's `type` is what the model sees)",
            ("type",),
        )
    return _problem({k: v for k, v in schema.items() if k != "type"}, (), 0)


def _problem(schema: Any, path: SchemaPath, depth: int) -> tuple[str, SchemaPath] | None:
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"a schema must be a mapping, e.g. {{type: string}}, not {schema!r}", path
    if depth > MAX_DEPTH:
        return "the schema nests too deeply", path
    return (
        _type_problem(schema, path)
        or _properties_problem(schema, path, depth)
        or _required_problem(schema, path)
        or _items_problem(schema, path, depth)
        or _enum_problem(schema, path)
    )


def _type_problem(schema: dict[str, Any], path: SchemaPath) -> tuple[str, SchemaPath] | None:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    bad = next((k for k in kinds if k is not None and k not in JSON_TYPES), None)
    if bad is None and kind != []:
        return None
    return f"type {bad!r} is not a JSON Schema type; use one of {', '.join(JSON_TYPES)}", (
        *path,
        "type",
    )


def _properties_problem(
    schema: dict[str, Any], path: SchemaPath, depth: int
) -> tuple[str, SchemaPath] | None:
    properties = schema.get("properties")
    if properties is None:
        return None
    if not isinstance(properties, dict):
        return (
            "properties must map each property name to its schema, e.g. "
            "{properties: {city: {type: string}}}",
            (*path, "properties"),
        )
    for name, sub in properties.items():
        found = _problem(sub, (*path, "properties", str(name)), depth + 1)
        if found:
            return found
    return None


def _required_problem(schema: dict[str, Any], path: SchemaPath) -> tuple[str, SchemaPath] | None:
    required = schema.get("required")
    if required is None:
        return None
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return "required must be a list of property names", (*path, "required")
    if any(key in schema for key in _MORE_PROPERTIES):  # required may name those
        return None
    properties = schema.get("properties")
    known = properties if isinstance(properties, dict) else {}
    missing = [r for r in required if r not in known]
    if missing:
        return (
            f"required names {missing[0]!r}, which is not in properties; "
            f"add it to properties or remove it from required",
            (*path, "required"),
        )
    return None


def _items_problem(
    schema: dict[str, Any], path: SchemaPath, depth: int
) -> tuple[str, SchemaPath] | None:
    items = schema.get("items")
    if items is None:
        return None
    if isinstance(items, list):  # one schema per position (older JSON Schema drafts)
        found = (_problem(sub, (*path, "items", i), depth + 1) for i, sub in enumerate(items))
        return next((f for f in found if f), None)
    return _problem(items, (*path, "items"), depth + 1)


def _enum_problem(schema: dict[str, Any], path: SchemaPath) -> tuple[str, SchemaPath] | None:
    enum = schema.get("enum")
    if enum is None or (isinstance(enum, list) and enum):
        return None
    return "enum must be a non-empty list of the allowed values", (*path, "enum")
