"""The REPL driven through prompt-toolkit's pipe input, against FakeOllama."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.surfaces.repl.chat_repl import Repl
from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import FakeOllama, Reply, text, tool_call

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        fake.add_model("tiny", tools=False)
        yield fake


@pytest.fixture
def settings(fake: FakeOllama, tmp_path: Path) -> Settings:
    plugins = write_test_plugins(tmp_path / "plugins")
    return load_settings(
        extra_plugin_dirs=[plugins], flags={"llm.host": fake.host, "bundled": False}
    )


def drive(settings: Settings, keys: str, **kwargs: Any) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(
            settings, pt_input=pipe, pt_output=DummyOutput(), console=console, watch=False, **kwargs
        )
        asyncio.run(repl.run())
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


def test_chat_turns_and_ctrl_d_exits(settings: Settings, fake: FakeOllama) -> None:
    # "thanks" follows a plugin turn: the tool-or-answer question keeps the answer
    fake.script(
        tool_call("greeter__hello", {"name": "Ada"}),
        text("You are welcome."),
        text('{"tool": "answer"}'),
    )
    out = drive(settings, "greet Ada hello\nthanks\n\x04")
    assert "Hello, Ada!" in out and "You are welcome." in out and out.rstrip().endswith("bye")
    # the second turn carries the history, the tool call and its result as the model saw them
    second = fake.chat_requests[1]["messages"]
    assert [m["role"] for m in second] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert second[2]["tool_calls"][0]["function"]["name"] == "greeter__hello"
    assert "Hello, Ada!" in second[3]["content"] and second[4]["content"] == "Hello, Ada!"
    history = (settings.state_dir / "chat_history").read_text()
    assert "greet Ada hello" in history and "thanks" in history


def test_multiline_input_with_escape_enter(settings: Settings, fake: FakeOllama) -> None:
    fake.script(text("ok"))
    drive(settings, "line one\x1b\rline two\n/exit\n")
    assert fake.chat_requests[0]["messages"][-1]["content"] == "line one\nline two"


def test_slash_commands(settings: Settings, fake: FakeOllama) -> None:
    fake.script(tool_call("tides__times", {"harbour": "Brest"}))
    out = drive(
        settings,
        "/help\n/plugins\ntide times for the harbour of Brest\n/why\n/context\n/search greet\n"
        "/trace\n/model\n/model tiny\n/clear\n/context\n/skils\n/exit\n",
    )
    assert "/reload" in out and "greeter" in out and "tides" in out  # /help, /plugins
    assert "HEALTH" in out
    assert "High tide in Brest at 06:12." in out
    assert "retrieval for: tide times for the harbour of Brest" in out  # /why
    assert "routing" in out and "tools (" in out  # /context
    assert "trace on" in out
    assert "model llama3.2 · native tool calls" in out
    # /model lists the server's models: the configured one marked, tool support
    assert re.search(r"^\*\W+llama3\.2:latest\W+yes\W", out, re.MULTILINE)
    assert re.search(r"^\W+tiny:latest\W+no\W", out, re.MULTILINE)
    assert "model is now tiny (JSON replies)" in out
    assert "conversation cleared" in out and "history (0 turns)" in out
    assert "unknown command /skils (did you mean `/skills`?)" in out


def test_skills_command_lists_skills(settings: Settings, tmp_path: Path) -> None:
    skill = tmp_path / "my-skills" / "hello-world"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello-world\ndescription: Say hello.\n---\nHi\n")
    with_skills = settings.model_copy(update={"extra_skill_dirs": [tmp_path / "my-skills"]})
    out = drive(with_skills, "/skills\n/exit\n")
    assert "hello-world" in out and "Say hello." in out


def test_trace_shows_retrieval_tool_and_timings(settings: Settings, fake: FakeOllama) -> None:
    fake.script(tool_call("greeter__hello", {"name": "Ada"}))
    out = drive(settings, "greet Ada hello\n/exit\n", trace=True)
    assert "retrieve" in out and "greeter" in out
    assert 'tool greeter__hello({"name": "Ada"}) -> ok' in out
    assert "prompt:" in out and "total" in out


def test_errors_are_one_sentence_and_the_repl_continues(
    settings: Settings, fake: FakeOllama
) -> None:
    fake.script(text("fine"))
    out = drive(settings, "/model mistral\nhello\n/exit\n")
    assert "model mistral is not installed on Ollama" in out and "ollama pull mistral" in out
    assert "installed: llama3.2:latest (tools), tiny:latest (no tools)" in out
    flat = " ".join(out.split())
    assert "`/model llama3.2:latest` (it supports tools) switches to it" in flat
    assert "--model" not in flat  # the command line's way, not the REPL's
    assert "fine" in out  # switched back to the working model
    assert "Traceback" not in out


def test_a_model_a_one_model_server_does_not_list_is_named_on_switching(
    hc_home: Path, fast_retrieval: object
) -> None:
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI(models=("qwen-7b",)) as one:
        flags = {"llm.host": one.host, "llm.provider": "openai", "llm.model": "qwen-7b"}
        settings = load_settings(flags={**flags, "bundled": False})
        out = drive(settings, "/model zzz\n/model qwen-7b\n/exit\n")
    flat = " ".join(out.split())
    assert "model is now zzz" in flat
    assert (
        f"zzz is not a model of the server at {one.host}; its one model, qwen-7b, answers "
        "instead (`/model qwen-7b` switches to it)"
    ) in flat
    assert flat.count("is not a model of the server") == 1  # not for qwen-7b, nor at start


def test_ctrl_c_cancels_the_turn_not_the_session(settings: Settings, fake: FakeOllama) -> None:
    release = threading.Event()

    def slow(body: dict[str, Any]) -> Reply:
        os.kill(os.getpid(), signal.SIGINT)
        release.wait(10)
        return text("too late")

    fake.script(slow, text("second answer"))
    try:
        out = drive(settings, "first question\nsecond question\n/exit\n")
    finally:
        release.set()
    assert "cancelled" in out and "too late" not in out and "second answer" in out


def test_reload_command_picks_up_a_new_plugin(
    settings: Settings, fake: FakeOllama, tmp_path: Path
) -> None:
    from tests.fakes.chat_plugins import TIDE_PY, TIDE_YAML, write_plugin

    queued: list[str] = []

    def add_plugin(body: dict[str, Any]) -> Reply:
        write_plugin(
            tmp_path / "plugins", "tides2", TIDE_YAML.replace("id: tides", "id: tides2"), TIDE_PY
        )
        queued.append("x")
        return text("added")

    fake.script(add_plugin)
    out = drive(settings, "do it\n/reload\n/exit\n")
    assert queued and "reloaded: added tides2" in out


def test_completion_of_slash_commands_and_their_plugin_id_arguments() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from homeclaw_cli.surfaces.repl.chat_repl import _Completer

    completer = _Completer(lambda: ["greeter", "tides", "todo"])

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("/se") == ["/search", "/sessions"]
    assert complete("/")[:3] == ["/help", "/plugins", "/skills"]
    assert complete("/search t") == ["tides", "todo"]
    assert complete("/status reconnect gr") == ["greeter"]
    assert complete("  /he") == ["/help"]


@pytest.mark.parametrize(
    "text", ["what t", "t", "ask gre", "todo", "what is /se", "tell me\nabout t", "/search ", ""]
)
def test_ordinary_messages_get_no_completions(text: str) -> None:
    """The prompt completes while typing: a message must not pop up plugin ids."""
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from homeclaw_cli.surfaces.repl.chat_repl import _Completer

    completer = _Completer(lambda: ["greeter", "textkit", "timezones", "todo"])
    event = CompleteEvent(text_inserted=True)
    assert list(completer.get_completions(Document(text), event)) == []


def test_an_internal_error_does_not_end_the_session(
    settings: Settings, fake: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.app.chat import ChatSession

    original = ChatSession.ask
    calls = []

    async def flaky(self: ChatSession, text: str, **kwargs: Any) -> Any:
        calls.append(text)
        if len(calls) == 1:
            raise RuntimeError("bug in a turn")
        return await original(self, text, **kwargs)

    monkeypatch.setattr(ChatSession, "ask", flaky)
    fake.script(text("still here"))
    out = drive(settings, "first\nsecond\n/exit\n")
    assert "internal error: RuntimeError('bug in a turn')" in out and "still here" in out


def test_hot_reload_shows_a_broken_edit_in_the_repl(
    settings: Settings, fake: FakeOllama, tmp_path: Path
) -> None:
    manifest = tmp_path / "plugins" / "tides" / "plugin.yaml"
    console = Console(file=io.StringIO(), width=200, color_system=None)
    shown, scanned = threading.Event(), threading.Event()
    from homeclaw_cli.app.chat import ChatSession

    def factory() -> ChatSession:
        session = ChatSession(settings)
        scanned.set()  # the good version is loaded: now break it
        return session

    with create_pipe_input() as pipe:
        repl = Repl(
            settings,
            pt_input=pipe,
            pt_output=DummyOutput(),
            console=console,
            watch=True,
            session_factory=factory,
        )
        original = repl.show_reload

        def show(report: Any) -> None:
            original(report)
            if report.broken and not shown.is_set():
                shown.set()
                pipe.send_text("/plugins\n/exit\n")

        repl.show_reload = show  # type: ignore[method-assign]

        def break_it() -> None:  # re-touch until the watcher (started by run()) sees it
            scanned.wait(20)
            for _ in range(40):
                manifest.write_text("id: Not Valid!\nname: x\n")
                if shown.wait(0.5):
                    return
            pipe.send_text("/exit\n")

        editor = threading.Thread(target=break_it)
        editor.start()
        try:
            asyncio.run(repl.run())
        finally:
            shown.set()
            editor.join()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "not reloaded (kept the last good version)" in out and "tides" in out
    assert "High and low tide times" in out  # /plugins still lists the last good tides


def test_plugins_and_skills_tables_cut_descriptions_at_a_word(
    settings: Settings, tmp_path: Path
) -> None:
    skill = tmp_path / "my-skills" / "long-one"
    skill.mkdir(parents=True)
    words = "Summarize quarterly spreadsheets into concise bullet points " * 3
    (skill / "SKILL.md").write_text(f"---\nname: long-one\ndescription: {words}\n---\nHi\n")
    with_skills = settings.model_copy(update={"extra_skill_dirs": [tmp_path / "my-skills"]})
    out = drive(with_skills, "/skills\n/exit\n")
    line = next(ln for ln in out.splitlines() if "long-one" in ln)
    shown = line.split("Summarize", 1)[1].rstrip()
    assert shown.endswith("…")
    last_word = shown.removesuffix("…").split()[-1]
    assert last_word in words.split()  # a whole word, not "spreadsh"
    assert len("Summarize" + shown) <= 70


def test_a_plugin_held_back_for_a_missing_key_is_named_once_a_session(
    fake: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes.chat_plugins import TIDE_PY, TIDE_YAML, write_plugin

    monkeypatch.delenv("TIDES_KEY", raising=False)
    plugins = tmp_path / "held"
    write_plugin(plugins, "tides", TIDE_YAML + "requires:\n  - {env: TIDES_KEY}\n", TIDE_PY)
    flags = {"llm.host": fake.host, "bundled": False, "llm.decide": "never"}
    settings = load_settings(extra_plugin_dirs=[plugins], flags=flags)
    fake.script(text("I can't look that up."), text("Still no tide tables here."))
    out = drive(settings, "when is high tide in the harbour of Brest\nhigh tide in Brest\n\x04")
    assert "I can't look that up." in out and "Still no tide tables here." in out
    said = " ".join(out.split())
    assert said.count("plugin tides matched this request but was not offered: it needs") == 1
