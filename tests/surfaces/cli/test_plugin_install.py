"""`homeclaw plugin install/update/remove/enable/disable` and `homeclaw audit`, end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.adapters import install_source as install_mod
from homeclaw_cli.app.install import plugin as plugin_install
from homeclaw_cli.app.install import swap
from homeclaw_cli.surfaces.cli import confirm
from tests.json_output import envelope, payload

REPO_ROOT = Path(__file__).resolve().parents[3]


def write_plugin(
    folder: Path,
    plugin_id: str = "greeter",
    *,
    version: str = "1.0.0",
    permissions: dict[str, Any] | None = None,
    body: str = "print('hi')\n",
    extra: str = "",
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "id": plugin_id,
        "name": "Greeter",
        "description": "Says hello.",
        "version": version,
        "type": "subprocess",
        "config": {"command": "python3", "args": ["main.py"]},
    }
    if permissions is not None:
        manifest["permissions"] = permissions
    (folder / "plugin.yaml").write_text(json.dumps(manifest) + "\n" + extra)
    (folder / "main.py").write_text(body)
    return folder


def user_dir(hc_home: Path) -> Path:
    return hc_home / "data" / "plugins"


def lock(hc_home: Path) -> dict[str, Any]:
    return json.loads((hc_home / "data" / "homeclaw-lock.json").read_text())


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def no_leftovers(hc_home: Path) -> None:
    hidden = [p.name for p in user_dir(hc_home).glob(".hc-*")] if user_dir(hc_home).exists() else []
    assert hidden == []


# --- sources ----------------------------------------------------------------------------------


def test_install_from_folder_records_lock_and_lists(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src")
    result = cli("plugin", "install", str(src), "--json")
    assert result.exit_code == 0, result.output
    data = payload(result)
    assert data["action"] == "installed" and data["digest"].startswith("sha256:")
    assert (user_dir(hc_home) / "greeter" / "main.py").is_file()
    entry = lock(hc_home)["plugins"]["greeter"]
    assert entry["source_kind"] == "folder" and entry["version"] == "1.0.0"
    assert entry["digest"] == data["digest"]
    rows = payload(cli("plugin", "list", "--json"))
    mine = [(r["id"], r["source"], r["status"]) for r in rows if r["source"] == "user"]
    assert mine == [("greeter", "user", "ok")]
    no_leftovers(hc_home)


def test_install_from_zip_and_tar_gz(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src" / "greeter")
    archive = tmp_path / "greeter.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in src.iterdir():
            zf.write(f, f"greeter-1.0/{f.name}")
    assert cli("plugin", "install", str(archive)).exit_code == 0
    assert lock(hc_home)["plugins"]["greeter"]["source_kind"] == "zip"
    assert cli("plugin", "remove", "greeter", "--yes").exit_code == 0

    tgz = tmp_path / "greeter.tar.gz"
    with tarfile.open(tgz, "w:gz") as tf:
        tf.add(src, "greeter")
    result = cli("plugin", "install", str(tgz))
    assert result.exit_code == 0, result.output
    assert lock(hc_home)["plugins"]["greeter"]["source_kind"] == "tar"
    assert (user_dir(hc_home) / "greeter" / "plugin.yaml").is_file()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A local git repo with tags v1 and v2 (different versions)."""
    path = write_plugin(tmp_path / "repo", version="1.0.0")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-qm", "v1")
    git(path, "tag", "v1")
    write_plugin(path, version="2.0.0", body="print('v2')\n")
    git(path, "commit", "-qam", "v2")
    git(path, "tag", "v2")
    return path


def test_install_from_git_ref_records_exact_commit(cli: Any, hc_home: Path, repo: Path) -> None:
    v1 = git(repo, "rev-parse", "v1^{commit}")
    result = cli("plugin", "install", f"file://{repo}@v1", "--json")
    assert result.exit_code == 0, result.output
    entry = lock(hc_home)["plugins"]["greeter"]
    assert (entry["source_kind"], entry["ref"], entry["commit"]) == ("git", "v1", v1)
    assert entry["version"] == "1.0.0"
    assert not (user_dir(hc_home) / "greeter" / ".git").exists()


