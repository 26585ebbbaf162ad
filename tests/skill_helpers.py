"""Build skill folders for tests."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.settings import Settings, load_settings


def make_skill(
    root: Path,
    skill_id: str,
    *,
    name: str | None = None,
    description: str = "A test skill that does one thing well.",
    extra: str = "",
    body: str = "# Steps\n\n1. Do the thing.\n",
    scripts: dict[str, str] | None = None,
    executable: bool = False,
) -> Path:
    """root/skill_id with a SKILL.md (frontmatter lines in `extra`) and scripts/."""
    folder = root / skill_id
    folder.mkdir(parents=True, exist_ok=True)
    front = f"---\nname: {name or skill_id}\ndescription: {description}\n{extra}---\n"
    (folder / "SKILL.md").write_text(front + body, encoding="utf-8")
    for rel, content in (scripts or {}).items():
        path = folder / "scripts" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        if executable:
            path.chmod(0o755)
    return folder


def settings_for(tmp: Path, **flags: object) -> Settings:
    """Settings with bundled skills off and HOMECLAW_HOME-like dirs under `tmp`."""
    env = {"HOMECLAW_HOME": str(tmp / "home"), "HOMECLAW_NO_BUNDLED": "1"}
    return load_settings(env=env, cwd=tmp, flags=dict(flags))
