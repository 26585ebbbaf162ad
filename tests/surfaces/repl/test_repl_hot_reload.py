"""Hot reload in the REPL without gaps: a plugin folder created after start is followed, and a
broken edit is one message while the last good version stays active."""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from homeclaw_cli.app.chat import ChatSession
from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.surfaces.repl.chat_repl import Repl
from tests.fakes.chat_plugins import (
    TIDE_PY,
    TIDE_YAML,
    fast_retrieval,
    write_plugin,
    write_test_plugins,
)
from tests.fakes.ollama_server import FakeOllama

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        yield fake


def test_a_broken_edit_is_one_message_and_the_last_good_version_stays(
    fake: FakeOllama, hc_home: Path, tmp_path: Path
) -> None:
    # the plugin under development shadows an installed copy of the same id
    installed = TIDE_YAML.replace("High and low tide times", "Installed tide copy")
    write_plugin(hc_home / "data" / "plugins", "tides", installed, TIDE_PY)
    dev = write_test_plugins(tmp_path / "dev")
    settings = load_settings(
        extra_plugin_dirs=[dev], flags={"llm.host": fake.host, "bundled": False}
    )

    def factory() -> ChatSession:
        session = ChatSession(settings)
        (dev / "tides" / "plugin.yaml").write_text("id: Not Valid!\nname: x\n")
        return session

    console = Console(file=io.StringIO(), width=200, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text("/reload\n/plugins\n/exit\n")
        repl = Repl(
            settings,
            pt_input=pipe,
            pt_output=DummyOutput(),
            console=console,
            watch=False,
            session_factory=factory,
        )
        asyncio.run(repl.run())
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out.count("not reloaded (kept the last good version)") == 1
    assert "reloaded:" not in out.replace("not reloaded", "")
    assert "High and low tide times" in out and "Installed tide copy" not in out


def run_until(settings: Settings, act: Any, seen: str) -> str:
    """Run the REPL with hot reload; `act` runs in a thread once the session is up and the
    REPL leaves when `seen` shows in a reload message (or after 20 s)."""
    console = Console(file=io.StringIO(), width=200, color_system=None)
    started, shown = threading.Event(), threading.Event()

    def factory() -> ChatSession:
        session = ChatSession(settings)
        started.set()
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
            if seen in str(report) and not shown.is_set():
                shown.set()
                pipe.send_text("/plugins\n/exit\n")

        repl.show_reload = show  # type: ignore[method-assign]

        def drive() -> None:
            started.wait(20)
            act()
            if not shown.wait(20):
                pipe.send_text("/exit\n")

        thread = threading.Thread(target=drive)
        thread.start()
        try:
            asyncio.run(repl.run())
        finally:
            shown.set()
            thread.join()
    return str(console.file.getvalue())  # type: ignore[attr-defined]


def test_the_user_plugins_dir_created_after_start_is_watched(
    fake: FakeOllama, hc_home: Path, tmp_path: Path
) -> None:
    user_dir = hc_home / "data" / "plugins"
    assert not user_dir.exists()
    settings = load_settings(flags={"llm.host": fake.host, "bundled": False})

    def first_install() -> None:
        import time

        time.sleep(0.5)  # the watcher is up (the chat has started)
        write_plugin(user_dir, "tides", TIDE_YAML, TIDE_PY)

    out = run_until(settings, first_install, "tides")
    assert "reloaded: added tides" in out
    assert "High and low tide times" in out  # /plugins lists it


def test_leaving_the_repl_stops_the_managed_server_it_started(
    fake: FakeOllama, hc_home: Path, tmp_path: Path
) -> None:
    import socket

    from tests.fakes.ollama_server import tool_call
    from tests.plugin_factory import BUNDLED, free_port

    port = free_port()
    folder = tmp_path / "managed" / "todo"
    folder.mkdir(parents=True)
    manifest = (BUNDLED / "todo" / "plugin.yaml").read_text().replace("3107", str(port))
    (folder / "plugin.yaml").write_text(manifest)
    (folder / "server.py").write_text((BUNDLED / "todo" / "server.py").read_text())
    settings = load_settings(
        extra_plugin_dirs=[folder.parent], flags={"llm.host": fake.host, "bundled": False}
    )
    fake.script(tool_call("todo__list-todos", {}))
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text("what's on my todo list\n/exit\n")
        repl = Repl(settings, pt_input=pipe, pt_output=DummyOutput(), console=console, watch=False)
        asyncio.run(repl.run())
    assert "No open tasks." in console.file.getvalue()  # type: ignore[attr-defined]
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0  # stopped with the REPL


def test_removing_a_plugin_stops_the_server_homeclaw_started_for_it(
    fake: FakeOllama, hc_home: Path, tmp_path: Path
) -> None:
    """A managed server of a plugin removed while chatting ran on until the chat ended."""
    import shutil
    import socket

    from tests.fakes.ollama_server import Reply, text, tool_call
    from tests.plugin_factory import BUNDLED, free_port

    port = free_port()
    folder = tmp_path / "dev" / "todo"
    folder.mkdir(parents=True)
    manifest = (BUNDLED / "todo" / "plugin.yaml").read_text().replace("3107", str(port))
    (folder / "plugin.yaml").write_text(manifest)
    shutil.copy(BUNDLED / "todo" / "server.py", folder / "server.py")
    settings = load_settings(
        extra_plugin_dirs=[folder.parent],
        flags={"llm.host": fake.host, "bundled": False, "llm.decide": "never"},
    )

    def listening() -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", port)) == 0

    seen: list[bool] = []

    def remove_it(body: dict[str, Any]) -> Reply:
        seen.append(listening())
        shutil.rmtree(folder)
        return text("removed")

    def after_reload(body: dict[str, Any]) -> Reply:
        seen.append(listening())
        return text("fine")

    fake.script(tool_call("todo__list-todos"), remove_it, after_reload)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text("what is on my todo list\nok\n/reload\nand now?\n/exit\n")
        repl = Repl(settings, pt_input=pipe, pt_output=DummyOutput(), console=console, watch=False)
        asyncio.run(repl.run())
    assert "reloaded: removed todo" in console.file.getvalue()  # type: ignore[attr-defined]
    assert seen == [True, False]


def test_a_broken_edit_of_an_inline_plugins_code_keeps_the_loaded_code_answering(
    fake: FakeOllama, hc_home: Path, tmp_path: Path
) -> None:
    """'not reloaded (kept the last good version)' held for the manifest only: the next call
    imported the broken plugin.py and failed."""
    from tests.fakes.ollama_server import Reply, tool_call

    dev = write_test_plugins(tmp_path / "dev")
    settings = load_settings(
        extra_plugin_dirs=[dev],
        flags={"llm.host": fake.host, "bundled": False, "llm.decide": "never"},
    )

    def break_it(body: dict[str, Any]) -> Reply:
        with (dev / "greeter" / "plugin.py").open("a") as code:
            code.write("\nthis is not python(\n")
        return tool_call("greeter__hello", {"name": "Bob"})

    fake.script(tool_call("greeter__hello", {"name": "Ada"}), break_it)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with create_pipe_input() as pipe:
        pipe.send_text("greet Ada hello\ngreet Bob hello\n/exit\n")
        repl = Repl(settings, pt_input=pipe, pt_output=DummyOutput(), console=console, watch=False)
        asyncio.run(repl.run())
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Hello, Ada!" in out and "Hello, Bob!" in out, out
