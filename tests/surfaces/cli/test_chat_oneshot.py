"""`homeclaw chat -q` end to end: real CLI, real ollama client, FakeOllama, inline plugins."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import (
    FakeOllama,
    error,
    text,
    text_tool_call,
    tool_call,
    unused_port_host,
)
from tests.json_output import envelope, payload

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama(strict_models=True) as fake:
        fake.add_model("llama3.2")
        fake.add_model("tiny", tools=False)
        yield fake


@pytest.fixture
def chat(cli: Callable[..., Any], fake: FakeOllama, tmp_path: Path) -> Callable[..., Any]:
    plugins = write_test_plugins(tmp_path / "plugins")

    def run(*args: str, input: str | None = None) -> Any:
        return cli(
            "--plugins-dir",
            str(plugins),
            "chat",
            "--host",
            fake.host,
            *args,
            input=input,
            env={"HOMECLAW_NO_BUNDLED": "1"},
        )

    return run


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def test_plain_answer_only_on_stdout(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(text("Paris is the capital of France."))
    result = chat("-q", "what is the capital of France")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Paris is the capital of France.\n"
    assert fake.last_chat["model"] == "llama3.2"
    assert fake.last_chat["options"]["temperature"] == 0.2  # steady tool routing by default


def test_the_model_is_told_the_date(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(text("Tomorrow is Sunday."))
    days = {date.today()}
    result = chat("-q", "what date will it be tomorrow")
    assert result.exit_code == 0, result.stderr
    days.add(date.today())  # the run may cross midnight
    system = fake.chat_requests[0]["messages"][0]
    assert system["role"] == "system"
    assert any(f"Today is {d:%A} {d.isoformat()}." in system["content"] for d in days)


def test_retrieval_narrows_tools_and_call_reaches_plugin(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    result = chat("-q", "please greet Ada with a hello")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Hello, Ada!\n"
    offered = tool_names(fake.chat_requests[0])
    assert "greeter__hello" in offered and not any(n.startswith("tides__") for n in offered)
    assert len(fake.chat_requests) == 1  # post_process false: no second model call


def test_each_need_of_a_two_need_request_is_answered(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """The model serves the first need only; the second part is asked on its own and both
    plugins' results are printed."""
    fake.script(
        tool_call("greeter__hello", {"name": "Ada"}),
        tool_call("tides__times", {"place": "Brest"}),
    )
    result = chat("-q", "please greet Ada with a hello and when is high tide in Brest")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Hello, Ada!" and lines[1] == "" and "Brest" in lines[2]
    assert len(fake.chat_requests) == 2
    assert fake.chat_requests[1]["messages"][-1]["content"] == "when is high tide in Brest"


