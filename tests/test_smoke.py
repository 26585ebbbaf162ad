from __future__ import annotations

from typing import Any


def test_help_lists_command_groups(cli: Any) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    assert "plugin" in result.output
