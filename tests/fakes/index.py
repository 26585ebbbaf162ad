"""Fixtures and helpers for index/retrieval tests: plugin and skill folders, a fake embedder.

tests/conftest.py loads this module as a pytest plugin, so the fixtures are available everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from homeclaw_cli.settings import Settings, load_settings
from tests.fakes.embedder import FakeModels, install

PLUGINS = {
    "weather": ("Weather", "Current weather and forecast: temperature, rain, wind for a city."),
    "slack": ("Slack", "Post and read messages in Slack channels."),
    "timer": ("Timer", "Set a countdown timer or an alarm."),
    "calculator": ("Calculator", "Evaluate arithmetic expressions and math."),
}


def write_plugin(root: Path, plugin_id: str, name: str, description: str, **extra: Any) -> Path:
    folder = root / plugin_id
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "id": plugin_id,
        "name": name,
        "description": description,
        "type": "subprocess",
        "config": {"command": "python3", "args": ["tool.py"]},
        **extra,
    }
    (folder / "plugin.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    return folder


def write_skill(root: Path, folder_name: str, name: str, description: str) -> Path:
    folder = root / folder_name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\nDo the thing.\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> FakeModels:
    return install(monkeypatch)


@pytest.fixture
def index_env(hc_home: Path, fake_models: FakeModels) -> Iterator[dict[str, Any]]:
    """A home with four user plugins, two user skills and a test skills dir (no bundled)."""
    plugins_dir = hc_home / "data" / "plugins"
    for pid, (name, desc) in PLUGINS.items():
        write_plugin(plugins_dir, pid, name, desc)
    skills_dir = hc_home / "data" / "skills"
    write_skill(skills_dir, "summarize", "summarize", "Summarize a long document into bullets.")
    write_skill(skills_dir, "haiku", "haiku", "Write a haiku poem about a topic.")
    test_dir = hc_home / "skills-test"
    write_skill(test_dir, "draft", "draft", "Draft an email reply politely.")
    config = hc_home / "config.yaml"
    config.write_text(
        yaml.safe_dump({"bundled": False, "skills": {"test_dir": str(test_dir)}}), encoding="utf-8"
    )
    yield {
        "home": hc_home,
        "plugins": plugins_dir,
        "skills": skills_dir,
        "test_dir": test_dir,
        "models": fake_models,
    }


def settings_for(home: Path, **flags: Any) -> Settings:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMECLAW_")}
    env["HOMECLAW_HOME"] = str(home)
    return load_settings(flags=flags, env=env, cwd=home)
