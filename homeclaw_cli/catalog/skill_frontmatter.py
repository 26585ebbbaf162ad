"""Reading a SKILL.md: the YAML frontmatter (strict, or line by line as OpenClaw reads it),
its `metadata`, and warnings for keys that look misspelled."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.skill_fields import Problem, field_problems
from homeclaw_cli.core.examples import ExampleError, check_examples, check_not_for
from homeclaw_cli.document import (
    DocumentError,
    FieldPath,
    parse_yaml_text,
    read_text_file,
)
from homeclaw_cli.suggest import closest

MAX_SKILL_BYTES = 512 * 1024
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")

# Keys the AgentSkills / OpenClaw format and homeclaw read. Others are kept as written; one
# that is one typo away from these is reported (a misspelled `description` is silently lost).
KNOWN_KEYS = (
    "name",
    "description",
    "version",
    "effects",
    "examples",
    "not_for",
    "permissions",
    "metadata",
    "homepage",
    "license",
    "compatibility",
    "allowed-tools",
    "user-invocable",
    "disable-model-invocation",
    "command-dispatch",
    "command-tool",
    "command-arg-mode",
)


class SkillParseError(Exception):
    """A SKILL.md that cannot be loaded; names the file, the line when known, and the fix.

    `problems` holds every error found (the first is `message`/`line`), one line each in
    str(): `path:line:column: field: message`."""

    def __init__(
        self, path: Path, message: str, line: int | None = None, *, more: Sequence[Problem] = ()
    ) -> None:
        self.path = path
        self.message = message
        self.line = line
        self.problems = [Problem(message, line), *more]
        super().__init__("\n".join(self.lines))

    @classmethod
    def of(cls, path: Path, problems: list[Problem]) -> SkillParseError:
        first = problems[0]
        error = cls(path, first.message, first.line, more=problems[1:])
        error.problems[0] = first
        return error

    @property
    def lines(self) -> list[str]:
        """One `path:line:column: field: message` per problem."""
        return [_render(self.path, p) for p in self.problems]


def _render(path: Path, problem: Problem) -> str:
    where = str(path)
    if problem.line:
        where += f":{problem.line}" + (f":{problem.column}" if problem.column else "")
    field = f"{problem.field}: " if problem.field else ""
    return f"{where}: {field}{problem.message}"


@dataclass
class ParsedSkillMd:
    frontmatter: dict[str, Any]
    metadata: dict[str, Any]
    body: str
    warnings: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    not_for: list[str] = field(default_factory=list)


def split_frontmatter(path: Path, text: str) -> tuple[str, str, int]:
    """(frontmatter text, body, line of the body) or SkillParseError."""
    match = _FRONTMATTER.match(text)
    if (
        not match
        and _TOP_KEY.match(text.split("\n", 1)[0])
        and re.search(r"^---[ \t]*$", text, re.M)
    ):
        raise SkillParseError(
            path,
            "frontmatter has no opening `---` line: the file starts with "
            f"`{text.split(chr(10), 1)[0][:40]}`; add a `---` line above it",
            1,
        )
    if not match and re.match(r"---[ \t]*\r?\n", text):
        raise SkillParseError(
            path,
            "the frontmatter opened by the `---` on line 1 is never closed: add a `---` line "
            "after its last key (`name:`, `description:`, ...), before the body",
            1,
        )
    if not match:
        raise SkillParseError(
            path,
            "no YAML frontmatter: start the file with a `---` line, then `name:` and "
            "`description:`, then a closing `---` line",
            1,
        )
    return match.group(1), text[match.end() :], text[: match.end()].count("\n") + 1


def parse_skill_md_full(path: Path) -> ParsedSkillMd:
    """Frontmatter, parsed metadata, body and warnings of a SKILL.md; SkillParseError holds
    every error found."""
    try:
        text = read_text_file(path, MAX_SKILL_BYTES)
    except DocumentError as exc:
        raise SkillParseError(path, exc.message) from None
    block, body, _ = split_frontmatter(path, text)
    warnings: list[str] = []
    data, field_positions = _read_block(path, block, warnings)
    positions = {
        str(loc[0]): line for loc, (line, _col) in field_positions.items() if len(loc) == 1
    }
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SkillParseError(
            path, "frontmatter must be a mapping with `name` and `description`", 2
        )
    problems = _name_and_description(data, positions)
    for required_key, typo in _misspelled(data).items():
        where = f"line {positions[typo]}: " if typo in positions else ""
        warnings.append(
            f"{where}unknown frontmatter key `{typo}` (did you mean `{required_key}`?); "
            "it is kept, but homeclaw does not read it"
        )
    metadata: dict[str, Any] = {}
    try:
        metadata = _parse_metadata(path, data.get("metadata"), positions.get("metadata"))
    except SkillParseError as exc:
        problems.append(Problem(exc.message, exc.line))
    examples: list[str] = []
    try:
        examples = check_examples(data.get("examples"))
    except ExampleError as exc:
        problems.append(Problem(f"frontmatter `examples`: {exc.reason}", positions.get("examples")))
    not_for: list[str] = []
    try:
        not_for = check_not_for(data.get("not_for"), examples)
    except ExampleError as exc:
        problems.append(Problem(f"frontmatter `not_for`: {exc.reason}", positions.get("not_for")))
    problems.extend(field_problems(data, field_positions))
    if problems:
        raise SkillParseError.of(path, problems)
    return ParsedSkillMd(data, metadata, body, warnings, examples, not_for)


def _read_block(
    path: Path, block: str, warnings: list[str]
) -> tuple[Any, dict[FieldPath, tuple[int, int]]]:
    """The frontmatter's data and the file position of each field; YAML that is not strict
    is read line by line as OpenClaw does, with a warning."""
    try:
        # The frontmatter starts on line 2 of the file, under the opening `---`.
        doc = parse_yaml_text(path, block, line_offset=1)
    except DocumentError as exc:
        line = exc.line
        if not exc.message.startswith("invalid YAML:"):
            # Duplicate keys, alias bombs, runaway nesting: refused, never re-read leniently.
            problem = Problem(exc.message, line, exc.column)
            if not exc.message.startswith("duplicate key"):
                problem = Problem(f"frontmatter refused: {exc.message}", line)
            raise SkillParseError.of(path, [problem]) from None
        lenient = _lenient_frontmatter(block)
        if not (
            isinstance(lenient.get("name"), str) and isinstance(lenient.get("description"), str)
        ):
            raise SkillParseError(
                path, f"frontmatter is not valid YAML: {exc.message}", line
            ) from None
        reason = exc.message.removeprefix("invalid YAML: ")
        warnings.append(
            f"frontmatter is not strict YAML (line {line}: {reason}); read line by line "
            "as OpenClaw does: quote values that contain `: `"
        )
        return lenient, {}
    return doc.data, {loc: (line + 1, col) for loc, (line, col) in doc.positions.items()}


def _name_and_description(data: dict[str, Any], positions: dict[str, int]) -> list[Problem]:
    problems = []
    for required in ("name", "description"):
        value = data.get(required)
        if not isinstance(value, str) or not value.strip():
            got = "missing" if value is None else f"got {type(value).__name__} {value!r}"
            typo = _misspelled(data).get(required) if value is None else None
            if typo is not None:
                got += f"; line {positions.get(typo, '?')} has `{typo}`: rename it `{required}`"
            if isinstance(value, bool | int | float):
                got += "; YAML read it as a non-string: put it in quotes"
            problems.append(
                Problem(
                    f"frontmatter needs a non-empty `{required}` string ({got})",
                    positions.get(required, 2),
                )
            )
    return problems


def _misspelled(data: dict[str, Any]) -> dict[str, str]:
    """{known key: the key written instead}, for keys that are a typo of a key not present."""
    found: dict[str, str] = {}
    for key in data:
        if not isinstance(key, str) or key in KNOWN_KEYS:
            continue
        match = closest(key.lower(), KNOWN_KEYS, cutoff=0.8)
        if match is not None and match not in data:
            found.setdefault(match, key)
    return found


def parse_skill_md(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a SKILL.md; SkillParseError names what is wrong."""
    parsed = parse_skill_md_full(path)
    return parsed.frontmatter, parsed.body


