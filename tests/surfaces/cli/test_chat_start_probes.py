"""`homeclaw chat` on an OpenAI-compatible server asks it what it needs to start (is the model
there, does another answer for it, the window it runs with) once each, not once per check."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI


@pytest.mark.parametrize("props", [{"default_generation_settings": {"n_ctx": 8192}}, None])
def test_chat_start_lists_the_models_once_and_asks_props_once(
    cli: Callable[..., Any], tmp_path: Path, props: dict[str, Any] | None
) -> None:
    (tmp_path / "plugins").mkdir()
    with FakeOpenAI(models=("local-model", "other-model"), props=props) as server:
        server.replies.append("Hello.")
        env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__PROVIDER": "openai"}
        args = ("--plugins-dir", str(tmp_path / "plugins"), "chat", "--host", server.host)
        result = cli(*args, "-m", "local-model", "-q", "hi", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Hello.\n"
    assert server.gets.count("/v1/models") == 1, server.gets
    assert server.gets.count("/props") == 1, server.gets
