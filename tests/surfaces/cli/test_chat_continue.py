"""Conversations that continue: `chat -c`, `chat --session ID`, `logs show`, `logs -q`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.json_output import payload

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama(strict_models=True) as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def chat(cli: Callable[..., Any], fake: FakeOllama, tmp_path: Path) -> Callable[..., Any]:
    plugins = write_test_plugins(tmp_path / "plugins")

    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        return cli(
            "--plugins-dir",
            str(plugins),
            "chat",
            "--host",
            fake.host,
            *args,
            # history is what these tests read: no constrained-decision round in between
            env={"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__DECIDE": "never", **(env or {})},
        )

    return run


def first_conversation(chat: Callable[..., Any], fake: FakeOllama) -> str:
    """One turn with a tool call; returns its session id."""
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    result = chat("-q", "please greet Ada with a hello", "--json")
    assert result.exit_code == 0, result.stderr
    session = payload(result)["session"]
    assert isinstance(session, str) and len(session) == 12
    return session


def test_continue_rebuilds_the_history_with_tool_calls(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    session = first_conversation(chat, fake)
    fake.script(text("You are welcome."))
    result = chat("-c", "-q", "thanks for that")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "You are welcome.\n"
    messages = fake.last_chat["messages"]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert messages[1]["content"] == "please greet Ada with a hello"
    assert messages[2]["tool_calls"][0]["function"] == {
        "name": "greeter__hello",
        "arguments": {"name": "Ada"},
    }
    assert "Hello, Ada!" in messages[3]["content"] and messages[4]["content"] == "Hello, Ada!"
    # the continued turn is logged in the same session, and --session takes a prefix
    fake.script(text("Bye."))
    result = chat("--session", session[:6], "-q", "bye", "--json")
    assert result.exit_code == 0, result.stderr
    assert payload(result)["session"] == session
    assert [m["role"] for m in fake.last_chat["messages"]].count("user") == 3


def test_unknown_session_and_nothing_to_continue_are_clear_errors(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    result = chat("-c", "-q", "hello")
    assert result.exit_code == 4
    assert "no earlier conversation to continue" in result.stderr
    first_conversation(chat, fake)
    result = chat("--session", "nosuchid", "-q", "hello")
    assert result.exit_code == 4
    assert "no logged conversation has the id nosuchid" in result.stderr
    assert "homeclaw logs" in result.stderr
    result = chat("-c", "--session", "abc", "-q", "hello")
    assert result.exit_code == 2
    assert fake.pending == 0 and len(fake.chat_requests) == 1  # no model call for any of them


def test_continued_history_is_trimmed_to_the_context_budget_oldest_first(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    long_answer = " ".join(["many words"] * 400)  # about 800 tokens
    for i in range(3):
        fake.script(text(f"answer {i}: {long_answer}"))
        flag = ("-c",) if i else ()
        assert chat(*flag, "-q", f"question {i}").exit_code == 0
    fake.script(text("short"))
    result = chat("-c", "-q", "and now?", "--json", env={"HOMECLAW_LLM__NUM_CTX": "2048"})
    assert result.exit_code == 0, result.stderr
    users = [m["content"] for m in fake.last_chat["messages"] if m["role"] == "user"]
    assert users == ["question 2", "and now?"]  # the two older turns no longer fit
    prompt = next(s for s in payload(result)["trace"] if s["kind"] == "prompt")
    assert prompt["history_messages"] == 2 and prompt["history_dropped"] == 4


def test_logs_show_prints_the_whole_conversation(
    chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama
) -> None:
    session = first_conversation(chat, fake)
    fake.script(text("You are welcome."))
    assert chat("-c", "-q", "thanks\nfor that").exit_code == 0
    result = cli("logs", "show", session[:4])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"session {session} · 2 turns"
    assert "you> please greet Ada with a hello" in lines
    assert any(line.startswith('  tool greeter__hello({"name": "Ada"}) -> ok') for line in lines)
    assert "    Hello, Ada!" in lines and "homeclaw> Hello, Ada!" in lines
    assert "you> thanks" in lines and "homeclaw> You are welcome." in lines
    data = payload(cli("logs", "show", session, "--json"))
    assert data["session"] == session
    assert [t["message"] for t in data["turns"]] == [
        "please greet Ada with a hello",
        "thanks\nfor that",
    ]
    assert data["turns"][0]["tool_calls"][0]["name"] == "greeter__hello"
    assert [m["role"] for m in data["turns"][0]["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    missing = cli("logs", "show", "zzz")
    assert missing.exit_code == 4 and "no logged conversation has the id zzz" in missing.stderr


def test_logs_query_searches_messages_and_answers(
    chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(text("Paris is lovely in spring."), text("Use a 50% discount_code."))
    assert chat("-q", "tell me about France").exit_code == 0
    assert chat("-q", "any deals?").exit_code == 0
    by_answer = payload(cli("logs", "-q", "PARIS", "--json"))
    assert [t["message"] for t in by_answer] == ["tell me about France"]
    by_message = payload(cli("logs", "-q", "deals", "--json"))
    assert [t["message"] for t in by_message] == ["any deals?"]
    # LIKE wildcards in the text are literal
    assert [t["message"] for t in payload(cli("logs", "-q", "50%", "--json"))] == ["any deals?"]
    assert payload(cli("logs", "-q", "t_me", "--json")) == []
    none = cli("logs", "-q", "nothing like this")
    assert none.exit_code == 0 and "no matching turns" in none.stderr
    sessions = payload(cli("logs", "sessions", "--json"))
    assert [s["first_message"] for s in sessions] == ["any deals?", "tell me about France"]
    assert all(s["turns"] == 1 for s in sessions)
