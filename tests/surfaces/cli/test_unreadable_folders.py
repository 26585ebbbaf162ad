"""A plugin or skill folder this user may not read (another user's, a 0700 checkout) is one
broken item named with the reason; every other plugin and skill still lists and indexes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.fakes.index import write_plugin, write_skill


@pytest.fixture
def unreadable(hc_home: Path, tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Good and unreadable plugins and skills; root reads whatever the modes say, so the
    commands run without capabilities (see run below)."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permissions cannot be enforced")
    plugins, skills = tmp_path / "plugins", tmp_path / "skills"
    write_plugin(plugins, "weather", "Weather", "Forecasts for a city.")
    locked = write_plugin(plugins, "locked", "Locked", "A folder nobody here may read.")
    no_manifest = write_plugin(plugins, "sealed", "Sealed", "A manifest nobody here may read.")
    write_skill(skills, "haiku", "haiku", "Write a haiku poem about a topic.")
    locked_skill = write_skill(skills, "private", "private", "A skill nobody here may read.")
    (no_manifest / "plugin.yaml").chmod(0)
    locked.chmod(0)
    locked_skill.chmod(0)
    yield {"plugins": plugins, "skills": skills, "locked": locked, "sealed": no_manifest}
    for folder in (locked, locked_skill):
        folder.chmod(0o755)


def run(paths: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    prefix = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"] if os.geteuid() == 0 else []
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_SKILLS_PATH": str(paths["skills"]),
    }
    command = [
        *prefix,
        sys.executable,
        "-m",
        "homeclaw_cli",
        "--plugins-dir",
        str(paths["plugins"]),
    ]
    return subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=120)


def test_sync_check_and_lists_name_the_unreadable_ones(unreadable: dict[str, Path]) -> None:
    check = run(unreadable, "sync", "--check")
    assert check.returncode == 1, check.stderr
    assert "index stale: would change 2 added" in check.stdout
    assert f"{unreadable['locked']}: error: cannot read this folder: Permission denied" in (
        check.stderr
    )
    assert f"{unreadable['sealed']}/plugin.yaml: error: cannot read file" in check.stderr
    plugins = run(unreadable, "plugin", "list")
    assert plugins.returncode == 0, plugins.stderr
    assert "weather" in plugins.stdout and "locked" in plugins.stdout
    skills = run(unreadable, "skill", "list", "--all")
    assert skills.returncode == 0, skills.stderr
    assert "haiku" in skills.stdout and "private/SKILL.md: cannot read file" in skills.stdout
    for result in (check, plugins, skills):
        assert "Traceback" not in result.stderr


def test_an_unreadable_installed_plugin_or_skills_folder_breaks_no_other(
    unreadable: dict[str, Path], hc_home: Path
) -> None:
    """The skills of installed plugins are looked for in each one's skills/ folder, and the
    user skills folder itself may be the unreadable one."""
    locked = write_plugin(hc_home / "data" / "plugins", "vault", "Vault", "Nobody may read it.")
    user_skills = hc_home / "data" / "skills"
    write_skill(user_skills, "limerick", "limerick", "Write a limerick.")
    locked.chmod(0)
    user_skills.chmod(0)
    try:
        skills = run(unreadable, "skill", "list", "--all")
        plugins = run(unreadable, "plugin", "list")
    finally:
        locked.chmod(0o755)
        user_skills.chmod(0o755)
    assert skills.returncode == 0, skills.stderr
    assert "haiku" in skills.stdout
    assert f"{user_skills}/SKILL.md: cannot read file: Permission denied" in skills.stdout
    assert plugins.returncode == 0, plugins.stderr
    assert f"{locked}: error: cannot read this folder" in plugins.stderr
    assert "Traceback" not in skills.stderr + plugins.stderr
