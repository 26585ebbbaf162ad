"""`homeclaw sync --expand` through the CLI, against the scripted Ollama server: examples are
generated once per descriptor and model, cached, regenerated after a change, resumed after
Ctrl-C, and an unreachable model never stops the sync."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.fakes.index import write_plugin
from tests.fakes.ollama_server import FakeOllama, Reply, fake_ollama, text
from tests.json_output import payload

__all__ = ["fake_ollama"]

ITEMS = 6  # index_env: four plugins without capabilities, two skills (the test skill is left out)


def numbered(body: dict[str, Any]) -> Reply:
    """Five requests naming the tool the prompt is about, as a small model writes them."""
    tool = re.findall(r"^Tool: (.+)$", body["messages"][-1]["content"], re.MULTILINE)[-1]
    lines = [f"{n}. ask {tool.lower()} thing number {n}" for n in range(1, 6)]
    return text("Here are some requests:\n" + "\n".join(lines))


def llm_env(fake: FakeOllama) -> dict[str, str]:
    return {"HOMECLAW_LLM__HOST": fake.host, "HOMECLAW_MODEL": "tiny:1b"}


def script_many(fake: FakeOllama, count: int = 20) -> None:
    fake.script(*([numbered] * count))


def cached(home: Path) -> dict[str, Any]:
    folder = home / "data" / "index" / "examples"
    return {f"{p.parent.name}/{p.stem}": json.loads(p.read_text()) for p in folder.glob("*/*.json")}


def test_expand_generates_caches_and_regenerates_only_what_changed(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    script_many(fake_ollama)
    result = cli("sync", "--expand", "--json", env=llm_env(fake_ollama))
    assert result.exit_code == 0, result.output
    data = payload(result)
    assert data["added"] == 7  # the sync ran as usual
    expand = data["expand"]
    assert (expand["generated"], expand["examples"], expand["llm_calls"]) == (ITEMS, 30, ITEMS)
    assert expand["model"] == "tiny:1b" and expand["failed"] == []
    requests = fake_ollama.chat_requests
    assert len(requests) == ITEMS
    assert all(r["options"]["temperature"] == 0.7 for r in requests)
    # five short lines need a few hundred tokens; a model repeating itself is cut off there
    assert all(r["options"]["num_predict"] == 384 for r in requests)
    prompts = [r["messages"][-1]["content"] for r in requests]
    assert any("Tool: Weather\nWhat it does: Current weather and forecast" in p for p in prompts)
    files = cached(index_env["home"])
    assert sorted(files) == [
        "plugins/calculator",
        "plugins/slack",
        "plugins/timer",
        "plugins/weather",
        "skills/haiku",
        "skills/summarize",
    ]
    weather = files["plugins/weather"]["models"]["tiny:1b"]["*"]["examples"]
    assert weather == [f"ask weather thing number {n}" for n in range(1, 6)]

    again = payload(cli("sync", "--expand", "--json", env=llm_env(fake_ollama)))
    assert len(fake_ollama.chat_requests) == ITEMS  # nothing asked again
    assert (again["expand"]["cached"], again["expand"]["generated"]) == (ITEMS, 0)

    write_plugin(index_env["plugins"], "weather", "Weather", "Rain radar and forecast by city.")
    changed = payload(cli("sync", "--expand", "--json", env=llm_env(fake_ollama)))
    assert changed["expand"]["generated"] == 1 and changed["expand"]["cached"] == ITEMS - 1
    assert "Rain radar" in fake_ollama.chat_requests[-1]["messages"][-1]["content"]
    assert len(fake_ollama.chat_requests) == ITEMS + 1


def test_another_model_writes_its_own_examples(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    script_many(fake_ollama)
    assert cli("sync", "--expand", env=llm_env(fake_ollama)).exit_code == 0
    other = {**llm_env(fake_ollama), "HOMECLAW_MODEL": "other:3b"}
    data = payload(cli("sync", "--expand", "--json", env=other))
    assert data["expand"]["generated"] == ITEMS
    models = cached(index_env["home"])["plugins/slack"]["models"]
    assert sorted(models) == ["other:3b", "tiny:1b"]


def test_piped_progress_is_one_plain_line_per_item(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    script_many(fake_ollama)
    result = cli("sync", "--expand", env=llm_env(fake_ollama))
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("examples ")]
    assert len(lines) == ITEMS
    assert re.fullmatch(r"examples 1/6 plugin:\w+: 5 examples \(\d+\.\ds\)", lines[0])
    assert "examples: 6 item(s) generated (30 examples" in result.stderr
    assert "synced: 7 added" in result.stdout


def test_a_reply_without_examples_is_asked_again_in_the_same_run(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(text("I cannot help with that."), *([numbered] * 10))
    data = payload(cli("sync", "--expand", "--json", env=llm_env(fake_ollama)))
    assert data["expand"]["generated"] == ITEMS
    assert data["expand"]["failed"] == []
    assert data["expand"]["llm_calls"] == ITEMS + 1
    calculator = cached(index_env["home"])["plugins/calculator"]
    assert len(calculator["models"]["tiny:1b"]["*"]["examples"]) == 5


def test_two_replies_without_examples_are_reported_and_retried_next_time(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    refusal = text("I cannot help with that.")
    fake_ollama.script(refusal, refusal, *([numbered] * 10))
    result = cli("sync", "--expand", "--json", env=llm_env(fake_ollama))
    assert result.exit_code == 0
    data = payload(result)
    assert data["expand"]["generated"] == ITEMS - 1
    assert data["expand"]["failed"] == [
        "plugin:calculator: *: the model's reply held no usable example"
    ]
    again = payload(cli("sync", "--expand", "--json", env=llm_env(fake_ollama)))
    assert again["expand"]["generated"] == 1


def test_unreachable_model_warns_and_the_sync_still_completes(
    cli: Any, index_env: dict[str, Any]
) -> None:
    env = {"HOMECLAW_LLM__HOST": "http://127.0.0.1:9", "HOMECLAW_MODEL": "tiny:1b"}
    result = cli("sync", "--expand", "--json", env=env)
    assert result.exit_code == 5
    document = json.loads(result.stdout)
    assert document["data"]["added"] == 7
    assert document["data"]["expand"]["unreachable"].startswith("Ollama is not running at")
    warning = document["warnings"][0]
    assert "no examples generated for 6 item(s): Ollama is not running" in warning
    assert "`ollama serve`" in warning and "synced without them" in warning
    assert not cached(index_env["home"])


def test_auto_mode_expands_on_change_and_costs_nothing_when_unchanged(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    env = {**llm_env(fake_ollama), "HOMECLAW_INDEX__EXPAND": "auto"}
    script_many(fake_ollama)
    first = payload(cli("sync", "--json", env=env))
    assert first["expand"]["generated"] == ITEMS
    index_env["models"].reset()
    seen = len(fake_ollama.requests)
    unchanged = payload(cli("sync", "--json", env=env))
    assert len(fake_ollama.requests) == seen  # no LLM call, not even a probe
    assert unchanged["added"] == unchanged["updated"] == 0
    assert unchanged["expand"]["cached"] == 2  # the skills, from their cache files
    write_plugin(index_env["plugins"], "news", "News", "Headlines of the day.")
    changed = payload(cli("sync", "--json", env=env))
    assert changed["expand"]["generated"] == 1


def test_auto_mode_with_the_model_down_warns_and_exits_0(
    cli: Any, index_env: dict[str, Any]
) -> None:
    env = {"HOMECLAW_LLM__HOST": "http://127.0.0.1:9", "HOMECLAW_INDEX__EXPAND": "auto"}
    result = cli("sync", env=env)
    assert result.exit_code == 0
    assert "no examples generated for 6 item(s)" in result.stderr
    assert "synced: 7 added" in result.stdout


@pytest.mark.slow
def test_ctrl_c_keeps_finished_items_and_a_rerun_resumes(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    release = threading.Event()

    def stuck(body: dict[str, Any]) -> Reply:
        release.wait(30)
        return numbered(body)

    fake_ollama.script(numbered, numbered, stuck)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **llm_env(fake_ollama)}
    command = [sys.executable, "-m", "homeclaw_cli", "sync", "--expand"]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(fake_ollama.chat_requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    release.set()
    assert process.returncode == 130, stderr
    assert len(cached(index_env["home"])) == 2  # the two finished items were kept
    script_many(fake_ollama)
    rerun = cli("sync", "--expand", "--json", env=llm_env(fake_ollama))  # in-process: fake embedder
    assert rerun.exit_code == 0, rerun.output
    expand = payload(rerun)["expand"]
    assert (expand["cached"], expand["generated"]) == (2, ITEMS - 2)
    assert len(cached(index_env["home"])) == ITEMS


def test_config_file_key_is_validated(cli: Any, index_env: dict[str, Any]) -> None:
    config = index_env["home"] / "config.yaml"
    data = yaml.safe_load(config.read_text())
    config.write_text(yaml.safe_dump({**data, "index": {"expand": "always"}}))
    result = cli("sync")
    assert result.exit_code == 3
    assert "index.expand" in result.stderr


def test_plugin_show_marks_generated_examples_and_sync_indexes_them(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    write_plugin(
        index_env["plugins"],
        "units",
        "Units",
        "Convert units of length and weight.",
        capabilities=[
            {"id": "convert", "name": "Convert", "description": "Convert a value."},
            {
                "id": "list_units",
                "name": "List units",
                "description": "Units it knows.",
                "examples": ["which units do you know"],
            },
        ],
    )
    script_many(fake_ollama)
    result = cli("sync", "--expand", "--json", env=llm_env(fake_ollama))
    assert payload(result)["expand"]["llm_calls"] == ITEMS + 1  # list_units has its own
    shown = cli("plugin", "show", "units", env=llm_env(fake_ollama)).stdout
    assert "  example: which units do you know" in shown
    assert "  example (generated): ask units thing number 1" in shown
    data = payload(cli("plugin", "show", "weather", "--json", env=llm_env(fake_ollama)))
    assert data["generated_examples"]["run"][0] == "ask weather thing number 1"
    skill = cli("skill", "show", "haiku", env=llm_env(fake_ollama)).stdout
    assert "example (generated): ask haiku thing number 3" in skill

    from homeclaw_cli.adapters.vector_store import open_store, row_examples
    from tests.fakes.index import settings_for

    store = open_store(settings_for(index_env["home"]))
    rows = {r["id"]: r for r in store.all_rows("homeclaw_plugins")}
    examples = [(e.text, e.source, e.capability) for e in row_examples(rows["units"])]
    assert ("which units do you know", "author", "list_units") in examples
    assert ("ask units thing number 1", "generated", "convert") in examples
    assert ("ask weather thing number 2", "generated", None) in [
        (e.text, e.source, e.capability) for e in row_examples(rows["weather"])
    ]


def test_plugin_examples_speak_for_its_only_capability(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    one = [{"id": "convert", "name": "Convert", "description": "Convert a value."}]
    two = [*one, {"id": "list_units", "name": "List units", "description": "Units it knows."}]
    write_plugin(index_env["plugins"], "units", "Units", "Convert units.", capabilities=one)
    write_plugin(index_env["plugins"], "sizes", "Sizes", "Clothing sizes.", capabilities=two)
    for plugin in ("units", "sizes"):
        path = index_env["plugins"] / plugin / "plugin.yaml"
        manifest = yaml.safe_load(path.read_text())
        path.write_text(yaml.safe_dump({**manifest, "examples": [f"{plugin} for my trip"]}))
    script_many(fake_ollama)
    expand = payload(cli("sync", "--expand", "--json", env=llm_env(fake_ollama)))["expand"]
    assert expand["skipped_author"] == 1 and expand["generated"] == ITEMS + 1
    prompts = [r["messages"][-1]["content"] for r in fake_ollama.chat_requests]
    assert not any("Tool: Units" in p for p in prompts)
    assert sum("Tool: Sizes" in p for p in prompts) == 2  # its examples name neither of two


def test_doctor_counts_what_has_no_examples_until_expand_writes_them(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    fake_ollama.add_model("tiny:1b")

    def examples_check() -> dict[str, Any]:
        checks = payload(cli("doctor", "--json", env=llm_env(fake_ollama)))
        return next(c for c in checks if c["name"] == "examples")

    before = examples_check()
    assert before["status"] == "warn" and before["detail"].startswith(f"{ITEMS} capabilities")
    assert "homeclaw sync --expand" in before["fix"]
    script_many(fake_ollama)
    assert cli("sync", "--expand", env=llm_env(fake_ollama)).exit_code == 0
    after = examples_check()
    assert after["status"] == "ok" and f"({ITEMS} written by the chat model)" in after["detail"]


def test_explain_names_the_generated_example_that_matched(
    cli: Any, index_env: dict[str, Any], fake_ollama: FakeOllama
) -> None:
    script_many(fake_ollama)
    assert cli("sync", "--expand", env=llm_env(fake_ollama)).exit_code == 0
    result = cli("plugin", "search", "ask timer thing number 4", "--explain")
    assert result.exit_code == 0, result.output
    top = next(line for line in result.stdout.splitlines() if line.startswith("1\ttimer\t"))
    assert top.endswith("'ask timer thing number 4' (generated)")
    data = payload(cli("plugin", "search", "ask timer thing number 4", "--explain", "--json"))
    best = data["candidates"][0]
    assert (best["id"], best["matched_source"]) == ("timer", "generated")
