"""One exit code per meaning: a path the user gave that does not exist is 4 in every command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.json_output import envelope

MISSING = "/no/such/place"

COMMANDS_WITH_A_PATH = [
    ("plugin", "validate", MISSING),
    ("skill", "validate", MISSING),
    ("plugin", "install", MISSING, "--yes"),
    ("skill", "install", MISSING, "--yes"),
    ("plugin", "register", MISSING + ".json", "--no-check"),
    ("plugin", "mcp-import", MISSING),
    ("skill", "test", MISSING),
    ("eval", "retrieval", MISSING + ".jsonl"),
    ("--config", MISSING + ".yaml", "plugin", "list"),
    ("--plugins-dir", MISSING, "plugin", "list"),
    ("chat", "--allow-dir", MISSING, "-q", "hello"),
]


@pytest.mark.parametrize("args", COMMANDS_WITH_A_PATH, ids=" ".join)
def test_a_missing_path_exits_4_and_names_it(cli: Any, args: tuple[str, ...]) -> None:
    result = cli(*args)
    assert result.exit_code == 4, result.output
    assert MISSING in result.stderr
    assert "hint:" in result.stderr


def test_the_json_envelope_says_not_found(cli: Any) -> None:
    result = cli("plugin", "validate", MISSING, "--json")
    assert result.exit_code == 4
    assert envelope(result)["error"]["kind"] == "not_found"


def test_a_file_where_a_folder_is_wanted_is_a_usage_error(cli: Any, tmp_path: Path) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    assert cli("--plugins-dir", str(afile), "plugin", "list").exit_code == 2
    assert cli("chat", "--allow-dir", str(afile), "-q", "hi").exit_code == 2


def test_a_missing_homeclaw_config_exits_4_but_config_path_still_prints_it(cli: Any) -> None:
    env = {"HOMECLAW_CONFIG": MISSING + ".yaml"}
    result = cli("sync", "--check", env=env)
    assert result.exit_code == 4, result.output
    assert f"{MISSING}.yaml (from HOMECLAW_CONFIG)" in result.stderr
    assert "unset HOMECLAW_CONFIG" in result.stderr
    assert cli("config", "path", env=env).stdout == f"{MISSING}.yaml\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("--version",), ("plugin", "list", "--json"), ("config", "show")])
def test_output_that_cannot_be_written_is_one_error_line(
    hc_home: Path, args: tuple[str, ...]
) -> None:
    """`homeclaw ... > /dev/full` (a full disk): exit 1 and what went wrong, no traceback."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HOMECLAW_NO_BUNDLED": "1"}
    with Path("/dev/full").open("w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "homeclaw_cli", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=60,
        )
    assert result.returncode == 1, result.stderr
    assert "error: cannot write the output: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr
