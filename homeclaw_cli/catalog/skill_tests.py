"""A skill's own checks: `tests.yaml` in the skill folder, run by `homeclaw skill test NAME`.

queries:                       # where retrieval ranks this skill for a query
  - query: how big is my downloads folder
    expect_rank: 1             # optional; by default it only has to be offered
scripts:                       # run exactly as run_skill would
  - script: du.py
    args: [".", "--top", "3"]  # relative paths resolve against the skill folder
    expect_exit: 0
    expect_stdout: "Largest"   # substring checks, optional
    expect_stderr: "..."
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from homeclaw_cli.catalog.plugin_checks import format_loc
from homeclaw_cli.catalog.schema_errors import schema_message
from homeclaw_cli.document import Document, DocumentError, FieldPath, read_document
from homeclaw_cli.errors import ManifestError

TESTS_FILE = "tests.yaml"


class QueryCase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1)
    expect_rank: int | None = Field(default=None, ge=1)


class ScriptCase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    script: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    expect_exit: int = 0
    expect_stdout: str | None = None
    expect_stderr: str | None = None


class SkillTestsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    queries: list[QueryCase] = Field(default_factory=list)
    scripts: list[ScriptCase] = Field(default_factory=list)


def load_tests_file(path: Path) -> SkillTestsFile:
    """Parse a tests.yaml; ManifestError names the file, line and field of every error."""
    try:
        doc = read_document(path)
    except DocumentError as exc:
        where = f"{path}:{exc.line}" if exc.line else str(path)
        if exc.line and exc.column:
            where += f":{exc.column}"
        raise ManifestError(f"{where}: {exc.message}", hint=_HINT) from None
    try:
        return SkillTestsFile.model_validate({} if doc.data is None else doc.data)
    except ValidationError as exc:
        lines = [_describe(err, doc) for err in exc.errors()]
        raise ManifestError("\n".join(lines), hint=_HINT) from None


_HINT = "see `homeclaw skill test --help` for the tests.yaml format"
_FIELDS: dict[str, type[BaseModel]] = {"queries": QueryCase, "scripts": ScriptCase}


def _describe(err: Any, doc: Document) -> str:
    loc: FieldPath = tuple(err["loc"])
    model = _FIELDS.get(str(loc[0]), SkillTestsFile) if len(loc) > 2 else SkillTestsFile
    message = schema_message(err, loc, model.model_fields)
    if err["type"] == "model_type" and not loc:
        message = "must be a mapping with `scripts:` and/or `queries:` lists"
    pos = doc.position(loc)
    where = f"{doc.path}:{pos[0]}:{pos[1]}" if pos else str(doc.path)
    return f"{where}: {format_loc(loc) or '(top level)'}: {message}"
