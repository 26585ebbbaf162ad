"""Hot reload through real file changes, with watchfiles."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from homeclaw_cli.app.chat import ChatSession
from homeclaw_cli.app.hot_reload import ReloadReport, watch, watched_dirs
from homeclaw_cli.settings import load_settings
from tests.fakes.chat_plugins import fast_retrieval, write_test_plugins

__all__ = ["fast_retrieval"]

WAIT = 10.0


async def until_report(
    reports: asyncio.Queue[ReloadReport],
    touch: Callable[[], None],
    accept: Callable[[ReloadReport], bool],
) -> ReloadReport:
    """Make the change, then wait for the report that shows it (re-touching if the watcher
    was not yet running when the first change happened)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    touch()
    while True:
        try:
            report = await asyncio.wait_for(reports.get(), timeout=1.0)
        except TimeoutError:
            if loop.time() > deadline:
                raise
            touch()
            continue
        if accept(report):
            return report


def test_edit_is_reloaded_and_broken_edit_keeps_last_good_version(
    hc_home: Path, tmp_path: Path, fast_retrieval: object
) -> None:
    plugins = write_test_plugins(tmp_path / "plugins")
    settings = load_settings(extra_plugin_dirs=[plugins], flags={"bundled": False})
    assert plugins.resolve() in watched_dirs(settings)
    manifest = plugins / "tides" / "plugin.yaml"
    original = manifest.read_text()

    async def scenario() -> None:
        session = ChatSession(settings, llm=object(), log=False)  # type: ignore[arg-type]
        reports: asyncio.Queue[ReloadReport] = asyncio.Queue()
        stop = asyncio.Event()
        task = asyncio.create_task(watch(session, reports.put_nowait, stop=stop, debounce_ms=50))
        old_registry = session.registry
        try:
            n = [0]

            def edit() -> None:
                n[0] += 1
                manifest.write_text(original.replace("High and low tide times", f"Tides v{n[0]}"))

            report = await until_report(reports, edit, lambda r: "tides" in r.updated)
            assert session.manifest("tides").description.startswith("Tides v")  # type: ignore[union-attr]
            assert old_registry.plugins["tides"].manifest.description.startswith("High")

            good = session.manifest("tides")

            def break_it() -> None:
                manifest.write_text(original.replace("id: tides", "id: Not Valid!"))

            report = await until_report(reports, break_it, lambda r: bool(r.broken))
            assert "tides" in report.broken[0]
            assert session.manifest("tides") is good  # last good version kept
        finally:
            stop.set()
            await task
            await session.aclose()

    asyncio.run(scenario())


def test_skill_edit_is_reloaded_and_broken_skill_kept(
    hc_home: Path, tmp_path: Path, fast_retrieval: object
) -> None:
    skill = tmp_path / "skills" / "hello-world"
    skill.mkdir(parents=True)
    md = skill / "SKILL.md"
    md.write_text("---\nname: hello-world\ndescription: Say hello.\n---\nHi\n")
    settings = load_settings(
        flags={"bundled": False},
        env={"HOMECLAW_HOME": str(hc_home), "HOMECLAW_SKILLS_PATH": str(tmp_path / "skills")},
    )

    async def scenario() -> None:
        session = ChatSession(settings, llm=object(), log=False)  # type: ignore[arg-type]
        assert session.skills is not None
        reports: asyncio.Queue[ReloadReport] = asyncio.Queue()
        stop = asyncio.Event()
        task = asyncio.create_task(watch(session, reports.put_nowait, stop=stop, debounce_ms=50))
        try:
            n = [0]

            def edit() -> None:
                n[0] += 1
                md.write_text(f"---\nname: hello-world\ndescription: Say hello v{n[0]}.\n---\nHi\n")

            await until_report(reports, edit, lambda r: "skill hello-world" in r.updated)
            good = session.skills.registry.skills["hello-world"]
            assert good.description.startswith("Say hello v")

            await until_report(
                reports, lambda: md.write_text("no frontmatter"), lambda r: bool(r.broken)
            )
            assert session.skills.registry.skills["hello-world"] is good
        finally:
            stop.set()
            await task
            await session.aclose()

    asyncio.run(scenario())
