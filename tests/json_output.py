"""Reading `--json` output in tests: every document is one envelope; tests want its `data`."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from typer.testing import Result

ENVELOPE_KEYS = {"homeclaw", "command", "ok", "data", "warnings"}
ERROR_KEYS = {"homeclaw", "command", "ok", "error", "warnings"}
# A command that reports what it did and the error that ended it (a failed `chat -q` turn).
FAILED_KEYS = ENVELOPE_KEYS | {"error"}

CliOutput = Result | subprocess.CompletedProcess[str] | str


def envelope(output: CliOutput) -> dict[str, Any]:
    """The parsed envelope on stdout; `ok` must match the exit status when there is one."""
    text = output if isinstance(output, str) else output.stdout
    document = json.loads(text)
    assert isinstance(document, dict), document
    assert document["homeclaw"] == 1, document
    assert set(document) in (ENVELOPE_KEYS, ERROR_KEYS, FAILED_KEYS), sorted(document)
    if "error" in document:
        assert document["ok"] is False, document
    assert isinstance(document["command"], str) and document["command"], document
    assert isinstance(document["warnings"], list), document
    code = _exit_code(output)
    if code is not None:
        assert document["ok"] is (code == 0), (code, document)
    return document


def payload(output: CliOutput) -> Any:
    """The `data` of a command's envelope: what the command reported, success or not."""
    document = envelope(output)
    assert "data" in document, document
    return document["data"]


def _exit_code(output: CliOutput) -> int | None:
    if isinstance(output, Result):
        return output.exit_code
    if isinstance(output, subprocess.CompletedProcess):
        return output.returncode
    return None
