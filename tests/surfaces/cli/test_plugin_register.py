"""`homeclaw plugin register FILE.json` / `plugin unregister ID` from the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.settings import load_settings
from homeclaw_cli.state.health import HealthStore
from tests.json_output import payload


def write_descriptor(folder: Path, plugin_id: str = "slack-bot", **extra: Any) -> Path:
    body = {
        "plugin_id": plugin_id,
        "name": "Slack",
        "description": "Post messages to Slack.",
        "health_check_url": "http://127.0.0.1:9/health",
        "type": "http",
        "config": {"base_url": "http://127.0.0.1:9"},
        **extra,
    }
    path = folder / f"{plugin_id}.json"
    path.write_text(json.dumps(body, indent=2))
    return path


@pytest.fixture(autouse=True)
def no_bundled(hc_home: Path, monkeypatch: pytest.MonkeyPatch, fake_models: Any) -> None:
    # fake_models (tests/fakes/index.py): registrations sync the real index, fake embedder.
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")


def test_register_list_unregister(cli: Callable[..., Any], tmp_path: Path) -> None:
    path = write_descriptor(tmp_path)
    result = cli("plugin", "register", "--no-check", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "registered slack-bot"
    again = cli("plugin", "register", "--no-check", str(path), "--json")
    assert payload(again)["change"] == "unchanged"

    rows = payload(cli("plugin", "list", "--json"))
    assert [(r["id"], r["source"], r["status"]) for r in rows] == [("slack-bot", "external", "ok")]
    gone = cli("plugin", "unregister", "slack-bot")
    assert gone.exit_code == 0
    assert payload(cli("plugin", "list", "--json")) == []
    missing = cli("plugin", "unregister", "slack-bot")
    assert missing.exit_code == 4
    assert "no external plugin registered" in missing.stderr


def test_register_checks_health_by_default(cli: Callable[..., Any], tmp_path: Path) -> None:
    result = cli("plugin", "register", str(write_descriptor(tmp_path)))
    assert result.exit_code == 5
    assert "not reachable" in result.stderr
    assert "--no-check" in result.stderr


def test_bad_descriptor_names_file_and_field(cli: Callable[..., Any], tmp_path: Path) -> None:
    path = write_descriptor(tmp_path, config={"base_url": "ftp://nope"})
    result = cli("plugin", "register", "--no-check", str(path))
    assert result.exit_code == 1
    assert str(path) in result.stderr
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "ftp://" in text)
    assert f"config.base_url (line {line}): base_url 'ftp://nope' is not an http(s) URL" in (
        result.stderr
    )

    broken = tmp_path / "broken.json"
    broken.write_text('{"plugin_id": "x",\n  oops}')
    syntax = cli("plugin", "register", str(broken))
    assert syntax.exit_code == 1
    assert f"{broken}:2:" in syntax.stderr


def test_conflicts_replace_and_folder_plugins(cli: Callable[..., Any], tmp_path: Path) -> None:
    cli("plugin", "register", "--no-check", str(write_descriptor(tmp_path)))
    changed = write_descriptor(tmp_path, description="Read Slack history.")
    conflict = cli("plugin", "register", "--no-check", str(changed))
    assert conflict.exit_code == 1
    assert "--replace" in conflict.stderr
    # The conflict is named before the health check, which used to fail first (exit 5).
    checked = cli("plugin", "register", str(write_descriptor(tmp_path, description="Other.")))
    assert checked.exit_code == 1
    assert "already registered with a different descriptor" in checked.stderr
    assert cli("plugin", "register", "--no-check", "--replace", str(changed)).exit_code == 0

    folder = load_settings().user_plugins_dir / "notes"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "id: notes\nname: Notes\ndescription: Keep notes.\ntype: subprocess\n"
        "config: {command: python3}\n"
    )
    taken = cli("plugin", "register", "--no-check", str(write_descriptor(tmp_path, "notes")))
    assert taken.exit_code == 1
    assert "can never replace a folder plugin" in taken.stderr
    refused = cli("plugin", "unregister", "notes")
    assert refused.exit_code == 4
    assert "homeclaw plugin disable notes" in refused.stderr


def test_corrupt_file_is_backed_up_with_a_warning(cli: Callable[..., Any], tmp_path: Path) -> None:
    settings = load_settings()
    settings.external_plugins_file.parent.mkdir(parents=True, exist_ok=True)
    settings.external_plugins_file.write_text("{half a file")
    result = cli("plugin", "register", "--no-check", str(write_descriptor(tmp_path)))
    assert result.exit_code == 0
    assert "could not be read" in result.stderr
    backup = settings.external_plugins_file.with_name("external_plugins.json.bak")
    assert backup.read_text() == "{half a file"


def test_malformed_entries_are_reported_briefly_and_the_rest_still_load(
    cli: Callable[..., Any],
) -> None:
    settings = load_settings()
    settings.external_plugins_file.parent.mkdir(parents=True, exist_ok=True)
    good = {"plugin_id": "ok-bot", "name": "Ok", "description": "Fine.", "type": "inline"}
    for bad, message in (
        (3, "plugins[0]: each registration must be a JSON object"),
        ({"plugin_id": 4}, "plugins[0]: id: Input should be a valid string"),
    ):
        settings.external_plugins_file.write_text(json.dumps({"plugins": [bad, good]}))
        result = cli("plugin", "list")
        assert result.exit_code == 0, result.output
        assert "ok-bot" in result.stdout
        assert message in result.stderr
        assert "errors.pydantic.dev" not in result.stderr


def test_unhealthy_status_shows_in_plugin_list(cli: Callable[..., Any], tmp_path: Path) -> None:
    cli("plugin", "register", "--no-check", str(write_descriptor(tmp_path)))
    store = HealthStore(load_settings().state_dir)
    store.record("slack-bot", False, "HTTP 503", unhealthy_after=1)
    rows = payload(cli("plugin", "list", "--json"))
    assert rows[0]["status"] == "unhealthy"
    assert rows[0]["problem"] == "HTTP 503"
    plain = cli("plugin", "list")
    assert "unhealthy" in plain.stdout


def test_register_from_stdin(cli: Callable[..., Any], tmp_path: Path) -> None:
    text = write_descriptor(tmp_path).read_text()
    result = cli("plugin", "register", "--no-check", "-", input=text)
    assert result.exit_code == 0, result.output
    # A byte order mark (PowerShell pipes write one) is not part of the JSON, as in a file.
    bom = cli("plugin", "register", "--no-check", "-", input="\ufeff" + text)
    assert bom.exit_code == 0, bom.output


def test_stdin_is_read_with_the_guards_of_a_file(cli: Callable[..., Any], tmp_path: Path) -> None:
    # Nesting past the recursion limit crashed json.loads with a traceback.
    deep = cli("plugin", "register", "--no-check", "-", input="[" * 100_000 + "]" * 100_000)
    assert deep.exit_code == 1
    assert "<stdin>: JSON is nested deeper than" in deep.output
    assert "Traceback" not in deep.output
    levels = cli("plugin", "register", "--no-check", "-", input="[" * 100 + "]" * 100)
    assert levels.exit_code == 1  # far below the recursion limit, past the documents' limit
    assert "<stdin>: JSON is nested deeper than 64 levels" in levels.output
    broken = cli("plugin", "register", "--no-check", "-", input='{"plugin_id": ')
    assert broken.exit_code == 1
    assert "<stdin>:1:15: invalid JSON" in broken.output
    twice = cli(
        "plugin", "register", "--no-check", "-", input='{"plugin_id": "a",\n"plugin_id": "b"}'
    )
    assert twice.exit_code == 1
    assert "<stdin>:2:1: duplicate key 'plugin_id' (first on line 1)" in twice.output


def test_register_and_unregister_sync_the_index(
    cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.app import registration
    from homeclaw_cli.errors import UnavailableError

    synced: list[str] = []

    def fake_sync(settings: Any) -> None:
        synced.append("sync")
        if len(synced) == 3:
            raise UnavailableError("embedding model missing")

    monkeypatch.setattr(registration, "index_sync_function", lambda **_: fake_sync)
    path = write_descriptor(tmp_path)
    cli("plugin", "register", "--no-check", "--no-sync", str(path))
    assert synced == []
    cli("plugin", "unregister", "slack-bot")
    assert synced == ["sync"]
    cli("plugin", "register", "--no-check", str(path))
    assert synced == ["sync", "sync"]
    cli("plugin", "register", "--no-check", str(path))  # unchanged: nothing to sync
    assert len(synced) == 2
    failed = cli("plugin", "unregister", "slack-bot")
    assert failed.exit_code == 0
    assert "run `homeclaw sync`" in failed.stderr


def test_registered_plugin_is_retrieved_and_unhealthy_one_is_not(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = write_descriptor(
        tmp_path,
        description="Post messages to Slack channels.",
        description_long="Send a chat message to a Slack channel or read channel history.",
    )
    assert cli("plugin", "register", "--no-check", str(path)).exit_code == 0

    def search() -> dict[str, Any]:
        found = cli(
            "plugin", "search", "post a message to the slack channel", "--explain", "--json"
        )
        assert found.exit_code == 0, found.output
        return payload(found)

    assert [h["id"] for h in search()["hits"]] == ["slack-bot"]
    HealthStore(load_settings().state_dir).record("slack-bot", False, "down", unhealthy_after=1)
    result = search()
    assert result["hits"] == []
    reasons = {c["id"]: c["reason"] for c in result["candidates"]}
    assert reasons["slack-bot"] == "unhealthy: down"
    cli("plugin", "unregister", "slack-bot")
    assert "slack-bot" not in {c["id"] for c in search().get("candidates", [])}


def test_help_and_hints_do_not_cite_internal_specs(cli: Callable[..., Any], tmp_path: Path) -> None:
    assert "seed" not in cli("plugin", "register", "--help").stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"plugin_id": "x"}')
    result = cli("plugin", "register", "--no-check", str(bad))
    assert result.exit_code != 0 and "plugin_id" in result.stderr
    assert "seed" not in result.stderr


def test_a_folder_given_for_the_descriptor_is_named_as_one(cli: Any, tmp_path: Path) -> None:
    result = cli("plugin", "register", str(tmp_path))
    assert result.exit_code == 4
    assert f"{tmp_path} is a folder, not a file" in result.stderr


def test_relative_command_paths_are_warned_about(
    cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # They resolved against the folder homeclaw later ran in: `plugin call` from elsewhere (or
    # an MCP client's `mcp serve`) ran another file or none.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "server.py").write_text("print('hi')\n")
    monkeypatch.chdir(tmp_path)
    config = {"command": "python", "args": ["bin/server.py", "--port", "3"]}
    path = write_descriptor(tmp_path, "local", type="subprocess", config=config)
    result = cli("plugin", "register", "--no-check", "--json", str(path))
    assert result.exit_code == 0, result.output
    warnings = payload(result)["warnings"]
    assert len(warnings) == 1
    assert f"'bin/server.py' in the command of 'local' is relative to {tmp_path}" in warnings[0]
    config = {"command": "./bin/server.py", "args": [str(tmp_path / "bin" / "server.py")]}
    path = write_descriptor(tmp_path, "local", type="subprocess", config=config)
    result = cli("plugin", "register", "--no-check", "--replace", str(path))
    assert "'./bin/server.py' in the command of 'local'" in result.output
    assert "server.py'," not in result.output  # the absolute argument is fine


def test_a_command_that_is_not_there_is_warned_about(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    config = {"command": "/nonexistent/bin/server"}
    path = write_descriptor(tmp_path, "gone", type="subprocess", config=config)
    result = cli("plugin", "register", "--no-check", str(path))
    assert result.exit_code == 0, result.output
    assert "command '/nonexistent/bin/server' of 'gone' is not on PATH or not there" in (
        result.stderr
    )
    config = {"command": "python", "args": ["-c", "pass"]}
    path = write_descriptor(tmp_path, "here", type="subprocess", config=config)
    assert "warning" not in cli("plugin", "register", "--no-check", str(path)).stderr


def test_a_registration_a_bundled_plugin_hides_is_named(
    cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Registered while the bundled plugins were off, `weather` is later hidden by the
    bundled one: every listing says so instead of using the other plugin silently."""
    registered = cli("plugin", "register", "--no-check", str(write_descriptor(tmp_path, "weather")))
    assert registered.exit_code == 0, registered.output
    monkeypatch.delenv("HOMECLAW_NO_BUNDLED")
    listed = cli("plugin", "list")
    assert listed.exit_code == 0
    said = " ".join(listed.stderr.split())
    assert "your registered plugin weather is not used: the bundled plugin " in said
    assert "has that id (unregister it and register it under another)" in said
