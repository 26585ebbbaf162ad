"""`homeclaw plugin call` on subprocess plugins: the contract and every way a process fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.errors import ExitCode
from tests.json_output import payload
from tests.plugin_factory import REPO_ROOT, workspace_plugins, write_plugin

ECHO = """
import json, sys
request = json.loads(sys.stdin.readline())
print(json.dumps({"request_id": request["request_id"], "plugin_id": request["plugin_id"],
                  "success": True, "text": "got " + json.dumps(request["parameters"]),
                  "metadata": {"request": request}}))
"""


def subprocess_plugin(
    plugin_id: str, script: str, *, timeout: float = 10, params: list[dict[str, Any]] | None = None
) -> Path:
    manifest = {
        "id": plugin_id,
        "name": plugin_id,
        "description": "A test plugin.",
        "type": "subprocess",
        "config": {"command": "python", "args": ["main.py"], "timeout_sec": timeout},
        "capabilities": [
            {
                "id": "go",
                "name": "Go",
                "description": "Do the thing.",
                "parameters": params if params is not None else [],
            }
        ],
    }
    return write_plugin(workspace_plugins(), manifest, {"main.py": script})


def test_request_reaches_the_process_and_result_is_printed(cli: Any) -> None:
    subprocess_plugin(
        "echo",
        ECHO,
        params=[
            {"name": "count", "type": "number"},
            {"name": "loud", "type": "boolean", "required": False, "default": False},
            {"name": "tags", "type": "array", "required": False},
        ],
    )
    result = cli(
        "plugin",
        "call",
        "echo",
        "go",
        "-p",
        "count=3",
        "-p",
        'tags:=["a"]',
        "--input",
        "hi",
        "--json",
    )
    assert result.exit_code == 0, result.output
    outcome = payload(result)
    assert outcome["result"]["success"] is True
    assert outcome["result"]["text"] == 'got {"count": 3, "tags": ["a"], "loud": false}'
    request = outcome["result"]["metadata"]["request"]
    assert request["capability_id"] == "go"
    assert request["plugin_id"] == "echo"
    assert request["user_input"] == "hi"
    assert request["channel_type"] == "cli"
    assert request["request_id"] == outcome["result"]["request_id"]

    plain = cli("plugin", "call", "echo", "-p", "count=1")
    assert plain.exit_code == 0
    assert plain.stdout == 'got {"count": 1, "loud": false}\n'


HOSTILE = r"""
import json, sys
request = json.loads(sys.stdin.readline())
print(json.dumps({"request_id": request["request_id"], "plugin_id": request["plugin_id"],
                  "success": True,
                  "text": "\u001b[31mRED\u001b[0m \u001b]0;pwned title\u0007 text\u009b2J\r\n"}))
