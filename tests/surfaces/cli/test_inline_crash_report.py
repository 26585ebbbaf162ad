"""An inline plugin that raises or does not parse: where in its code, what it printed, and
its own traceback with --debug; the chat's model reads the same one line, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.errors import ExitCode
from tests.fakes.chat_plugins import fast_retrieval
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.json_output import payload
from tests.plugin_factory import workspace_plugins, write_plugin

__all__ = ["fast_retrieval"]

CODE = """\
from homeclaw_cli.sdk import BasePlugin


def divide(a, b):
    return a / b


class Calc(BasePlugin):
    def ratio(self, a: int, b: int) -> str:
        print("DEBUG ratio", a, b)
        return str(divide(a, b))
"""
MANIFEST: dict[str, Any] = {
    "id": "calc",
    "name": "Calc",
    "description": "Divide two numbers and give the ratio.",
    "keywords": ["divide", "ratio"],
    "type": "inline",
    "effects": "read",
    "capabilities": [
        {
            "id": "ratio",
            "name": "Ratio",
            "description": "Divide a by b.",
            "parameters": [{"name": "a", "type": "integer"}, {"name": "b", "type": "integer"}],
        }
    ],
}


def calc(root: Path | None = None, code: str = CODE) -> Path:
    return write_plugin(root or workspace_plugins(), MANIFEST, {"plugin.py": code})


def test_a_crash_names_the_plugins_line_and_shows_what_it_printed(cli: Any) -> None:
    calc()
    result = cli("plugin", "call", "calc", "ratio", "-p", "a=1", "-p", "b=0")
    assert result.exit_code == ExitCode.FAILURE
    assert result.stdout == ""
    assert "DEBUG ratio 1 0\n" in result.stderr
    assert (
        "error: plugin calc raised ZeroDivisionError at plugin.py:5 in divide: division by zero"
        in result.stderr
    )
    assert "add --debug to see the plugin's traceback" in result.stderr
    assert "Traceback" not in result.stderr


def test_debug_prints_the_plugins_own_traceback(cli: Any) -> None:
    calc()
    result = cli("--debug", "plugin", "call", "calc", "ratio", "-p", "a=1", "-p", "b=0")
    assert result.exit_code == ExitCode.FAILURE
    own = result.stderr.split("Traceback (most recent call last):\n")[1]
    assert own.startswith('  File "') and 'plugin.py", line 11, in ratio' in own
    assert 'plugin.py", line 5, in divide' in own and "ZeroDivisionError" in own
    assert "homeclaw_cli" not in own  # the runner's frames are left out


def test_what_a_plugin_prints_goes_to_stderr_and_the_answer_alone_to_stdout(cli: Any) -> None:
    calc()
    result = cli("plugin", "call", "calc", "ratio", "-p", "a=6", "-p", "b=3")
    assert result.exit_code == 0, result.output
    assert result.stdout == "2.0\n"
    assert result.stderr == "DEBUG ratio 6 3\n"
    data = payload(cli("plugin", "call", "calc", "ratio", "-p", "a=6", "-p", "b=3", "--json"))
    assert data["result"]["metadata"]["printed"] == "DEBUG ratio 6 3\n"


def test_an_import_error_names_its_line(cli: Any) -> None:
    calc(code="import json\nfrom nowhere_at_all import thing\n" + CODE)
    result = cli("plugin", "call", "calc", "ratio", "-p", "a=1", "-p", "b=1")
    assert "importing plugin.py raised ModuleNotFoundError at plugin.py:2 in <module>" in (
        result.stderr
    )


def test_a_syntax_error_points_at_the_python_file(cli: Any) -> None:
    folder = calc(code=CODE.replace("return a / b", "return a / (b"))
    result = cli("plugin", "validate", str(folder))
    assert result.exit_code == ExitCode.FAILURE
    assert f"{folder / 'plugin.py'}:5:16: error: syntax error: '(' was never closed" in (
        result.stdout
    )
    assert "Python syntax error" not in result.stdout


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama(strict_models=True) as fake:
        fake.add_model("llama3.2")
        yield fake


def test_the_model_reads_the_one_line_error_without_the_traceback(
    cli: Any, fake: FakeOllama, tmp_path: Path
) -> None:
    calc(tmp_path / "plugins")
    fake.script(tool_call("calc__ratio", {"a": 1, "b": 0}), text("Dividing by zero failed."))
    result = cli(
        *("--plugins-dir", str(tmp_path / "plugins"), "chat", "--host", fake.host),
        *("-q", "divide 1 by 0 and give the ratio"),
        env={"HOMECLAW_NO_BUNDLED": "1"},
    )
    assert result.exit_code == 1
    told = [m["content"] for m in fake.chat_requests[1]["messages"] if m["role"] == "tool"]
    assert len(told) == 1
    assert "plugin calc raised ZeroDivisionError at plugin.py:5 in divide" in told[0]
    assert "Traceback" not in str(fake.chat_requests[1]) and "DEBUG" not in told[0]