def test_post_process_only_when_asked(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(tool_call("greeter__story", {"name": "Bo"}), text("Bo met a lovely cat!"))
    result = chat("-q", "tell me a greet story about Bo")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Bo met a lovely cat!\n"
    post = fake.chat_requests[1]
    assert post["messages"][0] == {
        "role": "system",
        "content": "Retell this story in one cheerful sentence.",
    }
    assert "Once upon a time Bo found a cat." in post["messages"][1]["content"]
    assert "tools" not in post or not post["tools"]


def test_a_misnamed_parameter_is_renamed_without_a_correction(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("greeter__hello", {"who": "Ada"}))
    result = chat("-q", "greet Ada hello", "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Hello, Ada!" and len(fake.chat_requests) == 1
    assert [s["arguments"] for s in data["trace"] if s["kind"] == "tool"] == [{"name": "Ada"}]


def test_bad_call_recovers(chat: Callable[..., Any], fake: FakeOllama) -> None:
    # a number is no name: the unknown `nam` is left for the correction, which names it
    fake.script(
        tool_call("greeter__hello", {"nam": 5}), tool_call("greeter__hello", {"name": "Ada"})
    )
    result = chat("-q", "greet Ada hello", "--trace")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Hello, Ada!\n"
    feedback = [m for m in fake.chat_requests[1]["messages"] if m["role"] == "tool"]
    assert "unknown parameter `nam` (did you mean `name`?)" in feedback[0]["content"]
    assert "tool greeter__hello" in result.stderr and "-> error" in result.stderr
    assert "model round 1" in result.stderr and "[native]" in result.stderr


def test_json_in_content_call_is_understood(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(text_tool_call("tides__times", {"harbour": "Brest"}, fenced=True))
    result = chat("-q", "tide times for the harbour of Brest")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Brest at 06:12.\n"


def test_model_without_tools_routes_through_format(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(text('{"tool": "tides__times", "arguments": {"harbour": "Cork"}}'))
    result = chat("-q", "tide times in the harbour of Cork", "--model", "tiny")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"
    request = fake.chat_requests[0]
    assert "tools" not in request or not request["tools"]
    assert "tides__times" in request["format"]["properties"]["tool"]["enum"]


def test_json_output_has_answer_trace_timings(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    result = chat("-q", "greet Ada hello", "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Hello, Ada!" and data["ok"] is True and data["model"] == "llama3.2"
    assert [s["kind"] for s in data["trace"]] == ["retrieve", "prompt", "llm", "tool"]
    assert data["trace"][3]["arguments"] == {"name": "Ada"}
    assert data["retrieved"]["plugins"][0]["id"] == "greeter"
    assert {"total", "llm", "overhead"} <= set(data["timings"])


def test_question_from_stdin(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(text("42"))
    result = chat(input="what is six times seven\n")
    assert result.exit_code == 0 and result.stdout == "42\n"
    assert fake.chat_requests[0]["messages"][-1]["content"] == "what is six times seven"


def test_dash_reads_the_question_from_stdin(
    chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(text("42"))
    result = chat("-q", "-", "--json", input="what is six times seven\n")
    assert result.exit_code == 0, result.stderr
    assert payload(result)["answer"] == "42"
    assert fake.chat_requests[0]["messages"][-1]["content"] == "what is six times seven"
    assert payload(cli("logs", "--json"))[-1]["message"] == "what is six times seven"


def test_dash_with_nothing_on_stdin_is_a_usage_error(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    for empty in ("", "\n"):
        result = chat("-q", "-", input=empty)
        assert result.exit_code == 2 and result.stdout == ""
        assert "found no question on stdin" in result.stderr
        assert "| homeclaw chat -q -" in result.stderr
    assert fake.chat_requests == []


def test_tool_failed_for_good_exits_1(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(tool_call("greeter__boom"), text("Sorry, the greeter is broken."))
    result = chat("-q", "greet and explode boom")
    assert result.exit_code == 1
    assert result.stdout == "Sorry, the greeter is broken.\n"
    assert "the greeter exploded" in result.stderr


def test_figures_the_failed_plugin_never_gave_are_not_printed(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """After a failed call the model reports a result anyway: nothing on stdout, the error on
    stderr, exit 1."""
    fake.script(tool_call("greeter__boom"), text("Greeted all 12 guests at 10:42."))
    result = chat("-q", "greet and explode boom")
    assert result.exit_code == 1 and result.stdout == ""
    assert "the greeter exploded" in result.stderr and "12 guests" not in result.stderr


def test_a_failed_turn_under_json_has_its_error_next_to_its_data(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("greeter__boom"), text("Sorry, the greeter is broken."))
    result = chat("-q", "greet and explode boom", "--json")
    assert result.exit_code == 1
    document = envelope(result)
    assert document["data"]["failure"] == "tool"
    assert document["data"]["answer"] == "Sorry, the greeter is broken."
    assert document["error"]["message"] == document["data"]["error"]
    assert document["error"]["exit_code"] == 1 and document["error"]["kind"] == "error"


def test_model_unreachable_exits_5(cli: Callable[..., Any]) -> None:
    host = unused_port_host()
    result = cli("chat", "-q", "hi", "--host", host)
    assert result.exit_code == 5 and result.stdout == ""
    assert f"Ollama is not running at {host}" in result.stderr and "ollama serve" in result.stderr


def test_an_unreachable_server_is_logged_as_a_failed_turn(cli: Callable[..., Any]) -> None:
    host = unused_port_host()
    assert cli("chat", "-q", "what is on my todo list", "--host", host).exit_code == 5
    [turn] = payload(cli("logs", "--failed", "--json"))
    assert turn["message"] == "what is on my todo list" and turn["status"] == "failed"
    assert turn["error"] == f"Ollama is not running at {host}"
    listed = cli("logs", "--failed")
    assert "FAILED" in listed.stdout and f"Ollama is not running at {host}" in listed.stdout


def test_a_server_error_mid_turn_is_logged_as_a_failed_turn(
    chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(error(500, "the server fell over"))
    assert chat("-q", "greet Ada hello").exit_code == 5
    [turn] = payload(cli("logs", "--failed", "--json"))
    assert turn["message"] == "greet Ada hello" and turn["status"] == "failed"
    assert "the server fell over" in turn["error"]


def test_model_not_pulled_exits_4(chat: Callable[..., Any]) -> None:
    result = chat("-q", "hi", "--model", "mistral")
    assert result.exit_code == 4 and result.stdout == ""
    assert "model mistral is not installed on Ollama" in result.stderr
    assert "ollama pull mistral" in result.stderr and "llm.model" in result.stderr


def test_empty_question_is_a_usage_error(chat: Callable[..., Any]) -> None:
    result = chat("-q", "  ")
    assert result.exit_code == 2 and "empty" in result.stderr


def test_logs_show_turns_and_tool_calls(
    chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    assert chat("-q", "greet Ada hello").exit_code == 0
    result = cli("logs", "--json")
    turns = payload(result)
    assert turns[-1]["message"] == "greet Ada hello" and turns[-1]["answer"] == "Hello, Ada!"
    assert turns[-1]["tool_calls"][0]["name"] == "greeter__hello"
    assert turns[-1]["tool_calls"][0]["arguments"] == {"name": "Ada"}
    plain = cli("logs")
    assert "greeter__hello" in plain.stdout and "ok" in plain.stdout
    cleared = cli("logs", "--clear", "--yes")
    assert cleared.exit_code == 0 and "deleted 1 of 1 logged turns" in cleared.stderr
    assert payload(cli("logs", "--json")) == []


def test_a_damaged_log_is_a_clear_error_and_no_log_still_chats(
    chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama, hc_home: Path
) -> None:
    db = hc_home / "data" / "state" / "conversations.sqlite3"
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_text("garbage, not SQLite")
    for result in (cli("logs"), cli("logs", "--clear"), chat("-q", "hello")):
        assert result.exit_code == 3, result.output
        assert "conversation log cannot be read" in result.stderr and "--no-log" in result.stderr
    fake.script(text("hi"))
    assert chat("-q", "hello", "--no-log").stdout == "hi\n"


def test_no_log(chat: Callable[..., Any], cli: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(text("hi"))
    assert chat("-q", "hello", "--no-log").exit_code == 0
    assert payload(cli("logs", "--json")) == []


def test_inline_plugin_uses_an_allowlisted_builtin(
    chat: Callable[..., Any], fake: FakeOllama, tmp_path: Path
) -> None:
    from tests.fakes.chat_plugins import CLOCK_PY, CLOCK_YAML, write_plugin

    write_plugin(tmp_path / "plugins", "clock", CLOCK_YAML, CLOCK_PY)
    fake.script(tool_call("clock__now"))
    result = chat("-q", "tell the clock time now")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("clock says ") and "UTC" in result.stdout
    fake.script(tool_call("clock__peek"), text("refused"))
    result = chat("-q", "tell the clock time by peeking", "--allow-dir", str(tmp_path))
    assert result.exit_code == 1 and "not allowlisted for plugins" in result.stderr
    fake.script(tool_call("clock__web_time"), text("refused"))
    result = chat("-q", "tell the clock time from the web")  # example.com is not granted
    assert result.exit_code == 1 and "may not reach example.com" in result.stderr
