from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.catalog.registry import scan
from homeclaw_cli.errors import ManifestError, NotFoundError
from homeclaw_cli.settings import load_settings

MANIFEST = """\
id: {id}
name: {name}
description: Test plugin {name}.
type: subprocess
config:
  command: python3
"""


def make(root: Path, folder: str, pid: str, name: str = "P") -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "plugin.yaml").write_text(MANIFEST.format(id=pid, name=name))
    return path


def settings_for(
    home: Path, cwd: Path, *dirs: Path, bundled: bool = False, trust: bool = True
) -> Any:
    env = {"HOMECLAW_HOME": str(home)}
    if not bundled:
        env["HOMECLAW_NO_BUNDLED"] = "1"
    if trust:
        env["HOMECLAW_PLUGINS__TRUST_WORKSPACE"] = "true"
    return load_settings(env=env, cwd=cwd, extra_plugin_dirs=list(dirs))


def test_precedence_and_shadowing(tmp_path: Path) -> None:
    home, cwd, extra = tmp_path / "home", tmp_path / "cwd", tmp_path / "extra"
    make(home / "data" / "plugins", "a", "alpha", "user")
    make(cwd / "plugins", "a", "alpha", "workspace")
    make(extra, "a", "alpha", "path")
    make(home / "data" / "plugins", "b", "beta", "user")
    registry = scan(settings_for(home, cwd, extra))
    assert registry.plugins["alpha"].manifest.name == "path"
    assert registry.plugins["beta"].source == "user"
    assert sorted(s.entry.source for s in registry.shadowed) == ["user", "workspace"]


def test_an_untrusted_workspace_is_listed_not_loaded(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    make(home / "data" / "plugins", "notes", "notes", "installed")
    cloned = make(cwd / "plugins", "notes", "notes", "from a cloned repository")
    registry = scan(settings_for(home, cwd, trust=False))
    assert registry.plugins["notes"].manifest.name == "installed"
    assert registry.untrusted == [cloned] and registry.shadowed == []
    assert registry.warnings() == []


def test_a_trusted_workspace_replacing_an_installed_plugin_says_so(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    make(home / "data" / "plugins", "notes", "notes", "installed")
    make(cwd / "plugins", "notes", "notes", "workspace")
    registry = scan(settings_for(home, cwd))
    assert registry.plugins["notes"].source == "workspace" and registry.untrusted == []
    (warning,) = registry.warnings()
    assert "replaces your installed notes" in warning


def test_broken_plugin_is_reported_and_others_load(tmp_path: Path) -> None:
    root = tmp_path / "extra"
    make(root, "good", "good")
    (root / "bad").mkdir()
    (root / "bad" / "plugin.yaml").write_text("id: [")
    registry = scan(settings_for(tmp_path / "home", tmp_path, root))
    assert list(registry.plugins) == ["good"]
    assert registry.broken[0].folder.name == "bad"
    with pytest.raises(ManifestError, match="failed to load"):
        registry.get("bad")
    with pytest.raises(NotFoundError, match="did you mean `good`"):
        registry.get("goood")


def test_external_registrations_merge_but_never_replace_folder_plugins(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make(home / "data" / "plugins", "a", "alpha")
    payload = {
        "plugin_id": "slack-bot",
        "name": "Slack",
        "description": "Post to Slack.",
        "health_check_url": "http://127.0.0.1:3100/health",
        "type": "http",
        "config": {"base_url": "http://127.0.0.1:3100"},
        "capabilities": [],
    }
    clash = {**payload, "plugin_id": "alpha"}
    (home / "data").mkdir(parents=True, exist_ok=True)
    (home / "data" / "external_plugins.json").write_text(
        json.dumps({"version": 1, "plugins": [payload, clash]})
    )
    registry = scan(settings_for(home, tmp_path))
    assert registry.plugins["slack-bot"].source == "external"
    assert registry.plugins["alpha"].source == "user"
    assert registry.shadowed[0].entry.source == "external"


def test_corrupt_external_file_is_reported_not_fatal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "external_plugins.json").write_text("{not json")
    registry = scan(settings_for(home, tmp_path))
    assert registry.broken[0].source == "external"


def test_diff_reports_added_removed_changed(tmp_path: Path) -> None:
    root = tmp_path / "extra"
    make(root, "a", "alpha")
    make(root, "b", "beta")
    settings = settings_for(tmp_path / "home", tmp_path, root)
    before = scan(settings)
    (root / "a" / "plugin.yaml").write_text(MANIFEST.format(id="alpha", name="Changed"))
    (root / "b" / "plugin.yaml").unlink()
    make(root, "c", "gamma")
    diff = before.diff(scan(settings))
    assert (diff.added, diff.removed, diff.updated) == (["gamma"], ["beta"], ["alpha"])


def test_plugin_dir_may_be_a_single_plugin(tmp_path: Path) -> None:
    single = make(tmp_path, "solo", "solo")
    registry = scan(settings_for(tmp_path / "home", tmp_path, single))
    assert list(registry.plugins) == ["solo"]
