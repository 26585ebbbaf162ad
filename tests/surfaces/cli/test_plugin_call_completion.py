from __future__ import annotations

from typing import Any


def complete(run_cli: Any, words: str) -> list[str]:
    parts = words.split(" ")
    env = {
        "_HOMECLAW_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
    }
    result = run_cli(env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_plugin_ids_and_capabilities_complete(run_cli: Any) -> None:
    assert complete(run_cli, "homeclaw plugin call tex") == ["textkit"]
    assert complete(run_cli, "homeclaw plugin call hashkit ") == ["hash", "base64", "uuid"]
    assert complete(run_cli, "homeclaw plugin health mcp-") == ["mcp-time"]
