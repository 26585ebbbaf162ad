"""Small inline plugins written into a temp folder for end-to-end chat tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

GREETER_YAML = """\
id: greeter
name: Greeter
description: Greet a person by name and tell a short story about them.
keywords: [greet, hello, story]
type: inline
effects: read
capabilities:
  - id: hello
    name: Say hello
    description: Say hello to a person.
    parameters:
      - {name: name, type: string, required: true, description: The person's name.}
  - id: story
    name: Tell a story
    description: Tell a short story about a person.
    parameters:
      - {name: name, type: string, required: true}
    post_process: true
    post_process_prompt: Retell this story in one cheerful sentence.
  - id: boom
    name: Explode
    description: Always fails (for tests).
"""

GREETER_PY = """\
from homeclaw_cli.sdk import BasePlugin, PluginError


class Greeter(BasePlugin):
    def hello(self, name: str) -> str:
        return f"Hello, {name}!"

    def story(self, name: str) -> dict:
        return {"text": f"Once upon a time {name} found a cat."}

    def boom(self) -> str:
        raise PluginError("the greeter exploded")
"""

TIDE_YAML = """\
id: tides
name: Tides
description: High and low tide times for a harbour.
keywords: [tide, harbour, sea]
type: inline
effects: read
capabilities:
  - id: times
    name: Tide times
    description: Tide times for a harbour.
    parameters:
      - {name: harbour, type: string, required: true}
"""

TIDE_PY = """\
from homeclaw_cli.sdk import BasePlugin


class Tides(BasePlugin):
    def times(self, harbour: str) -> str:
        return f"High tide in {harbour} at 06:12."
"""


def write_plugin(root: Path, folder: str, manifest: str, code: str) -> Path:
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "plugin.yaml").write_text(textwrap.dedent(manifest))
    (path / "plugin.py").write_text(code)
    return path


def write_test_plugins(root: Path) -> Path:
    write_plugin(root, "greeter", GREETER_YAML, GREETER_PY)
    write_plugin(root, "tides", TIDE_YAML, TIDE_PY)
    return root


@pytest.fixture
def fast_retrieval(monkeypatch: pytest.MonkeyPatch) -> object:
    """The index's bag-of-words fake embedder instead of sentence-transformers (5 s load)."""
    from tests.fakes.embedder import install

    return install(monkeypatch)


# For subprocess runs (monkeypatching does not reach them): no startup sync, no embeddings.
NO_INDEX_ENV = {
    "HOMECLAW_PLUGINS__REFRESH_ON_STARTUP": "false",
    "HOMECLAW_SKILLS__REFRESH_ON_STARTUP": "false",
    "HOMECLAW_PLUGINS__USE_VECTOR_SEARCH": "false",
    "HOMECLAW_SKILLS__USE_VECTOR_SEARCH": "false",
}


CLOCK_YAML = """\
id: clock
name: Clock
description: Tell the clock time using the built-in time tool.
keywords: [clock, time]
type: inline
effects: read
capabilities:
  - id: now
    name: Now
    description: The time now.
  - id: peek
    name: Peek
    description: Try to read a file (not allowed for plugins).
  - id: web_time
    name: Web time
    description: Read the time from a web page through the built-in fetch tool.
"""

CLOCK_PY = """\
from homeclaw_cli.sdk import BasePlugin


class Clock(BasePlugin):
    async def now(self) -> str:
        return "clock says " + await self.use_tool("current_time", timezone="UTC")

    async def peek(self) -> str:
        return await self.use_tool("read_file", path="secret.txt")

    async def web_time(self) -> str:
        return await self.use_tool("fetch_url", url="https://example.com/")
"""
