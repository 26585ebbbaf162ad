"""A folder where homeclaw keeps a state file (made by hand, by a backup tool, by a mistyped
`mkdir`): a command that writes that file names it in one error (exit 3), never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize(
    ("state_file", "command"),
    [
        ("state/disabled_plugins.json", "disable"),
        ("audit.jsonl", "disable"),
        ("state/approvals.json", "remove"),
        ("homeclaw-lock.json", "remove"),
    ],
)
def test_a_folder_in_place_of_a_state_file_is_named(
    cli: Any, index_env: dict[str, Any], state_file: str, command: str
) -> None:
    path: Path = index_env["home"] / "data" / state_file
    if path.is_file():
        path.unlink()
    path.mkdir(parents=True)
    (path / "kept.txt").write_text("the user's", encoding="utf-8")
    result = cli("plugin", command, "timer", *(["--yes"] if command == "remove" else []))
    assert result.exit_code == 3, result.output
    assert f"{path} is a folder where homeclaw keeps a file" in result.stderr
    if state_file == "audit.jsonl":  # written after the change: the error says it was made
        assert "`disable timer` took effect, but the audit log has no line for it" in result.stderr
    assert "move that folder away" in result.stderr
    assert (path / "kept.txt").read_text(encoding="utf-8") == "the user's"
    assert not list(path.parent.glob(f".{path.name}.*.tmp"))
