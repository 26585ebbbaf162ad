"""/sessions in the REPL, and a REPL that continues a logged conversation."""

from __future__ import annotations

from typing import Any

from homeclaw_cli.settings import Settings
from homeclaw_cli.state.conversations import list_sessions, log_path
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.surfaces.repl.test_chat_repl import drive, fake, fast_retrieval, settings

__all__ = ["fake", "fast_retrieval", "settings"]


def test_sessions_lists_conversations_and_shows_one_whole(
    settings: Settings, fake: FakeOllama
) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    drive(settings, "greet Ada hello\n/exit\n")
    [earlier] = list_sessions(log_path(settings.state_dir))
    fake.script(text("fine"))
    out = drive(settings, f"how are you\n/sessions\n/sessions {earlier['session'][:5]}\n/exit\n")
    assert "FIRST MESSAGE" in out and "greet Ada hello" in out and "how are you" in out
    assert f"session {earlier['session']} · 1 turns" in out
    assert 'greeter__hello({"name": "Ada"}) -> ok' in out and "homeclaw> Hello, Ada!" in out
    out = drive(settings, "/sessions nope\n/exit\n")
    assert "no logged conversation has the id nope" in out


def test_a_repl_continues_a_logged_session(settings: Settings, fake: FakeOllama) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    drive(settings, "greet Ada hello\n/exit\n")
    [earlier] = list_sessions(log_path(settings.state_dir))
    # a short follow-up to a plugin turn: its answer is checked with the tool-or-answer question
    fake.script(text("You already greeted Ada."), text('{"tool": "answer"}'))
    out = drive(settings, "who did I greet?\n/exit\n", resume=earlier["session"])
    assert f"continuing session {earlier['session']} (1 earlier turns)" in out
    assert "You already greeted Ada." in out
    roles = [m["role"] for m in fake.chat_requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    [same] = list_sessions(log_path(settings.state_dir))
    assert same["session"] == earlier["session"] and same["turns"] == 2


def test_chat_c_after_clear_does_not_bring_back_what_was_cleared(
    settings: Settings, fake: FakeOllama, cli: Any
) -> None:
    fake.script(text("noted"), text("hi"), text("I do not know"))
    out = drive(settings, "my secret is 42\n/clear\nhello again\n/exit\n")
    assert "conversation cleared; new session " in out
    result = cli("chat", "--host", fake.host, "-c", "-q", "what was my secret?")
    assert result.exit_code == 0, result.output
    contents = [m["content"] for m in fake.last_chat["messages"]]
    assert "hello again" in contents and "what was my secret?" in contents
    assert not any("42" in c for c in contents)
    # the cleared turns stay logged, under the earlier session
    assert len(list_sessions(log_path(settings.state_dir))) == 2
