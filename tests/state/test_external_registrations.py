"""register_external / unregister_external: no data lost, corrupt files backed up, locks held."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.errors import ConfigError, ConflictError, NotFoundError
from homeclaw_cli.state.external_registrations import (
    read_external_plugins,
    register_external,
    unregister_external,
)


def manifest(plugin_id: str, description: str = "Does one thing.") -> PluginManifest:
    return PluginManifest.model_validate(
        {
            "id": plugin_id,
            "name": plugin_id.title(),
            "description": description,
            "type": "http",
            "health_check_url": "http://127.0.0.1:3100/health",
            "config": {"base_url": "http://127.0.0.1:3100"},
        }
    )


@pytest.fixture
def paths(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "external_plugins.json", tmp_path / "state" / "external.lock"


def test_add_update_unchanged_and_conflict(paths: tuple[Path, Path]) -> None:
    path, lock = paths
    assert register_external(path, lock, manifest("a")).change == "added"
    assert register_external(path, lock, manifest("a")).change == "unchanged"
    with pytest.raises(ConflictError, match="already registered"):
        register_external(path, lock, manifest("a", "Changed."))
    assert register_external(path, lock, manifest("a", "Changed."), replace=True).change == (
        "updated"
    )
    stored, problems = read_external_plugins(path)
    assert problems == []
    assert [(m.id, m.description) for m in stored] == [("a", "Changed.")]
    assert json.loads(path.read_text())["plugins"][0]["plugin_id"] == "a"


def test_corrupt_file_is_backed_up_and_reported_never_silently_emptied(
    paths: tuple[Path, Path],
) -> None:
    path, lock = paths
    path.write_text('{"version": 1, "plugins": [{"plugin_id": "old"')
    first = register_external(path, lock, manifest("new"))
    assert first.backup == path.with_name("external_plugins.json.bak")
    assert first.corrupt_reason is not None
    assert "invalid JSON" in first.corrupt_reason
    assert first.backup.read_text() == '{"version": 1, "plugins": [{"plugin_id": "old"'
    assert [m.id for m in read_external_plugins(path)[0]] == ["new"]

    path.write_text("[oops")  # a second corruption never overwrites the first backup
    second = register_external(path, lock, manifest("newer"))
    assert second.backup == path.with_name("external_plugins.json.bak.1")
    assert first.backup.read_text().startswith('{"version": 1')


def test_unregister_refuses_to_touch_a_corrupt_file(paths: tuple[Path, Path]) -> None:
    path, lock = paths
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot be read"):
        unregister_external(path, lock, "a")
    assert path.read_text() == "{not json"


def test_entries_this_version_cannot_read_are_kept(paths: tuple[Path, Path]) -> None:
    path, lock = paths
    future = {"plugin_id": "future", "name": "F", "description": "d", "type": "grpc"}
    path.write_text(json.dumps({"version": 1, "plugins": [future]}))
    register_external(path, lock, manifest("a"))
    unregister_external(path, lock, "a")
    assert json.loads(path.read_text())["plugins"] == [future]


def test_unregister_unknown_names_the_registered_ones(paths: tuple[Path, Path]) -> None:
    path, lock = paths
    register_external(path, lock, manifest("alpha"))
    with pytest.raises(NotFoundError) as info:
        unregister_external(path, lock, "beta")
    assert info.value.hint == "registered: alpha"


def test_concurrent_writers_lose_nothing(paths: tuple[Path, Path]) -> None:
    path, lock = paths
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            register_external(path, lock, manifest(f"p{i}"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(m.id for m in read_external_plugins(path)[0]) == sorted(
        f"p{i}" for i in range(50)
    )
