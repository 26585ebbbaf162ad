"""Locations, precedence, shadowing, untrusted workspace, test dir, plugin-shipped skills."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.errors import NotFoundError
from homeclaw_cli.settings import load_settings
from tests.skill_helpers import make_skill, settings_for


def test_precedence_path_workspace_user_config_plugin(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user = home / "data" / "skills"
    extra = tmp_path / "extra"
    config_dir = tmp_path / "cfgdir"
    plugin_skills = home / "data" / "plugins" / "myplugin" / "skills"
    workspace = tmp_path / "skills"
    for root in (extra, workspace, user, config_dir, plugin_skills):
        make_skill(root, "shared", description=f"from {root.name}")
    make_skill(plugin_skills, "plugin-only")
    env = {
        "HOMECLAW_HOME": str(home),
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_SKILLS_PATH": str(extra),
    }
    flags = {"skills.dirs": [str(config_dir)], "skills.trust_workspace": True}
    reg = scan_skills(load_settings(env=env, cwd=tmp_path, flags=flags))
    assert reg.skills["shared"].source == "path"
    assert [s.skill.source for s in reg.shadowed] == ["workspace", "user", "config", "plugin"]
    assert all(s.shadowed_by is reg.skills["shared"] for s in reg.shadowed)
    assert reg.skills["plugin-only"].source == "plugin"

    del env["HOMECLAW_SKILLS_PATH"]
    reg = scan_skills(load_settings(env=env, cwd=tmp_path, flags=flags))
    assert reg.skills["shared"].source == "workspace"


def test_workspace_is_untrusted_by_default(tmp_path: Path) -> None:
    make_skill(tmp_path / "skills", "ws-skill")
    reg = scan_skills(settings_for(tmp_path))
    assert "ws-skill" not in reg.skills
    assert reg.untrusted_workspace == [tmp_path / "skills"]
    with pytest.raises(NotFoundError) as info:
        reg.get("ws-skill")
    assert "--trust-workspace" in str(info.value.hint)
    trusted = scan_skills(settings_for(tmp_path, **{"skills.trust_workspace": True}))
    assert trusted.skills["ws-skill"].source == "workspace"
    assert trusted.untrusted_workspace == []


def test_bundled_skills_are_lowest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_skill(home / "data" / "skills", "disk-usage", description="my own")
    reg = scan_skills(load_settings(env={"HOMECLAW_HOME": str(home)}, cwd=tmp_path))
    assert reg.skills["disk-usage"].source == "user"
    assert any(s.skill.source == "bundled" for s in reg.shadowed)
    assert reg.skills["git-summary"].source == "bundled"


def test_test_dir_gets_prefixed_ids(tmp_path: Path) -> None:
    make_skill(tmp_path / "trial", "draft")
    reg = scan_skills(settings_for(tmp_path, **{"skills.test_dir": str(tmp_path / "trial")}))
    assert reg.skills["test__draft"].source == "test"
    assert reg.skills["test__draft"].folder == tmp_path / "trial" / "draft"


def test_broken_skill_does_not_hide_the_others(tmp_path: Path) -> None:
    user = tmp_path / "home" / "data" / "skills"
    make_skill(user, "good")
    (user / "bad").mkdir()
    (user / "bad" / "SKILL.md").write_text("no frontmatter")
    reg = scan_skills(settings_for(tmp_path))
    assert list(reg.skills) == ["good"]
    assert reg.broken[0].folder == user / "bad" and "no YAML frontmatter" in reg.broken[0].error


def test_get_by_name_and_did_you_mean(tmp_path: Path) -> None:
    make_skill(tmp_path / "home" / "data" / "skills", "folder-id", name="pretty-name")
    reg = scan_skills(settings_for(tmp_path))
    assert reg.get("pretty-name").id == "folder-id"
    with pytest.raises(NotFoundError, match="did you mean `folder-id`"):
        reg.get("folder-ix")
