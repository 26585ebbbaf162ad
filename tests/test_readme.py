"""README's promises: two set-up commands first, and its config example is valid."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from homeclaw_cli.settings import load_settings
from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def test_readme_opens_with_two_setup_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", README, re.S)
    assert blocks[0].startswith("make install && ")
    assert blocks[1].strip() == "make test"
    assert (REPO_ROOT / ".ci" / "run").read_text().strip().endswith("make test")


def test_readme_config_example_is_valid(tmp_path: Path) -> None:
    example = re.search(r"```yaml\nllm:(.*?)```", README, re.S)
    assert example is not None
    (tmp_path / "config.yaml").write_text("llm:" + example.group(1))
    yaml.safe_load((tmp_path / "config.yaml").read_text())
    settings = load_settings(env={"HOMECLAW_HOME": str(tmp_path)}, cwd=tmp_path)
    assert settings.llm.model == "llama3.2"