"""


def test_control_sequences_in_a_plugins_answer_never_reach_the_terminal(cli: Any) -> None:
    subprocess_plugin("hostile", HOSTILE)
    result = cli("plugin", "call", "hostile", "go")
    assert result.exit_code == 0, result.output
    assert result.stdout == "RED  text\n"
    assert not any(c in result.stdout for c in "\x1b\x07\x9b\r")
    # --json keeps the text as the plugin gave it: JSON escapes it
    raw = payload(cli("plugin", "call", "hostile", "go", "--json"))["result"]["text"]
    assert raw == "\x1b[31mRED\x1b[0m \x1b]0;pwned title\x07 text\x9b2J\r\n"


def test_timeout_kills_the_whole_process_group(cli: Any, tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    subprocess_plugin(
        "sleepy",
        f"""
        import subprocess, sys, time
        child = subprocess.Popen(["sleep", "60"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        sys.stdin.readline()
        time.sleep(60)
        """,
        timeout=1.5,  # room for a loaded machine to start Python and write the pid
    )
    started = time.monotonic()
    result = cli("plugin", "call", "sleepy")
    assert time.monotonic() - started < 10
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin sleepy did not answer within 1.5 s and was stopped" in result.stderr
    grandchild = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        _wait_gone(grandchild)


def test_a_background_child_holding_stdout_neither_delays_the_answer_nor_outlives_it(
    cli: Any, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    subprocess_plugin(
        "forky",
        f"""
        import json, subprocess, sys
        sys.stdin.readline()
        print(json.dumps({{"success": True, "text": "answered"}}), flush=True)
        child = subprocess.Popen(["sleep", "60"])  # inherits stdout and holds it open
        open({str(pid_file)!r}, "w").write(str(child.pid))
        """,
        timeout=20,
    )
    started = time.monotonic()
    result = cli("plugin", "call", "forky")
    assert time.monotonic() - started < 8  # the grace after exit, not the 20 s timeout
    assert result.exit_code == 0, result.output
    assert result.stdout == "answered\n"
    child = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        _wait_gone(child)


def _wait_gone(pid: int) -> None:
    # The kill is synchronous; a zombie still answers kill(0) until its parent (init) reaps it.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                raise ProcessLookupError
        except FileNotFoundError:
            raise ProcessLookupError from None
        os.kill(pid, 0)
        time.sleep(0.05)


def test_crash_reports_exit_code_and_stderr(cli: Any) -> None:
    subprocess_plugin(
        "crashy",
        """
        import sys
        sys.stderr.write("Traceback...\\nKeyError: 'city'\\n")
        sys.exit(3)
        """,
    )
    result = cli("plugin", "call", "crashy")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin crashy exited with 3; stderr: \"Traceback... KeyError: 'city'\"" in result.stderr


def test_garbage_output_is_quoted(cli: Any) -> None:
    subprocess_plugin("garbage", 'print("hello, I am not JSON")')
    result = cli("plugin", "call", "garbage")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin garbage printed 'hello, I am not JSON', which is not JSON" in result.stderr


def test_json_that_is_not_a_plugin_result_is_refused(cli: Any) -> None:
    subprocess_plugin("listy", "print('[1, 2, 3]')")
    result = cli("plugin", "call", "listy")
    assert result.exit_code == ExitCode.FAILURE
    assert "which is not a PluginResult" in result.stderr


def test_log_lines_before_the_result_line_are_tolerated(cli: Any) -> None:
    subprocess_plugin(
        "chatty", 'print("starting up")\nprint(\'{"success": true, "text": "done"}\')'
    )
    result = cli("plugin", "call", "chatty")
    assert result.exit_code == 0
    assert result.stdout == "done\n"


def test_huge_output_is_capped_and_the_plugin_stopped(cli: Any) -> None:
    subprocess_plugin(
        "firehose",
        """
        import sys
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
        """,
        timeout=60,
    )
    started = time.monotonic()
    result = cli("plugin", "call", "firehose")
    # The cap stops it (the message), not the plugin's timeout, and well before that timeout:
    # a 10 s timeout here once fired first on a loaded CI machine, so which path ended the call
    # is read from the message rather than from the clock.
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin firehose printed more than 1024 KiB and was stopped" in result.stderr
    assert time.monotonic() - started < 30


def test_empty_output_is_an_error(cli: Any) -> None:
    subprocess_plugin("mute", "import sys; sys.stdin.read()")
    result = cli("plugin", "call", "mute")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin mute printed nothing" in result.stderr


def test_reported_failure_becomes_the_error(cli: Any) -> None:
    subprocess_plugin("sad", 'print(\'{"success": false, "error": "city not found"}\')')
    result = cli("plugin", "call", "sad", "--json")
    assert result.exit_code == ExitCode.FAILURE
    outcome = payload(result)
    assert outcome["result"]["error"] == "plugin sad: city not found"
    assert outcome["failure"] == "plugin_error"


def test_missing_command_is_unavailable(cli: Any) -> None:
    folder = subprocess_plugin("ghost", "")
    manifest = (
        (folder / "plugin.yaml").read_text().replace("command: python", "command: no-such-cmd-xyz")
    )
    (folder / "plugin.yaml").write_text(manifest)
    result = cli("plugin", "call", "ghost")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "command 'no-such-cmd-xyz' was not found" in result.stderr
    assert "install `no-such-cmd-xyz` or fix config.command in " in result.stderr


def test_bad_and_missing_parameters_never_start_the_plugin(cli: Any, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    subprocess_plugin(
        "strict",
        f"open({str(marker)!r}, 'w').write('x')",
        params=[{"name": "days", "type": "number"}, {"name": "city", "type": "string"}],
    )
    bad = cli("plugin", "call", "strict", "go", "-p", "days=soon", "-p", "city=Oslo")
    assert bad.exit_code == ExitCode.USAGE
    assert "strict/go: parameter `days` must be a number, got 'soon'" in bad.stderr
    missing = cli("plugin", "call", "strict", "go", "-p", "days=2")
    assert missing.exit_code == ExitCode.USAGE
    assert "missing required parameter `city`" in missing.stderr
    assert not marker.exists()


def test_malformed_param_option_is_a_usage_error(cli: Any) -> None:
    subprocess_plugin("echo2", ECHO)
    result = cli("plugin", "call", "echo2", "-p", "novalue")
    assert result.exit_code == ExitCode.USAGE
    assert "expected key=value" in result.stderr
    result = cli("plugin", "call", "echo2", "-p", "x:={bad")
    assert result.exit_code == ExitCode.USAGE
    assert "the value after := is not JSON" in result.stderr


def test_unknown_plugin_and_capability_name_the_valid_ones(cli: Any) -> None:
    subprocess_plugin("echo3", ECHO)
    result = cli("plugin", "call", "echo4")
    assert result.exit_code == ExitCode.NOT_FOUND
    assert "no plugin with id 'echo4' (did you mean `echo3`?)" in result.stderr
    result = cli("plugin", "call", "echo3", "og")
    assert result.exit_code == ExitCode.NOT_FOUND
    assert "has no capability 'og'" in result.stderr
    assert "its capabilities: go" in result.stderr


def test_bundled_python_textkit(cli: Any) -> None:
    result = cli(
        "plugin", "call", "textkit", "change-case", "-p", "text=hello big world", "-p", "case=snake"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == "hello_big_world\n"
    stats = cli("plugin", "call", "textkit", "stats", "-p", "text=One two. Three!")
    assert stats.stdout.startswith("3 words, 15 characters, 1 lines, 2 sentences")


def test_bundled_node_hashkit(cli: Any) -> None:
    result = cli("plugin", "call", "hashkit", "hash", "-p", "text=abc", "-p", "algorithm=md5")
    assert result.exit_code == 0, result.output
    assert result.stdout == "md5: 900150983cd24fb0d6963f7d28e17f72\n"
    decoded = cli("plugin", "call", "hashkit", "base64", "-p", "text=aGVsbG8=", "-p", "decode=yes")
    assert decoded.stdout == "hello\n"
    refused = cli("plugin", "call", "hashkit", "hash", "-p", "text=x", "-p", "algorithm=crc")
    assert refused.exit_code == ExitCode.FAILURE
    assert "unknown algorithm 'crc'" in refused.stderr


def test_through_the_real_entry_point(run_cli: Any) -> None:
    result = run_cli("plugin", "call", "textkit", "slugify", "-p", "text=Héllo, World!")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello-world\n"


def test_calling_a_subprocess_plugin_loads_no_heavy_modules(hc_home: Path) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from homeclaw_cli.surfaces.cli.main import app\n"
        "r = CliRunner().invoke(app, ['plugin', 'call', 'textkit', 'slugify', '-p', 'text=a b'])\n"
        "assert r.exit_code == 0, r.output\n"
        "heavy = ('mcp', 'lancedb', 'torch', 'sentence_transformers', 'ollama', 'pyarrow')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_plugins_get_a_minimal_environment_plus_what_the_manifest_asks_for(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cret")
    monkeypatch.setenv("WEATHER_KEY", "k3y")
    folder = subprocess_plugin(
        "envy",
        """
        import json, os, sys
        sys.stdin.readline()
        names = ("SECRET_TOKEN", "WEATHER_KEY", "API_KEY", "HOMECLAW_PLUGIN_ID", "PATH")
        print(json.dumps({"text": json.dumps({n: os.environ.get(n) for n in names})}))
        """,
    )
    manifest = (folder / "plugin.yaml").read_text()
    manifest = manifest.replace("timeout_sec:", "env: {API_KEY: '${WEATHER_KEY}'}\n  timeout_sec:")
    (folder / "plugin.yaml").write_text(manifest)
    result = cli("plugin", "call", "envy")
    assert result.exit_code == 0, result.output
    seen = json.loads(result.stdout)
    assert seen["SECRET_TOKEN"] is None
    assert seen["WEATHER_KEY"] is None
    assert seen["API_KEY"] == "k3y"
    assert seen["HOMECLAW_PLUGIN_ID"] == "envy"
    assert seen["PATH"]


def test_a_plugin_that_fails_to_load_is_a_failure_not_a_missing_plugin(cli: Any) -> None:
    folder = subprocess_plugin("shaky", ECHO)
    (folder / "plugin.yaml").write_text("id: shaky\nname: Shaky\ntype: inlinex\n")
    result = cli("plugin", "call", "shaky", "go")
    assert result.exit_code == 1, result.output
    assert "plugin 'shaky' failed to load" in result.stderr
    assert f"homeclaw plugin validate {folder}" in result.stderr


NOISY = (
    ECHO
    + """
sys.stderr.write("early line\\n" + "x" * 10000 + "\\n\\x1b[31mlast line\\x1b[0m\\n")
"""
)


def test_debug_shows_what_a_succeeding_plugin_wrote_to_stderr(cli: Any) -> None:
    """Cut to its tail and without escape sequences; without --debug it stays hidden."""
    subprocess_plugin("noisy", NOISY)
    loud = cli("plugin", "call", "noisy", "go", "--debug")
    assert loud.exit_code == 0, loud.output
    assert "debug: plugin noisy wrote to stderr (its last 4096 bytes; " in loud.stderr
    assert "last line" in loud.stderr and "early line" not in loud.stderr
    assert "\x1b" not in loud.stderr and len(loud.stderr) < 4500
    quiet = cli("plugin", "call", "noisy", "go")
    assert quiet.exit_code == 0 and quiet.stdout == loud.stdout
    assert "last line" not in quiet.stderr and "debug:" not in quiet.stderr
