"""A safe calculator: expressions are parsed with `ast` and only arithmetic is evaluated."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from homeclaw_cli.sdk import BasePlugin, PluginError

MAX_EXPRESSION = 500
MAX_POWER = 10_000

BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "factorial": math.factorial,
    "radians": math.radians,
    "degrees": math.degrees,
}
CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
_NUMBER = r"(\d+(?:\.\d+)?)"
_PERCENT_OF = re.compile(_NUMBER + r"\s*%\s*of\s*", re.I)
_PERCENT = re.compile(_NUMBER + r"\s*%")
_FACTORIAL = re.compile(r"(\d+|\([^()]*\))\s*!(?!=)")
# Words small models (and people) leave in an expression, as operators.
_WORDS = [
    (re.compile(r"\bsquare\s+root\s+of\s+" + _NUMBER, re.I), r"sqrt(\1)"),
    (re.compile(r"\bcube\s+root\s+of\s+" + _NUMBER, re.I), r"cbrt(\1)"),
    (re.compile(_NUMBER + r"\s+factorial\b", re.I), r"factorial(\1)"),
    (re.compile(r"\bfactorial\s+(?:of\s+)?" + _NUMBER, re.I), r"factorial(\1)"),
    (re.compile(r"\blog\s+base\s+" + _NUMBER + r"\s+of\s+" + _NUMBER, re.I), r"log(\2, \1)"),
    (re.compile(r"\b(?:to\s+the\s+power\s+of|raised\s+to)\b", re.I), "^"),
    (re.compile(r"\bsquared\b", re.I), "^2"),
    (re.compile(r"\bpercent\b", re.I), "%"),
    (re.compile(r"\b(?:times|multiplied\s+by)\b", re.I), "*"),
    (re.compile(r"\bdivided\s+by\b", re.I), "/"),
    (re.compile(r"\bplus\b", re.I), "+"),
    (re.compile(r"\bminus\b", re.I), "-"),
    (re.compile(r"(?<=\d)\s*[x×]\s*(?=[\d(])"), "*"),
    (re.compile(r"(?<=\d),(?=\d{3}\b)"), ""),  # 1,234 -> 1234
    (re.compile(r"[$€£]"), ""),
]


def _prepare(expression: str) -> str:
    text = expression.strip().rstrip("=?").strip()
    for pattern, replacement in _WORDS:
        text = pattern.sub(replacement, text)
    text = _FACTORIAL.sub(r"factorial(\1)", text)
    text = text.replace("^", "**").replace("÷", "/")
    text = _PERCENT_OF.sub(r"\1/100*", text)
    return _PERCENT.sub(r"(\1/100)", text)


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_POWER:
            raise PluginError(f"exponent {right} is too large")
        return BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords:
            raise PluginError("functions take positional arguments only")
        args = [_eval(a) for a in node.args]
        if node.func.id == "factorial" and args and args[0] > 1000:
            raise PluginError("factorial argument is too large")
        return FUNCTIONS[node.func.id](*args)
    if isinstance(node, ast.Name):
        raise PluginError(f"unknown name {node.id!r}; known: {', '.join([*FUNCTIONS, *CONSTANTS])}")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        raise PluginError(f"unknown function {node.func.id!r}; known: {', '.join(FUNCTIONS)}")
    raise PluginError(
        f"unsupported syntax ({type(node).__name__}): use numbers, + - * / // % ^, parentheses "
        "and the math functions"
    )


def evaluate_expression(expression: str) -> float | int:
    if len(expression) > MAX_EXPRESSION:
        raise PluginError(f"expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(_prepare(expression), mode="eval")
    except SyntaxError:
        raise PluginError(f"cannot parse {expression!r} as a math expression") from None
    try:
        value = _eval(tree)
    except ZeroDivisionError:
        raise PluginError("division by zero") from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise PluginError(f"math error: {exc}") from None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value  # type: ignore[no-any-return]


class CalculatorPlugin(BasePlugin):
    def evaluate(self, expression: str) -> dict[str, Any]:
        value = evaluate_expression(expression)
        shown = f"{value:.12g}" if isinstance(value, float) else str(value)
        return {"text": f"{expression} = {shown}", "value": value}