def test_install_from_git_default_branch_and_missing_ref(
    cli: Any, hc_home: Path, repo: Path
) -> None:
    result = cli("plugin", "install", f"git+file://{repo}")
    assert result.exit_code == 0, result.output
    assert lock(hc_home)["plugins"]["greeter"]["commit"] == git(repo, "rev-parse", "HEAD")
    bad = cli("plugin", "install", f"file://{repo}@v9", "--upgrade")
    assert bad.exit_code == 4
    assert "ref 'v9' not found" in bad.stderr
    missing = cli("plugin", "install", "file:///nonexistent/repo.git")
    assert missing.exit_code == 5 and "cannot clone" in missing.stderr


def test_git_not_installed_is_named(
    cli: Any, hc_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(install_mod.shutil, "which", lambda name: None)
    result = cli("plugin", "install", "https://example.invalid/x.git")
    assert result.exit_code == 5 and "git is not installed" in result.stderr


# --- validation, overwrite, dry run -----------------------------------------------------------


def test_invalid_plugin_is_refused_with_validator_messages(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src")
    (src / "plugin.yaml").write_text("id: Bad Id\nname: x\ndescription: y\nfoo: 1\n")
    result = cli("plugin", "install", str(src))
    assert result.exit_code == 1
    assert "not valid, nothing was installed" in result.stderr
    assert "unknown field `foo`" in result.stderr and str(src / "plugin.yaml") in result.stderr
    assert not any(user_dir(hc_home).iterdir())


def test_refuses_overwrite_without_upgrade(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src")
    assert cli("plugin", "install", str(src)).exit_code == 0
    write_plugin(src, version="2.0.0")
    result = cli("plugin", "install", str(src))
    assert (
        result.exit_code == 2
        and "already installed" in result.stderr
        and "--upgrade" in result.stderr
    )
    assert lock(hc_home)["plugins"]["greeter"]["version"] == "1.0.0"
    up = cli("plugin", "install", str(src), "--upgrade")
    assert up.exit_code == 0 and "upgraded greeter 1.0.0 -> 2.0.0 (" in up.stdout
    assert "~ plugin.yaml" in up.stdout
    assert lock(hc_home)["plugins"]["greeter"]["version"] == "2.0.0"
    (src / "main.py").write_text("print('hello')\n")
    again = cli("plugin", "install", str(src), "--upgrade")
    assert again.exit_code == 0 and "greeter 2.0.0, the same version (" in again.stdout


def test_dry_run_changes_nothing(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src", permissions={"env_vars": ["API_KEY"]})
    result = cli("plugin", "install", str(src), "--dry-run")
    assert result.exit_code == 0
    assert (
        "would install greeter" in result.stdout
        and "+ permission env var: API_KEY" in result.stdout
    )
    assert not (hc_home / "data" / "homeclaw-lock.json").exists()
    assert not any(user_dir(hc_home).iterdir())
    assert not (hc_home / "data" / "state" / "approvals.json").exists()


# --- approval -------------------------------------------------------------------------------


def test_permissions_are_asked_and_a_no_installs_nothing(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = write_plugin(tmp_path / "src", permissions={"network": ["api.x.com"], "shell": True})
    off_terminal = cli("plugin", "install", str(src), "--json")
    assert off_terminal.exit_code == 2 and "stdin is not a terminal" in off_terminal.stderr
    assert "Approve?" not in off_terminal.stderr and off_terminal.stdout.startswith("{")
    assert envelope(off_terminal)["error"]["exit_code"] == 2
    monkeypatch.setattr(confirm, "on_terminal", lambda: True)
    refused = cli("plugin", "install", str(src), input="n\n")
    assert refused.exit_code == 1
    assert "network: api.x.com" in refused.stderr and "shell" in refused.stderr
    assert "not approved" in refused.stderr
    assert not (user_dir(hc_home) / "greeter").exists()
    no_answer = cli("plugin", "install", str(src))
    assert no_answer.exit_code == 1 and "--yes" in no_answer.stderr
    ok = cli("plugin", "install", str(src), input="y\n")
    assert ok.exit_code == 0, ok.output
    approvals = json.loads((hc_home / "data/state/approvals.json").read_text())
    assert approvals["plugin"]["greeter"]["permissions"]["network"] == ["api.x.com"]
    assert lock(hc_home)["plugins"]["greeter"]["permissions"]["shell"] is True


def test_upgrade_asks_only_for_new_permissions(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confirm, "on_terminal", lambda: True)
    src = write_plugin(tmp_path / "src", permissions={"env_vars": ["A"]})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    write_plugin(src, version="2", permissions={"env_vars": ["A"]})
    same = cli("plugin", "install", str(src), "-U")  # nothing new: no prompt, no input needed
    assert same.exit_code == 0 and "asks for" not in same.stderr
    write_plugin(src, version="3", permissions={"env_vars": ["A", "B"]})
    more = cli("plugin", "install", str(src), "-U", input="y\n")
    assert more.exit_code == 0
    assert "asks for these new permissions" in more.stderr
    assert "+ env var: B" in more.stderr and "env var: A" not in more.stderr.replace(
        "env var: B", ""
    )


def test_inline_install_says_what_cannot_be_enforced_before_the_swap(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = tmp_path / "inl"
    src.mkdir()
    (src / "plugin.yaml").write_text("id: inl\nname: Inl\ndescription: d\ntype: inline\n")
    (src / "plugin.py").write_text(
        "from homeclaw_cli.sdk import BasePlugin\n\nclass P(BasePlugin):\n    def run(self):\n"
        "        return 'x'\n"
    )
    plan = cli("plugin", "install", str(src), "--dry-run")
    assert "inside homeclaw's own Python process" in plan.stderr
    # No --yes and no terminal: nothing needs a yes, so it installs, and the notice comes at
    # the approve step, before the swap, once.
    result = cli("plugin", "install", str(src))
    assert result.exit_code == 0, result.output
    err = result.stderr
    assert err.count("inside homeclaw's own Python process") == 1
    assert err.index("own Python process") < err.index("approve: nothing new")
    assert err.index("own Python process") < err.index("swap: into")


# --- atomicity --------------------------------------------------------------------------------


def test_failure_after_swap_restores_previous_version(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = write_plugin(tmp_path / "src", permissions={"env_vars": ["A"]})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    before = lock(hc_home)
    write_plugin(src, version="2.0.0", body="print('v2')\n", permissions={"env_vars": ["A", "B"]})

    def boom(*args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(swap, "write_lockfile", boom)
    with pytest.raises(OSError, match="disk full"):
        cli("plugin", "install", str(src), "-U", "--yes")
    monkeypatch.undo()
    assert (user_dir(hc_home) / "greeter" / "main.py").read_text() == "print('hi')\n"
    assert lock(hc_home) == before
    approvals = json.loads((hc_home / "data/state/approvals.json").read_text())
    assert approvals["plugin"]["greeter"]["permissions"]["env_vars"] == ["A"]
    no_leftovers(hc_home)


def test_failure_mid_swap_restores_previous_version(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = write_plugin(tmp_path / "src")
    assert cli("plugin", "install", str(src)).exit_code == 0
    write_plugin(src, version="2.0.0", body="print('v2')\n")
    real_rename = Path.rename
    calls = []

    def rename(self: Path, target: Any) -> Any:
        calls.append(self)
        if len(calls) == 2:  # old -> backup done; staged -> dest fails
            raise OSError("injected failure")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError, match="injected"):
        cli("plugin", "install", str(src), "-U")
    monkeypatch.undo()
    assert (user_dir(hc_home) / "greeter" / "main.py").read_text() == "print('hi')\n"
    assert lock(hc_home)["plugins"]["greeter"]["version"] == "1.0.0"
    no_leftovers(hc_home)


KILL_SCRIPT = """
import os, signal, sys
from pathlib import Path
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install import plugin, swap
from homeclaw_cli.settings import load_settings

def die(*args):
    os.kill(os.getpid(), signal.SIGKILL)

swap.write_lockfile = die  # after the swap, before the commit
context = AppContext(load_settings())
plugin.install_plugin(context, sys.argv[1], approve=lambda r: True, upgrade=True)
"""


def test_kill_mid_install_is_rolled_back_by_the_next_command(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src")
    assert cli("plugin", "install", str(src)).exit_code == 0
    write_plugin(src, version="2.0.0", body="print('v2')\n")
    proc = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT, str(src)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == -9, proc.stderr
    # Killed after the swap: the new files are in place but not committed.
    assert list(user_dir(hc_home).glob(".hc-txn-*"))
    result = cli("plugin", "update", "--all", "--dry-run")  # any install command recovers
    assert result.exit_code == 0, result.output
    assert (user_dir(hc_home) / "greeter" / "main.py").read_text() == "print('hi')\n"
    assert lock(hc_home)["plugins"]["greeter"]["version"] == "1.0.0"
    no_leftovers(hc_home)
    events = payload(cli("audit", "--json"))
    assert [e["action"] for e in events][-1] == "rollback"


# --- update ----------------------------------------------------------------------------------


def test_update_reresolves_git_and_shows_the_diff(cli: Any, hc_home: Path, repo: Path) -> None:
    assert cli("plugin", "install", f"file://{repo}").exit_code == 0
    first = cli("plugin", "update", "greeter")
    assert first.exit_code == 0 and "up to date" in first.stdout
    write_plugin(repo, version="3.0.0", body="print('v3')\n", permissions={"env_vars": ["TOKEN"]})
    (repo / "extra.txt").write_text("new file")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v3")
    new_commit = git(repo, "rev-parse", "HEAD")
    check = cli("plugin", "update", "--all", "--dry-run")
    assert check.exit_code == 0
    assert "would upgrade greeter 2.0.0 -> 3.0.0 (" in check.stdout
    assert f"commit: {new_commit}" in check.stdout
    assert "+ extra.txt" in check.stdout and "~ main.py" in check.stdout
    assert "+ permission env var: TOKEN" in check.stdout
    assert lock(hc_home)["plugins"]["greeter"]["version"] == "2.0.0"
    done = cli("plugin", "update", "greeter", "--yes")
    assert done.exit_code == 0, done.output
    assert lock(hc_home)["plugins"]["greeter"]["commit"] == new_commit


def test_update_pinned_tag_stays_and_unknown_id_fails(cli: Any, hc_home: Path, repo: Path) -> None:
    assert cli("plugin", "install", f"file://{repo}@v1").exit_code == 0
    git(repo, "commit", "-q", "--allow-empty", "-m", "later")
    assert "up to date" in cli("plugin", "update", "greeter").stdout
    missing = cli("plugin", "update", "nope")
    assert missing.exit_code == 4 and "was not installed" in missing.stderr
    assert cli("plugin", "update").exit_code == 2


# --- deps ------------------------------------------------------------------------------------


def make_wheel(path: Path) -> Path:
    wheel = path / "hcdemo-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("hcdemo/__init__.py", "VALUE = 42\n")
        zf.writestr(
            "hcdemo-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: hcdemo\nVersion: 0.1\n"
        )
        zf.writestr(
            "hcdemo-0.1.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        zf.writestr("hcdemo-0.1.dist-info/RECORD", "")
    return wheel


def test_with_deps_installs_into_the_plugin_folder_only(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src")
    wheel = make_wheel(tmp_path)
    (src / "requirements.txt").write_text(f"{wheel}\n")
    plain = cli("plugin", "install", str(src), "--dry-run")
    assert "--with-deps" in plain.stderr
    result = cli("plugin", "install", str(src), "--with-deps", env={"PIP_NO_INDEX": "1"})
    assert result.exit_code == 0, result.output
    deps = user_dir(hc_home) / "greeter" / ".homeclaw-deps"
    assert (deps / "hcdemo" / "__init__.py").is_file()
    assert lock(hc_home)["plugins"]["greeter"]["deps_dir"] == ".homeclaw-deps"
    from homeclaw_cli.catalog.plugin_files import with_deps_env

    env = with_deps_env(user_dir(hc_home) / "greeter", {"PATH": os.environ["PATH"]})
    out = subprocess.run(
        [sys.executable, "-c", "import hcdemo; print(hcdemo.VALUE)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "42"


def test_update_of_an_unchanged_plugin_with_deps_is_up_to_date(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src")
    (src / "requirements.txt").write_text(f"{make_wheel(tmp_path)}\n")
    offline = {"PIP_NO_INDEX": "1"}
    assert cli("plugin", "install", str(src), "--with-deps", env=offline).exit_code == 0
    (tmp_path / "hcdemo-0.1-py3-none-any.whl").unlink()  # pip would fail if run again
    result = cli("plugin", "update", "greeter", env=offline)
    assert result.exit_code == 0, result.output
    assert "greeter: up to date" in result.stdout
    assert "deps:" not in result.stderr
    actions = [e["action"] for e in payload(cli("audit", "--id", "greeter", "--json"))]
    assert "upgrade" not in actions


def test_failed_deps_install_installs_nothing_and_shows_pip(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src")
    (src / "requirements.txt").write_text("hc-no-such-package-xyz==1.0\n")
    result = cli("plugin", "install", str(src), "--with-deps", env={"PIP_NO_INDEX": "1"})
    assert result.exit_code == 1
    assert "dependencies of greeter failed" in result.stderr
    assert "hc-no-such-package-xyz" in result.stderr
    assert not (user_dir(hc_home) / "greeter").exists()
    no_leftovers(hc_home)


# --- remove, enable, disable, audit -------------------------------------------------------------


def test_remove_enable_disable_and_audit(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src", permissions={"env_vars": ["K"]})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    assert cli("plugin", "disable", "greeter").exit_code == 0
    rows = payload(cli("plugin", "list", "--json"))
    assert [r["status"] for r in rows if r["id"] == "greeter"] == ["disabled"]
    shown = cli("plugin", "show", "greeter")  # shown, and marked disabled
    assert shown.exit_code == 0 and "status: disabled" in shown.stdout
    called = cli("plugin", "call", "greeter")
    assert (
        called.exit_code == 4 and "disabled" in called.stderr and "plugin enable" in called.stderr
    )
    assert "already" in cli("plugin", "disable", "greeter").stdout
    assert cli("plugin", "enable", "greeter").exit_code == 0
    rows = payload(cli("plugin", "list", "--json"))
    assert [r["status"] for r in rows if r["id"] == "greeter"] == ["ok"]
    assert cli("plugin", "enable", "nope").exit_code == 4

    removed = cli("plugin", "remove", "greeter", "--yes")
    assert removed.exit_code == 0
    assert not (user_dir(hc_home) / "greeter").exists()
    assert lock(hc_home)["plugins"] == {}
    assert (
        "greeter" not in json.loads((hc_home / "data/state/approvals.json").read_text())["plugin"]
    )
    assert cli("plugin", "remove", "greeter", "--yes").exit_code == 4

    events = payload(cli("audit", "--json"))
    assert [e["action"] for e in events] == ["install", "approve", "disable", "enable", "remove"]
    assert events[1]["granted"]["env_vars"] == ["K"]
    only = payload(cli("audit", "--json", "--action", "remove"))
    assert len(only) == 1 and only[0]["id"] == "greeter"
    table = cli("audit")
    assert table.exit_code == 0 and "install\tgreeter" in table.stdout


def test_remove_refuses_plugins_not_installed_by_homeclaw(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    write_plugin(tmp_path / "work" / "plugins" / "local")
    result = cli("plugin", "remove", "greeter")
    assert (
        result.exit_code == 2 and "workspace plugin" in result.stderr and "disable" in result.stderr
    )


def test_real_entry_point_installs(run_cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src")
    proc = run_cli("plugin", "install", str(src), "--json")
    assert proc.returncode == 0, proc.stderr
    assert payload(proc)["action"] == "installed"
    shutil.rmtree(src)
    assert (user_dir(hc_home) / "greeter" / "plugin.yaml").is_file()


def test_show_lists_declared_permissions(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src", permissions={"network": ["api.x.com"], "env_vars": ["K"]})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    shown = cli("plugin", "show", "greeter")
    assert "permissions: network: api.x.com; env var: K" in shown.stdout
    data = payload(cli("plugin", "show", "greeter", "--json"))
    assert data["manifest"]["permissions"]["env_vars"] == ["K"]


def test_update_all_keeps_going_past_a_vanished_source(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    gone = write_plugin(tmp_path / "gone", "gone")
    kept = write_plugin(tmp_path / "kept", "kept")
    assert cli("plugin", "install", str(gone)).exit_code == 0
    assert cli("plugin", "install", str(kept)).exit_code == 0
    shutil.rmtree(gone)
    write_plugin(kept, "kept", version="2.0.0")
    result = cli("plugin", "update", "--all")
    assert result.exit_code == 1
    assert "gone: " in result.stderr and "does not exist" in result.stderr
    assert "upgraded kept 1.0.0 -> 2.0.0 (" in result.stdout
    assert lock(hc_home)["plugins"]["kept"]["version"] == "2.0.0"
    single = cli("plugin", "update", "gone")
    assert single.exit_code == 4 and "does not exist" in single.stderr


def test_local_repo_path_with_ref_is_a_git_source(cli: Any, hc_home: Path, repo: Path) -> None:
    result = cli("plugin", "install", f"{repo}@v1")
    assert result.exit_code == 0, result.output
    entry = lock(hc_home)["plugins"]["greeter"]
    assert (entry["source_kind"], entry["version"]) == ("git", "1.0.0")


def test_reinstall_after_remove_starts_enabled(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src")
    assert cli("plugin", "install", str(src)).exit_code == 0
    assert cli("plugin", "disable", "greeter").exit_code == 0
    assert cli("plugin", "remove", "greeter", "--yes").exit_code == 0
    assert cli("plugin", "install", str(src)).exit_code == 0
    rows = payload(cli("plugin", "list", "--json"))
    assert [r["status"] for r in rows if r["id"] == "greeter"] == ["ok"]


def test_installing_a_disabled_id_says_it_stays_off(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    assert cli("plugin", "disable", "units").exit_code == 0  # the bundled one
    src = write_plugin(tmp_path / "units", "units")
    result = cli("plugin", "install", str(src))
    assert result.exit_code == 0, result.output
    assert "plugin id 'units' is disabled, so it stays off once installed" in result.stderr
    assert "`homeclaw plugin enable units` turns it on" in result.stderr


def test_removing_the_installed_copy_keeps_a_disabled_bundled_plugin_off(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    assert cli("plugin", "disable", "units").exit_code == 0  # the bundled one
    assert cli("plugin", "install", str(write_plugin(tmp_path / "units", "units"))).exit_code == 0
    assert cli("plugin", "remove", "units", "--yes").exit_code == 0
    rows = payload(cli("plugin", "list", "--json"))
    assert [(r["source"], r["status"]) for r in rows if r["id"] == "units"] == [
        ("bundled", "disabled")
    ]


def test_an_existing_index_is_synced_after_install_and_remove(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import types
    from dataclasses import dataclass, field

    calls: list[tuple[str, ...]] = []

    @dataclass
    class Report:
        added: list[str] = field(default_factory=list)
        updated: list[str] = field(default_factory=list)
        removed: list[str] = field(default_factory=list)

    def sync(settings: Any, *, kinds: tuple[str, ...], on_lock_wait: Any = None) -> Report:
        calls.append(kinds)
        return Report(added=["greeter"])

    fake = types.ModuleType("homeclaw_cli.app.sync")
    fake.sync = sync  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "homeclaw_cli.app.sync", fake)
    src = write_plugin(tmp_path / "src")
    assert cli("plugin", "install", str(src)).exit_code == 0
    assert calls == []  # no index yet: nothing to keep in step
    (hc_home / "data" / "index").mkdir(parents=True)
    result = cli("plugin", "install", str(src), "--upgrade")
    assert result.exit_code == 0
    assert cli("plugin", "remove", "greeter", "--yes").exit_code == 0
    assert calls == [("plugins",)]  # the upgrade was "unchanged"; the removal synced
    write_plugin(src, version="9")
    assert cli("plugin", "install", str(src)).exit_code == 0
    assert calls == [("plugins",), ("plugins",)]


def test_git_sources_are_held_to_the_same_limits(hc_home: Path, repo: Path) -> None:
    from homeclaw_cli.adapters.archive import Limits, UnsafeArchiveError
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.settings import load_settings

    with pytest.raises(UnsafeArchiveError, match="more than 1 files"):
        plugin_install.install_plugin(
            AppContext(load_settings()),
            f"file://{repo}",
            approve=lambda r: True,
            limits=Limits(max_files=1),
        )
    assert not (user_dir(hc_home) / "greeter").exists()
    no_leftovers(hc_home)


def test_env_vars_pulled_in_by_config_env_are_asked_for(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confirm, "on_terminal", lambda: True)
    src = write_plugin(tmp_path / "src")
    manifest = json.loads((src / "plugin.yaml").read_text())
    manifest["config"]["env"] = {"TOKEN": "${NEWS_TOKEN}"}
    (src / "plugin.yaml").write_text(json.dumps(manifest))
    result = cli("plugin", "install", str(src), input="y\n")
    assert result.exit_code == 0, result.output
    assert "+ env var: NEWS_TOKEN" in result.stderr
    assert lock(hc_home)["plugins"]["greeter"]["permissions"]["env_vars"] == ["NEWS_TOKEN"]


def test_installing_over_a_bundled_id_says_who_wins(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src", "calculator")
    result = cli("plugin", "install", str(src))
    assert result.exit_code == 0, result.output
    assert "a bundled plugin with id 'calculator' exists" in result.stderr
    assert "the installed one wins" in result.stderr
    rows = payload(cli("plugin", "list", "--json"))
    assert [r["source"] for r in rows if r["id"] == "calculator"] == ["user"]


def test_a_concurrent_install_is_refused_with_locked(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.fsutil import file_lock

    monkeypatch.setattr(swap, "LOCK_TIMEOUT_SEC", 0.2)
    src = write_plugin(tmp_path / "src")
    with file_lock(hc_home / "data" / "state" / "install.lock"):
        result = cli("plugin", "install", str(src))
    assert result.exit_code == 6 and "installed plugins" in result.stderr
    assert not (user_dir(hc_home) / "greeter").exists()


def test_audit_refuses_a_negative_limit(cli: Any) -> None:
    result = cli("audit", "-n", "-1")
    assert result.exit_code == 2
    assert "--limit" in result.output


def test_update_shows_what_the_manifest_changes(cli: Any, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src")
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    manifest = {
        "id": "greeter",
        "name": "Greeter",
        "description": "Says hello, politely.",
        "version": "1.1.0",
        "type": "subprocess",
        "config": {"command": "python3", "args": ["main.py"], "timeout_sec": 5},
        "permissions": {"network": ["example.com"]},
        "capabilities": [
            {
                "id": "greet",
                "name": "Greet",
                "description": "Say hello.",
                "effects": "write",
                "parameters": [{"name": "who", "type": "string"}],
            }
        ],
    }
    (src / "plugin.yaml").write_text(json.dumps(manifest))
    updated = cli("plugin", "update", "greeter", "--yes")
    assert updated.exit_code == 0, updated.output
    lines = updated.stdout.splitlines()
    assert lines[0].startswith("upgraded greeter 1.0.0 -> 1.1.0 (")
    assert "  ~ description: 'Says hello.' -> 'Says hello, politely.'" in lines
    assert "  ~ config.timeout_sec: 30.0 -> 5.0" in lines
    assert "  + capabilities.greet" in lines
    assert "  + permission network: example.com" in lines
    assert not any("version" in line for line in lines[1:])  # the first line says it

    manifest["capabilities"][0]["parameters"].append({"name": "lang", "type": "string"})
    manifest["capabilities"][0]["effects"] = "read"
    manifest["version"] = "1.2.0"
    (src / "plugin.yaml").write_text(json.dumps(manifest))
    data = payload(cli("plugin", "update", "greeter", "--yes", "--json"))[0]
    changes = {c["field"]: (c["change"], c["old"], c["new"]) for c in data["changes"]}
    assert changes["capabilities.greet.effects"] == ("changed", ["write"], ["read"])
    assert changes["capabilities.greet.parameters.lang"][0] == "added"
    assert changes["version"] == ("changed", "1.1.0", "1.2.0")
    assert not any(f.startswith("permissions") for f in changes)  # the permission diff has them
