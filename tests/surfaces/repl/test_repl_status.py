"""/context and /status in the REPL (the MCP part spawns a real stdio server: slow)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from homeclaw_cli.settings import Settings
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.plugin_factory import REPO_ROOT, write_plugin
from tests.surfaces.repl.test_chat_repl import drive, fake, fast_retrieval, settings

__all__ = ["fake", "fast_retrieval", "settings"]


def test_context_splits_system_tools_history_against_the_window(
    settings: Settings, fake: FakeOllama
) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    out = drive(settings, "/context\ngreet Ada hello\n/context\n/exit\n")
    before, after = out.split("Hello, Ada!", 1)
    assert "context: 0 of 4,096 tokens used (0%)" in before
    assert "no prompt built yet" in before
    # the fake's /api/show reports llama.context_length 131072
    assert "model window: 131,072 tokens · llm.num_ctx not set: homeclaw plans with 4,096" in after
    parts = dict(
        re.findall(r"^(system|tools \(\d+\)|history \(1 turns\)|total)\W+(\d+)", after, re.M)
    )
    tools = next(k for k in parts if k.startswith("tools ("))
    assert set(parts) == {"system", tools, "history (1 turns)", "total"}
    assert int(parts["total"]) == sum(int(parts[k]) for k in parts if k != "total")
    assert int(parts["system"]) > 0 and int(parts[tools]) > 0
    assert int(parts["history (1 turns)"]) > 0
    assert re.search(r"the server counted \d+ prompt tokens last time", after)


def test_context_window_unknown_and_num_ctx(settings: Settings, fake: FakeOllama) -> None:
    fake.get_model("llama3.2").context_length = 0  # type: ignore[union-attr]
    fake.script(text("hi"))
    sized = settings.model_copy(deep=True)
    sized.llm.num_ctx = 8192
    out = drive(sized, "hello\n/context\n/exit\n")
    assert "context: " in out and "of 8,192 tokens used" in out
    assert "model window: unknown (the server does not say) · llm.num_ctx = 8,192" in out


def test_context_plans_with_the_window_llama_server_runs(hc_home: Path) -> None:
    from homeclaw_cli.settings import load_settings
    from tests.fakes.openai_server import FakeOpenAI

    props = {"default_generation_settings": {"n_ctx": 16384}}
    with FakeOpenAI(models=("qwen",), props=props) as server:
        flags = {"llm.host": server.host, "llm.provider": "openai", "llm.model": "qwen"}
        out = drive(load_settings(flags={**flags, "bundled": False}), "/context\n/exit\n")
    assert "context: 0 of 16,384 tokens used (0%)" in out
    assert (
        "model window: 16,384 tokens · llm.num_ctx not set: homeclaw plans with the window the "
        "server runs"
    ) in " ".join(out.split())


def test_status_shows_model_server_index_and_no_mcp(settings: Settings, fake: FakeOllama) -> None:
    out = drive(settings, "/status\n/status reconnect greeter\n/status nonsense\n/exit\n")
    assert re.search(r"model llama3\.2 · ollama at http://127\.0\.0\.1:\d+ · 0\.12\.0", out)
    assert re.search(r"session: [0-9a-f]{12}", out)
    assert re.search(r"index: (synced|stale|not synced)", out)
    # the plugins alone, named so: `homeclaw doctor` counts plugins and skills
    assert re.search(r"index: synced · 2 plugin descriptors · ", out), out
    assert "MCP plugins: none" in out
    assert "plugin greeter is not an MCP plugin (type: inline)" in out
    assert "usage: /status, or /status reconnect PLUGIN_ID" in out


@pytest.mark.slow
def test_status_lists_mcp_sessions_and_reconnects(
    settings: Settings, fake: FakeOllama, tmp_path: Path
) -> None:
    server = REPO_ROOT / "tests" / "fakes" / "mcp_test_server.py"
    plugins = tmp_path / "mcp-plugins"
    for plugin_id, args in (
        ("testmcp", [str(server)]),
        ("brokenmcp", ["-c", "raise SystemExit(3)"]),
    ):
        write_plugin(
            plugins,
            {
                "id": plugin_id,
                "name": plugin_id,
                "description": "A test MCP server.",
                "type": "mcp",
                "config": {"command": sys.executable, "args": args, "timeout_sec": 20},
                "capabilities": [{"id": "add", "name": "add", "description": "Add."}],
            },
        )
    with_mcp = settings.model_copy(
        update={"extra_plugin_dirs": [*settings.extra_plugin_dirs, plugins]}
    )
    out = drive(
        with_mcp,
        "/status\n/status reconnect testmcp\n/status reconnect brokenmcp\n/status\n/exit\n",
    )
    first, later = out.split("reconnected testmcp", 1)
    assert re.search(r"^testmcp\W+no\W+-", first, re.M)
    assert re.search(r"^: \d+ tools", later)
    assert "brokenmcp" in later and "error:" in later
    assert re.search(r"^testmcp\W+yes\W+\d+", later, re.M)
    assert re.search(r"^brokenmcp\W+no\W+-\W+\S+", later, re.M)  # with its last error
