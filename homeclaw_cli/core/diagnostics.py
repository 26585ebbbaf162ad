"""Findings about a descriptor file: what is wrong, where, and how to fix it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    code: str
    file: Path
    message: str
    field: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None

    @property
    def location(self) -> str:
        where = str(self.file)
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where

    def __str__(self) -> str:
        field = f" {self.field}:" if self.field else ""
        text = f"{self.location}: {self.severity}:{field} {self.message}"
        return text + (f" ({self.hint})" if self.hint else "")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["file"] = str(self.file)
        return data


def has_errors(diagnostics: list[Diagnostic], *, strict: bool = False) -> bool:
    return any(d.severity == "error" or strict for d in diagnostics)
