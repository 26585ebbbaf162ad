from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.index import write_plugin
from tests.json_output import payload


def test_sync_json_summary_then_nothing_to_do(cli: Any, index_env: dict[str, Any]) -> None:
    result = cli("sync", "--json")
    assert result.exit_code == 0, result.output
    data = payload(result)
    assert (data["added"], data["updated"], data["removed"]) == (7, 0, 0)
    assert data["kinds"]["plugins"]["added"] == ["calculator", "slack", "timer", "weather"]
    assert set(data) >= {"added", "updated", "removed", "unchanged", "errors", "seconds"}
    index_env["models"].reset()
    data = payload(cli("sync", "--json"))
    assert data["added"] == 0 and data["unchanged"] == 7


def test_sync_text_and_quiet(cli: Any, index_env: dict[str, Any]) -> None:
    result = cli("sync")
    assert result.exit_code == 0
    assert "synced: 7 added, 0 updated, 0 removed, 0 unchanged" in result.stdout
    quiet = cli("sync", "--quiet")
    assert quiet.exit_code == 0
    assert quiet.stdout == "" and quiet.stderr == ""


def test_check_exits_1_when_stale_and_0_when_current(cli: Any, index_env: dict[str, Any]) -> None:
    stale = cli("sync", "--check")
    assert stale.exit_code == 1
    assert "index stale" in stale.stdout
    assert not (index_env["home"] / "data" / "index").exists()  # --check writes nothing
    assert cli("sync").exit_code == 0
    # the test dir is re-embedded by every sync but is not "stale" by itself
    current = cli("sync", "--check")
    assert current.exit_code == 0, current.stdout
    assert "up to date" in current.stdout
    assert cli("sync", "--check", "--quiet").stdout == ""
    write_plugin(index_env["plugins"], "news", "News", "Headlines.")
    assert cli("plugin", "sync", "--check").exit_code == 1
    quiet = cli("sync", "--check", "--quiet")  # cron mails what a failing check prints
    assert quiet.exit_code == 1
    assert "index stale: would change 1 added" in quiet.stdout
    assert cli("skill", "sync", "--check").exit_code == 0


def test_plugin_sync_and_skill_sync_touch_only_their_kind(
    cli: Any, index_env: dict[str, Any]
) -> None:
    data = payload(cli("plugin", "sync", "--json"))
    assert list(data["kinds"]) == ["plugins"]
    data = payload(cli("skill", "sync", "--json"))
    assert list(data["kinds"]) == ["skills"]
    assert data["kinds"]["skills"]["added"] == ["haiku", "summarize", "test__draft"]


def test_sync_reports_the_lock_holder(cli: Any, index_env: dict[str, Any]) -> None:
    from homeclaw_cli.fsutil import file_lock

    lock = index_env["home"] / "data" / "state" / "index.lock"
    with file_lock(lock):
        result = cli("sync", "--lock-timeout", "0")
    assert result.exit_code == 6
    assert f"another homeclaw process (pid {os.getpid()}) is writing the index" in result.stderr


def test_a_damaged_lance_table_says_sync_full(cli: Any, index_env: dict[str, Any]) -> None:
    assert cli("sync").exit_code == 0
    index = index_env["home"] / "data" / "index"
    shutil.rmtree(index / ".homeclaw-snapshots")
    for data_file in (index / "homeclaw_plugins.lance" / "data").iterdir():
        data_file.unlink()
    for argv in (("plugin", "search", "slack"), ("sync",)):
        result = cli(*argv)
        assert result.exit_code == 1, result.output
        assert "the search index at" in result.stderr and "is damaged" in result.stderr
        assert "run `homeclaw sync --full`" in result.stderr
    doctor = cli("doctor", "--host", "http://127.0.0.1:9")
    rows = doctor.stdout.splitlines()
    assert any(row.startswith("index\tfail\t") and "damaged" in row for row in rows)
    shutil.rmtree(index)
    assert cli("sync").exit_code == 0
    assert cli("plugin", "search", "slack").exit_code == 0


def test_sync_full_rebuilds_overwritten_data_files(cli: Any, index_env: dict[str, Any]) -> None:
    assert cli("sync").exit_code == 0
    index = index_env["home"] / "data" / "index"
    examples = index / "examples" / "kept.json"
    examples.parent.mkdir()
    examples.write_text("{}", encoding="utf-8")
    for data_file in (index / "homeclaw_plugins.lance" / "data").iterdir():
        data_file.write_bytes(os.urandom(100))
    write_plugin(index_env["plugins"], "news", "News", "Headlines.")  # a change to write
    first = cli("sync")
    assert first.exit_code == 1, first.output
    assert "the search index at" in first.stderr and "is damaged" in first.stderr
    assert "Traceback" not in first.stderr and "run `homeclaw sync --full`" in first.stderr
    full = cli("sync", "--full")
    assert full.exit_code == 0, full.output
    assert "plugins: rebuilt (the table was damaged (" in full.output
    assert examples.read_text(encoding="utf-8") == "{}"
    assert cli("sync", "--check").exit_code == 0
    assert "news" in cli("plugin", "search", "headlines").stdout


def test_a_deleted_table_is_written_again_with_every_row(
    cli: Any, index_env: dict[str, Any]
) -> None:
    assert cli("sync").exit_code == 0
    shutil.rmtree(index_env["home"] / "data" / "index" / "homeclaw_plugins.lance")
    check = cli("sync", "--check")
    assert check.exit_code == 1, check.stdout
    assert "would change 4 added" in check.stdout
    write_plugin(index_env["plugins"], "news", "News", "Headlines.")
    data = payload(cli("sync", "--json"))
    assert data["kinds"]["plugins"]["added"] == ["calculator", "news", "slack", "timer", "weather"]
    assert cli("sync", "--check").exit_code == 0


def test_a_full_disk_is_not_called_a_damaged_index(
    cli: Any, index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.adapters.vector_store import VectorStore

    assert cli("sync").exit_code == 0
    write_plugin(index_env["plugins"], "news", "News", "Headlines.")

    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            "lance error: LanceError(IO): No space left on device (os error 28), "
            "/build/lance-io/src/object_writer.rs:120:25"
        )

    monkeypatch.setattr(VectorStore, "upsert", disk_full)
    result = cli("sync")
    assert result.exit_code == 1, result.output
    assert "error: no space left to write the search index at" in result.stderr
    assert "No space left on device (os error 28))" in result.stderr
    assert "free some space on that disk" in result.stderr
    assert "damaged" not in result.stderr and "--full" not in result.stderr


def test_a_home_that_is_a_file_is_named_without_a_traceback(cli: Any, tmp_path: Path) -> None:
    home = tmp_path / "home.txt"
    home.write_text("not a folder", encoding="utf-8")
    result = cli("sync", env={"HOMECLAW_HOME": str(home), "HOMECLAW_NO_BUNDLED": "1"})
    assert result.exit_code == 3, result.output
    assert f"error: {home} is a file where homeclaw needs a folder" in result.stderr
    assert "set HOMECLAW_HOME" in result.stderr


def test_a_file_where_the_index_folder_belongs_is_named(cli: Any, hc_home: Path) -> None:
    index = hc_home / "data" / "index"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text("not a folder", encoding="utf-8")
    result = cli("plugin", "search", "weather")
    assert result.exit_code == 3, result.output
    assert f"error: {index} is a file where homeclaw needs a folder" in result.stderr
    assert "File exists" not in result.stderr
