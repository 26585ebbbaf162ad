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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from homeclaw_cli.document import DocumentError, read_document
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
    """Parse a tests.yaml; ManifestError names the file, line and field on bad input."""
    try:
        doc = read_document(path)
    except DocumentError as exc:
        where = f"{path}:{exc.line}" if exc.line else str(path)
        raise ManifestError(f"{where}: {exc.message}") from None
    try:
        return SkillTestsFile.model_validate(doc.data or {})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        pos = doc.position(loc)
        field = ".".join(str(p) for p in loc) or "(top level)"
        where = f"{path}:{pos[0]}" if pos else str(path)
        raise ManifestError(
            f"{where}: {field}: {err['msg']}",
            hint="see `homeclaw skill test --help` for the tests.yaml format",
        ) from None
