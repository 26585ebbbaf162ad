"""Size and shape of homeclaw_cli: modules, lines, longest functions, `Any` count.

python benchmarks/code_metrics.py [--top N]
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "homeclaw_cli"
_ANY = re.compile(r"\bAny\b")


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()
    modules = sorted(ROOT.rglob("*.py"))
    lines = 0
    any_count = 0
    longest: list[tuple[int, str]] = []
    biggest: list[tuple[int, str]] = []
    for path in modules:
        text = path.read_text()
        n = len(text.splitlines())
        lines += n
        rel = path.relative_to(ROOT.parent)
        biggest.append((n, str(rel)))
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        any_count += sum(
            1
            for line in code.splitlines()
            if _ANY.search(line) and not line.lstrip().startswith(("from ", "import "))
            for _ in _ANY.findall(line)
        )
        for fn in _functions(ast.parse(text)):
            span = (fn.end_lineno or fn.lineno) - fn.lineno + 1
            longest.append((span, f"{rel}:{fn.lineno} {fn.name}"))
    longest.sort(reverse=True)
    biggest.sort(reverse=True)
    print(f"modules: {len(modules)}")
    print(f"lines: {lines}")
    print(f"Any annotations (outside imports): {any_count}")
    print("longest functions:")
    for span, where in longest[: args.top]:
        print(f"  {span:4d}  {where}")
    print("largest modules:")
    for n, where in biggest[: args.top]:
        print(f"  {n:4d}  {where}")


if __name__ == "__main__":
    main()
