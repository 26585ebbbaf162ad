"""The package stays easy to read: small modules, functions that fit on a screen.

A function may run longer only with a `# long: <why>` comment on its `def` line or the line
above it. Cyclomatic complexity (at most 15) is ruff's C901, configured in pyproject.toml.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "homeclaw_cli"
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_450_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"split these modules: {long}"


def test_no_function_is_over_60_lines_without_a_reason() -> None:
    long = []
    for path in _modules():
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            span = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            said = " ".join(lines[max(first - 2, 0) : node.lineno])
            if span > MAX_FUNCTION_LINES and "# long:" not in said:
                long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({span})")
    assert long == [], "split these functions (or say why with `# long:`):\n" + "\n".join(long)
