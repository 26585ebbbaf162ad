"""The layering contract in pyproject.toml holds, and would catch an import that runs upward."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
    )


def test_the_layering_contract_holds() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr


# Each of these ran the wrong way before the layout was drawn; the contract must refuse them.
VIOLATIONS = [
    ("runtime/runners/mcp.py", "from homeclaw_cli.app import chat"),
    ("adapters/vector_store.py", "from homeclaw_cli.app import sync"),
    ("app/sync.py", "from homeclaw_cli.surfaces.http import app"),
    ("surfaces/repl/chat_repl.py", "from homeclaw_cli.surfaces.cli import chat"),
    ("surfaces/mcp/server.py", "from homeclaw_cli.surfaces.http import serve_runner"),
    ("state/health.py", "from homeclaw_cli.catalog import registry"),
    ("core/agent.py", "from homeclaw_cli.state import conversations"),
    ("core/capability_tools.py", "import httpx"),
    ("app/retrieval.py", "import lancedb"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("module", "line"), VIOLATIONS)
def test_an_upward_import_breaks_the_contract(tmp_path: Path, module: str, line: str) -> None:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(
        REPO / "homeclaw_cli",
        tmp_path / "homeclaw_cli",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    target = tmp_path / "homeclaw_cli" / module
    target.write_text(line + "  # noqa\n" + target.read_text())
    result = lint_imports(tmp_path)
    assert result.returncode != 0, f"{module}: `{line}` was not caught"
    assert "BROKEN" in result.stdout
