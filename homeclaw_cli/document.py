"""Read YAML/JSON descriptor files defensively, keeping the line of every key.

Descriptors come from strangers (installed plugins, registrations), so reading one must never
hang or crash: size is checked before reading, binary junk is refused, YAML aliases are
counted before anything is expanded (a "billion laughs" file is refused in microseconds), and
every value's position is kept so errors can name the line a field sits on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.yaml_keys import first_duplicate_key

MAX_DOCUMENT_BYTES = 1024 * 1024
MAX_EXPANDED_NODES = 100_000
MAX_DEPTH = 64

FieldPath = tuple[str | int, ...]

try:  # libyaml is several times faster when present
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - pure-Python PyYAML build
    _Loader = yaml.SafeLoader


class DocumentError(Exception):
    """A file that cannot be read as a descriptor; carries the position when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def _refuse_duplicates(node: yaml.Node, line_offset: int = 0) -> None:
    duplicate = first_duplicate_key(node)
    if duplicate is not None:
        raise DocumentError(
            duplicate.message(line_offset), duplicate.line + line_offset, duplicate.column
        )


@dataclass
class Document:
    """Parsed data plus the (1-based) line and column of every field path."""

    path: Path
    data: Any
    positions: dict[FieldPath, tuple[int, int]] = field(default_factory=dict)

    def position(self, loc: FieldPath) -> tuple[int, int] | None:
        """Position of `loc`, or of its nearest ancestor that has one."""
        while True:
            if loc in self.positions:
                return self.positions[loc]
            if not loc:
                return None
            loc = loc[:-1]


def read_document(path: Path) -> Document:
    """Read a .yaml/.yml/.json file into a Document, or raise DocumentError."""
    text = read_text_file(path)
    if path.suffix == ".json":
        return _read_json(path, text)
    return _read_yaml(path, text)


def parse_yaml_text(path: Path, text: str, line_offset: int = 0) -> Document:
    """Parse YAML `text` (read from `path`) with the same guards and positions as files."""
    return _read_yaml(path, text, line_offset)


def parse_json_text(path: Path, text: str) -> Document:
    """Parse JSON `text` (read from `path`, or `<stdin>`) with the same guards as files."""
    return _read_json(path, text)


def read_text_file(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> str:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentError(f"cannot read file: {exc.strerror}") from None
    if size > limit:
        raise DocumentError(f"file is {_human(size)}; descriptors are limited to {_human(limit)}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"cannot read file: {exc.strerror}") from None
    if b"\x00" in raw:
        raise DocumentError("file is binary (contains NUL bytes), not YAML or JSON text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"file is not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def _human(size: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024  # type: ignore[assignment]
    return str(size)


def _read_json(path: Path, text: str) -> Document:
    too_deep = DocumentError(f"JSON is nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise too_deep from None
    if _deeper_than(data, MAX_DEPTH):
        raise too_deep
    positions: dict[FieldPath, tuple[int, int]] = {}
    try:  # JSON is (almost always) YAML: reuse the YAML composer for positions.
        node = yaml.compose(text, Loader=_Loader)
        if node is not None:
            _collect_positions(node, (), positions, 0)
    except (yaml.YAMLError, RecursionError, DocumentError):
        node, positions = None, {}
    if node is not None:
        _refuse_duplicates(node)
    return Document(path, data, positions)


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether more than `limit` lists and objects nest in `data` (YAML documents are held to
    the same limit)."""
    level = [data] if isinstance(data, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, (dict, list))
        ]
    return False


def _read_yaml(path: Path, text: str, line_offset: int = 0) -> Document:
    """`line_offset`: lines above `text` in its file (errors name the file's lines)."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, line_offset) from None
    except yaml.YAMLError as exc:
        raise DocumentError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise DocumentError(f"YAML is nested deeper than {MAX_DEPTH} levels") from None
    if node is None:
        return Document(path, None)
    try:
        _check_expansion(node)
    except DocumentError as exc:
        exc.line = exc.line + line_offset if exc.line else None
        raise
    _refuse_duplicates(node, line_offset)
    positions: dict[FieldPath, tuple[int, int]] = {}
    _collect_positions(node, (), positions, 0)
    try:
        data = _Loader(text).construct_document(node)
    except yaml.YAMLError as exc:
        raise DocumentError(f"invalid YAML value: {exc}") from None
    return Document(path, data, positions)


def _syntax_error(exc: yaml.MarkedYAMLError, line_offset: int) -> DocumentError:
    """PyYAML's problem with its context ("while scanning a quoted scalar", where it began),
    placed where the fix goes: where an unclosed quote or bracket began when the file simply
    ran out, else where the parser stopped."""
    problem = exc.problem or exc.context or "syntax error"
    mark, context = exc.problem_mark or exc.context_mark, exc.context if exc.problem else None
    if context and exc.context_mark is not None:
        start = exc.context_mark
        if "end of stream" in problem:
            mark = start
            what = context.split(" ", 2)[-1] if context.startswith("while ") else context
            problem = (
                f"{what} starts here and is never closed: the file ends first (add the "
                "closing quote or bracket)"
            )
        else:
            problem += f" ({context} that starts on line {start.line + 1 + line_offset})"
    if "'\\t'" in problem or "tab" in problem:
        problem += "; YAML does not allow tabs for indentation: indent with spaces"
    return DocumentError(
        f"invalid YAML: {problem}",
        mark.line + 1 + line_offset if mark else None,
        mark.column + 1 if mark else None,
    )


def _check_expansion(root: yaml.Node) -> None:
    """Refuse documents whose aliases would expand past MAX_EXPANDED_NODES, or recurse."""
    sizes: dict[int, int] = {}
    visiting: set[int] = set()

    def size(node: yaml.Node, depth: int) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in visiting:
            raise DocumentError(
                "YAML alias refers to itself (recursive structure)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        if depth > MAX_DEPTH:
            raise DocumentError(
                f"YAML is nested deeper than {MAX_DEPTH} levels", node.start_mark.line + 1
            )
        visiting.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        visiting.discard(key)
        sizes[key] = total
        if total > MAX_EXPANDED_NODES:
            raise DocumentError(
                f"YAML expands to more than {MAX_EXPANDED_NODES:,} values through aliases "
                "(an alias bomb?); descriptors do not need that many",
                node.start_mark.line + 1,
            )
        return total

    size(root, 0)


def _collect_positions(
    node: yaml.Node,
    loc: FieldPath,
    out: dict[FieldPath, tuple[int, int]],
    depth: int,
    record: bool = True,
) -> None:
    if depth > MAX_DEPTH:
        return
    if record:
        out.setdefault(loc, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                child = (*loc, key_node.value)
                # A key's own line reads better than its value's, which may be a block below.
                mark = key_node.start_mark
                out.setdefault(child, (mark.line + 1, mark.column + 1))
                _collect_positions(value_node, child, out, depth + 1, record=False)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_positions(item, (*loc, index), out, depth + 1)
