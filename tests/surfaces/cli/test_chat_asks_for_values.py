"""`homeclaw chat`: a call whose required value the user never gave is a question, not a guess.

The tide plugin needs a harbour; "tide times for the harbour" names none, and small models fill
one in (the weather for "New York" when the user named no city)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.ollama_server import FakeOllama, text, tool_call
from tests.json_output import payload
from tests.surfaces.cli.test_chat_turn_repair import chat, fake, fast_retrieval, plugins

__all__ = ["chat", "fake", "fast_retrieval", "plugins"]

REQUEST = "tide times for the harbour"


def test_a_required_value_nobody_gave_is_asked_for_and_the_reply_supplies_it(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Which harbour do you mean?"))
    result = chat("-q", REQUEST, "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Which harbour do you mean?"
    kinds = [s["kind"] for s in data["trace"]]
    assert "tool" not in kinds  # the guess never ran
    skipped = next(s for s in data["trace"] if s["kind"] == "skipped_call")
    assert skipped["arguments"] == {"harbour": "Cork"}
    assert skipped["reason"].startswith("asked for the harbour: made up 'Cork'")
    asked = fake.chat_requests[1]
    assert not asked.get("tools")
    assert "needs the harbour" in asked["messages"][0]["content"]
    assert asked["messages"][1:] == [{"role": "user", "content": REQUEST}]
    # The user's answer is a follow-up: retrieved with the request, and its value is theirs.
    fake.script(tool_call("tides__times", {"harbour": "Brest"}))
    reply = chat("-c", "-q", "Brest")
    assert reply.exit_code == 0, reply.stderr
    assert reply.stdout == "High tide in Brest at 06:12.\n"


def test_a_reply_that_is_no_question_gives_a_plain_one(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("High tide is at 6."))
    result = chat("-q", REQUEST, "--trace")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Which harbour do you mean? tides needs one, and I won't guess it.\n"
    assert "asked the user for a value the call needs" in result.stderr
    assert 'tool tides__times({"harbour": "Cork"}) -> not run: asked for the harbour' in (
        result.stderr
    )


def test_values_the_user_gave_or_that_are_no_words_run(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("tides__times", {"harbour": "Brest"}))
    assert chat("-q", "tide times for the harbour of brest").stdout == (
        "High tide in Brest at 06:12.\n"
    )
    # an identifier the model derived (a code, a path) is the tool's to check, not a guess
    fake.script(tool_call("tides__times", {"harbour": "FR-BES/2"}))
    assert chat("-q", REQUEST).stdout == "High tide in FR-BES/2 at 06:12.\n"


def test_a_value_from_the_users_own_prompt_files_is_no_guess(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """AGENTS.md (the user's words, in the system prompt) says which harbour is theirs."""
    Path("AGENTS.md").write_text("I keep my boat in Cork; 'the harbour' means Cork.\n")
    fake.script(tool_call("tides__times", {"harbour": "Cork"}))
    result = chat("-q", REQUEST)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"
    assert "Cork" in fake.chat_requests[0]["messages"][0]["content"]


def test_llm_decide_never_runs_the_guess(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(tool_call("tides__times", {"harbour": "Cork"}))
    result = chat("-q", REQUEST, env={"HOMECLAW_LLM__DECIDE": "never"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"
    assert len(fake.chat_requests) == 1


def test_a_question_that_does_not_name_the_value_gives_a_plain_one(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """Asked to ask, a small model may ask the request back ("What is the date tomorrow?")."""
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("What are the tides?"))
    result = chat("-q", REQUEST)
    assert result.stdout == "Which harbour do you mean? tides needs one, and I won't guess it.\n"
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Which harbours?"))
    assert chat("-q", REQUEST).stdout == "Which harbours?\n"
