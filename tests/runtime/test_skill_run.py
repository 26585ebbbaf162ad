"""run_skill containment: every escape attempt is refused or contained."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.catalog.skill_paths import SkillPathError
from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.errors import NotFoundError, UsageError
from homeclaw_cli.runtime import skill_run
from homeclaw_cli.runtime.skill_run import PreparedScript, ScriptRefusedError, ScriptResult
from homeclaw_cli.settings import Settings
from tests.skill_helpers import make_skill, settings_for

ECHO_ARGS = (
    "import json, os, sys\n"
    "print(json.dumps({'argv': sys.argv[1:], 'cwd': os.getcwd(), 'env': dict(os.environ)}))\n"
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home" / "data" / "skills"


def settings(tmp_path: Path, **flags: object):  # type: ignore[no-untyped-def]
    return settings_for(tmp_path, **flags)


def run_skill(settings: Settings, skill: str, script: str, *args: Any, **kw: Any) -> ScriptResult:
    """skill_run.run_skill over the skills as they are now on disk."""
    registry = scan_skills(settings, env=kw.get("env"))
    return skill_run.run_skill(settings, skill, script, *args, registry=registry, **kw)


def prepare_script(settings: Settings, skill: str, script: str, *args: Any) -> PreparedScript:
    return skill_run.prepare_script(settings, skill, script, *args, registry=scan_skills(settings))


def test_runs_script_with_args_list_cwd_and_minimal_env(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_skill(
        home,
        "echo",
        extra='metadata: {"openclaw":{"requires":{"env":["NEEDED_TOKEN"]}}}\n',
        scripts={"echo.py": ECHO_ARGS},
    )
    monkeypatch.setenv("NEEDED_TOKEN", "tok")
    monkeypatch.setenv("SECRET_NOT_DECLARED", "leak")
    tools = tmp_path / "brew" / "bin"
    monkeypatch.setenv("PATH", f"{tools}:.:bin:/usr/bin:{tools}")
    result = run_skill(settings(tmp_path), "echo", "echo.py", ["a b", "--flag"])
    assert result.ok, result.stderr
    data = json.loads(result.stdout)
    assert data["argv"] == ["a b", "--flag"]
    assert data["cwd"] == str(folder)
    env = data["env"]
    assert env["NEEDED_TOKEN"] == "tok"
    assert "SECRET_NOT_DECLARED" not in env
    assert env["PATH"] == f"{tools}:/usr/bin"  # the user's, without relative entries
    assert {"HOME", "LANG", "HOMECLAW_SKILL_DIR", "HOMECLAW_CWD"} <= set(env)
    assert env["HOMECLAW_SKILL_DIR"] == str(folder)
    assert result.command[0] == sys.executable


def test_entries_env_is_passed(tmp_path: Path, home: Path) -> None:
    make_skill(home, "echo", scripts={"echo.py": ECHO_ARGS})
    s = settings(tmp_path)
    s.skills.entries = {"echo": {"env": {"API_URL": "http://x"}}}  # type: ignore[dict-item]
    env = json.loads(run_skill(s, "echo", "scripts/echo.py").stdout)["env"]
    assert env["API_URL"] == "http://x"


def test_shell_metacharacters_reach_the_script_as_plain_strings(tmp_path: Path, home: Path) -> None:
    folder = make_skill(
        home, "echo", scripts={"echo.py": ECHO_ARGS, "echo.sh": 'printf "%s\\n" "$@"\n'}
    )
    nasty = [
        "; touch pwned",
        "$(touch pwned2)",
        "`touch pwned3`",
        "| cat /etc/passwd",
        "&& rm -rf ~",
        "> out.txt",
        "*",
        "$HOME",
        "'\"",
        "\n",
    ]
    result = run_skill(settings(tmp_path), "echo", "echo.py", nasty)
    assert json.loads(result.stdout)["argv"] == nasty
    shell = run_skill(settings(tmp_path), "echo", "echo.sh", nasty)
    assert shell.stdout == "".join(f"{a}\n" for a in nasty)
    for marker in ("pwned", "pwned2", "pwned3", "out.txt"):
        assert not (folder / marker).exists() and not (tmp_path / marker).exists()


@pytest.mark.parametrize(
    "script",
    [
        "../SKILL.md",
        "../../other/scripts/x.py",
        "sub/../../SKILL.md",
        "..\\..\\SKILL.md",
        "scripts/../../SKILL.md",
    ],
)
def test_traversal_is_refused(tmp_path: Path, home: Path, script: str) -> None:
    make_skill(home, "s", scripts={"ok.py": "print(1)", "sub/x.py": ""})
    make_skill(home, "other", scripts={"x.py": "print('other')"})
    with pytest.raises(SkillPathError, match=r"`\.\.`"):
        run_skill(settings(tmp_path), "s", script)


@pytest.mark.parametrize("script", ["/bin/sh", "/etc/passwd", "C:\\Windows\\cmd.exe", "~/x.py"])
def test_absolute_paths_are_refused(tmp_path: Path, home: Path, script: str) -> None:
    make_skill(home, "s", scripts={"ok.py": ""})
    with pytest.raises(SkillPathError, match="absolute path"):
        run_skill(settings(tmp_path), "s", script)


def test_symlink_leading_out_is_refused(tmp_path: Path, home: Path) -> None:
    folder = make_skill(home, "s", scripts={"ok.py": ""})
    outside = tmp_path / "evil.py"
    outside.write_text("print('escaped')")
    (folder / "scripts" / "link.py").symlink_to(outside)
    (folder / "scripts" / "to-skill-md.py").symlink_to(folder / "SKILL.md")
    with pytest.raises(SkillPathError, match="symlink that leads out"):
        run_skill(settings(tmp_path), "s", "link.py")
    # Inside the skill but outside scripts/: still refused.
    with pytest.raises(SkillPathError, match="symlink that leads out"):
        run_skill(settings(tmp_path), "s", "to-skill-md.py")


def test_symlinked_scripts_folder_is_refused(tmp_path: Path, home: Path) -> None:
    folder = make_skill(home, "s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.py").write_text("print('escaped')")
    (folder / "scripts").symlink_to(elsewhere)
    with pytest.raises(SkillPathError, match="scripts/ of skill 's' is a symlink"):
        run_skill(settings(tmp_path), "s", "x.py")


def test_huge_output_is_capped_and_the_script_stopped(tmp_path: Path, home: Path) -> None:
    make_skill(
        home,
        "s",
        scripts={"flood.py": "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"},
    )
    started = time.monotonic()
    result = run_skill(
        settings(tmp_path, **{"skills.script_max_output_bytes": 4096}), "s", "flood.py"
    )
    assert result.truncated and not result.timed_out
    assert len(result.stdout) == 4096
    assert "script_max_output_bytes" in result.stderr
    assert time.monotonic() - started < 10


def test_endless_loop_times_out_and_its_children_die(tmp_path: Path, home: Path) -> None:
    pidfile = tmp_path / "child.pid"
    make_skill(
        home,
        "s",
        scripts={"loop.sh": f"sleep 300 &\necho $! > {pidfile}\nwhile :; do :; done\n"},
    )
    started = time.monotonic()
    result = run_skill(settings(tmp_path, **{"skills.script_timeout_sec": 1}), "s", "loop.sh")
    assert result.timed_out and result.exit_code < 0
    assert time.monotonic() - started < 8
    assert "stopped after 1 s" in result.stderr
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"background child {child} survived the timeout")


def test_stdin_is_empty_so_readers_do_not_hang(tmp_path: Path, home: Path) -> None:
    make_skill(home, "s", scripts={"read.py": "import sys\nprint(repr(sys.stdin.read()))\n"})
    result = run_skill(settings(tmp_path, **{"skills.script_timeout_sec": 5}), "s", "read.py")
    assert result.stdout.strip() == "''"


def test_exit_code_and_stderr_are_reported(tmp_path: Path, home: Path) -> None:
    make_skill(
        home,
        "s",
        scripts={"fail.py": "import sys\nsys.stderr.write('bad input\\n')\nsys.exit(3)\n"},
    )
    result = run_skill(settings(tmp_path), "s", "fail.py")
    assert result.exit_code == 3 and not result.ok
    assert "bad input" in result.stderr and "exit code: 3" in result.for_model()


def test_interpreter_from_shebang_or_extension(tmp_path: Path, home: Path) -> None:
    make_skill(
        home,
        "s",
        scripts={
            "tool": '#!/bin/sh\necho from-sh "$1"\n',
            "py-tool": "#!/usr/bin/env python3\nimport sys\nprint('from-py', sys.argv[1])\n",
            "data.bin": "\x7fELF",
            "bad-shebang": "#!/no/such/interpreter\n",
        },
    )
    s = settings(tmp_path)
    assert run_skill(s, "s", "tool", ["x"]).stdout == "from-sh x\n"
    assert run_skill(s, "s", "py-tool", ["y"]).stdout == "from-py y\n"
    with pytest.raises(ScriptRefusedError, match="no interpreter known"):
        run_skill(s, "s", "data.bin")
    with pytest.raises(ScriptRefusedError, match="was not found"):
        run_skill(s, "s", "bad-shebang")


def test_allowlist(tmp_path: Path, home: Path) -> None:
    make_skill(home, "s", scripts={"a.py": "print('a')", "b.py": "print('b')"})
    make_skill(home, "t", scripts={"c.py": "print('c')"})
    s = settings(tmp_path, **{"skills.script_allowlist": ["s/a.py", "t"]})
    assert run_skill(s, "s", "a.py").stdout == "a\n"
    assert run_skill(s, "t", "c.py").stdout == "c\n"
    with pytest.raises(ScriptRefusedError, match=r"not in skills\.script_allowlist") as info:
        run_skill(s, "s", "b.py")
    assert "s/b.py" in str(info.value.hint)
    with pytest.raises(ScriptRefusedError):
        run_skill(settings(tmp_path, **{"skills.script_allowlist": []}), "s", "a.py")


def test_other_refusals(tmp_path: Path, home: Path) -> None:
    make_skill(home, "s", scripts={"a.py": "", ".hidden.py": ""})
    make_skill(home, "noscripts")
    make_skill(
        home, "mac", extra='metadata: {"openclaw":{"os":["darwin"]}}\n', scripts={"a.py": ""}
    )
    s = settings(tmp_path)
    with pytest.raises(NotFoundError, match="no skill 'nope'"):
        run_skill(s, "nope", "a.py")
    with pytest.raises(NotFoundError, match=r"does not exist in .*; there are: a\.py$"):
        run_skill(s, "s", "missing.py")  # the hidden script is not named
    with pytest.raises(ScriptRefusedError, match="hidden"):
        run_skill(s, "s", ".hidden.py")
    with pytest.raises(ScriptRefusedError, match="no scripts/ folder"):
        run_skill(s, "noscripts", "a.py")
    with pytest.raises(ScriptRefusedError, match="not eligible here: only for darwin"):
        run_skill(s, "mac", "a.py")
    with pytest.raises(UsageError, match="NUL"):
        run_skill(s, "s", "a.py", ["a\x00b"])
    with pytest.raises(UsageError, match="at most 64"):
        run_skill(s, "s", "a.py", ["x"] * 65)
    with pytest.raises(UsageError, match="list of strings"):
        prepare_script(s, "s", "a.py", "one string")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="must be a string"):
        prepare_script(s, "s", "a.py", [1])  # type: ignore[list-item]
    with pytest.raises(SkillPathError, match="empty"):
        run_skill(s, "s", "")
