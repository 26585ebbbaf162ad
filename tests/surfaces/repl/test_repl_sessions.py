"""/sessions in the REPL, and a REPL that continues a logged conversation."""

from __future__ import annotations

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