def _parse_metadata(path: Path, raw: Any, line: int | None) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        import json5

        try:
            value = json5.loads(raw)
        except ValueError as exc:
            raise SkillParseError(
                path,
                f"`metadata` is not valid JSON5 ({exc}); write it as one JSON5 object, "
                'e.g. metadata: {"openclaw": {"requires": {"bins": ["git"]}}}',
                line,
            ) from None
        if not isinstance(value, dict):
            raise SkillParseError(
                path, f"`metadata` must be a JSON5 object, not {type(value).__name__}", line
            )
        return value
    raise SkillParseError(
        path,
        f"`metadata` must be a JSON5 object string or a YAML mapping, not {type(raw).__name__}",
        line,
    )


def _lenient_frontmatter(block: str) -> dict[str, Any]:
    """OpenClaw-style reading: `key: rest of line`, indented lines continue the value."""
    import yaml

    data: dict[str, Any] = {}
    key: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if key is None:
            return
        first, rest = (lines[0] if lines else ""), lines[1:]
        if not rest:
            data[key] = _unquote(first.strip())
            return
        joined = "\n".join([first, *rest]).strip()
        try:
            data[key] = yaml.safe_load(f"{key}:\n" + "\n".join(f"  {ln}" for ln in [first, *rest]))[
                key
            ]
        except yaml.YAMLError:
            data[key] = joined

    for raw_line in block.splitlines():
        match = _TOP_KEY.match(raw_line)
        if match and not raw_line[:1].isspace():
            flush()
            key, lines = match.group(1), [match.group(2) or ""]
        elif key is not None:
            lines.append(raw_line)
    flush()
    return data


def _unquote(value: str) -> Any:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        if value[0] == '"':
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                pass
        return value[1:-1]
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value
