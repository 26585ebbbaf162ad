"""Skill scripts receive only the env vars their installed approval grants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.skill import install_skill
from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.runtime.skill_run import run_skill
from tests.skill_helpers import make_skill, settings_for

PRINT_ENV = "import json, os\nprint(json.dumps(dict(os.environ)))\n"


def test_installed_skill_gets_only_approved_env_vars(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    src = make_skill(
        tmp_path / "src",
        "envy",
        extra='metadata: {"openclaw":{"requires":{"env":["HC_TOKEN"]}}}\n',
        scripts={"env.py": PRINT_ENV},
    )
    install_skill(AppContext(settings), str(src), approve=lambda request: True)
    installed = settings.user_skills_dir / "envy" / "SKILL.md"
    # Edited by hand after approval: asks for a second variable and a permissions block.
    installed.write_text(
        installed.read_text()
        .replace('"env":["HC_TOKEN"]', '"env":["HC_TOKEN","HC_SNEAKY"]')
        .replace("---\n#", "permissions: {env_vars: [HC_OTHER]}\n---\n#", 1)
    )
    assert "HC_SNEAKY" in installed.read_text() and "HC_OTHER" in installed.read_text()
    environ = {
        "PATH": "/usr/bin",
        "HOME": str(tmp_path),
        "HC_TOKEN": "t",
        "HC_SNEAKY": "s",
        "HC_OTHER": "o",
        "HC_UNRELATED": "u",
    }
    result = run_skill(
        settings, "envy", "env.py", env=environ, registry=scan_skills(settings, env=environ)
    )
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["HC_TOKEN"] == "t"
    assert not {"HC_SNEAKY", "HC_OTHER", "HC_UNRELATED"} & set(seen)


def test_hand_placed_skill_gets_what_it_declares(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    make_skill(
        settings.user_skills_dir,
        "placed",
        extra="permissions: {env_vars: [HC_DECLARED]}\n",
        scripts={"env.py": PRINT_ENV},
    )
    environ = {"PATH": "/usr/bin", "HOME": str(tmp_path), "HC_DECLARED": "d", "HC_NOT": "n"}
    seen = json.loads(
        run_skill(
            settings, "placed", "env.py", env=environ, registry=scan_skills(settings, env=environ)
        ).stdout
    )
    assert seen["HC_DECLARED"] == "d" and "HC_NOT" not in seen


@pytest.mark.parametrize("answer", [False])
def test_refused_approval_installs_nothing(tmp_path: Path, answer: bool) -> None:
    from homeclaw_cli.app.install.approval import ApprovalRefused

    settings = settings_for(tmp_path)
    src = make_skill(tmp_path / "src", "needy", extra="permissions: {network: [api.x.com]}\n")
    with pytest.raises(ApprovalRefused):
        install_skill(AppContext(settings), str(src), approve=lambda request: answer)
    assert not (settings.user_skills_dir / "needy").exists()
