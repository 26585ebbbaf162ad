"""The index on object storage, through the CLI, against a real S3-compatible server (moto).

Two HOMECLAW_HOMEs stand for two machines sharing one s3:// index (docs/team.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.fakes.index import write_plugin
from tests.fakes.s3 import S3Server
from tests.json_output import payload

pytestmark = pytest.mark.slow

# The real CLI entry point in a subprocess, with the fake embedder (no model download).
SYNC_SCRIPT = """
import sys
from tests.fakes.embedder import install_globally
install_globally()
from homeclaw_cli.surfaces.cli.main import main
sys.argv = ["homeclaw", *sys.argv[1:]]
main()
"""


def _bucket(s3: S3Server) -> str:
    name = f"team-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(name)
    return name


def _use_s3(monkeypatch: pytest.MonkeyPatch, s3: S3Server, bucket: str) -> None:
    for key, value in s3.env(bucket).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOMECLAW_INDEX__REFRESH_INTERVAL_SEC", "0")


def _second_home(
    tmp_path: Path, plugin_dirs: list[Path], name: str = "home-b", user_dir: Path | None = None
) -> Path:
    home = tmp_path / name
    home.mkdir()
    plugins: dict[str, Any] = {"dirs": [str(d) for d in plugin_dirs]}
    if user_dir is not None:
        plugins["user_dir"] = str(user_dir)  # the same source as home A's: the same row hash
    config = {"bundled": False, "plugins": plugins}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return home


def _hits(result: Any) -> list[str]:
    return [hit["id"] for hit in payload(result)["hits"]]


def _table(s3: S3Server, bucket: str, table: str = "homeclaw_plugins") -> Any:
    import lancedb

    options = {
        "aws_endpoint": s3.endpoint,
        "aws_region": "us-east-1",
        "allow_http": "true",
        "aws_access_key_id": s3.key_id,
        "aws_secret_access_key": s3.secret,
    }
    return lancedb.connect(f"s3://{bucket}/index", storage_options=options).open_table(table)


def _table_ids(s3: S3Server, bucket: str, table: str = "homeclaw_plugins") -> list[str]:
    handle = _table(s3, bucket, table)
    rows = handle.search().select(["id"]).limit(100_000).to_list()
    return [str(r["id"]) for r in rows]


@pytest.mark.timeout(300)
def test_sync_and_search_on_s3_then_a_second_home_sees_the_change(
    cli: Any,
    index_env: dict[str, Any],
    s3_server: S3Server,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    bucket = _bucket(s3_server)
    _use_s3(monkeypatch, s3_server, bucket)
    data = payload(cli("sync", "--json"))
    assert data["kinds"]["plugins"]["added"] == ["calculator", "slack", "timer", "weather"]
    assert sorted(_table_ids(s3_server, bucket)) == ["calculator", "slack", "timer", "weather"]
    assert _hits(cli("plugin", "search", "weather forecast rain", "--json"))[0] == "weather"

    home_b = _second_home(tmp_path, [], user_dir=index_env["plugins"])
    other = {"HOMECLAW_HOME": str(home_b)}
    index_env["models"].reset()
    assert _hits(cli("plugin", "search", "weather forecast rain", "--json", env=other))[0] == (
        "weather"
    )
    cache = home_b / "data" / "index-cache"
    assert any(cache.rglob("vectors.npy")), "home B built its own snapshot from the table"
    embedded = index_env["models"].get("all-MiniLM-L6-v2").calls
    assert embedded == ["weather forecast rain"], "home B embeds the query only, no descriptor"

    write_plugin(index_env["plugins"], "news", "News", "Today's headlines from the newspapers.")
    assert payload(cli("plugin", "sync", "--json"))["kinds"]["plugins"]["added"] == ["news"]
    assert _hits(cli("plugin", "search", "newspaper headlines", "--json", env=other))[0] == "news"
    # the store goes away: home B answers from its last copy instead of failing
    dead = {**other, "HOMECLAW_INDEX__ENDPOINT": "http://127.0.0.1:9"}
    assert _hits(cli("plugin", "search", "newspaper headlines", "--json", env=dead))[0] == "news"
    # home B has the same plugins (the shared folder): its check agrees with home A's
    check = cli("plugin", "sync", "--check", env=other)
    assert check.exit_code == 0, check.output
    assert cli("plugin", "sync", "--check").exit_code == 0


@pytest.mark.timeout(300)
def test_a_shared_table_keeps_its_row_ids_through_a_compaction(
    cli: Any, index_env: dict[str, Any], s3_server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Concurrent syncs drop duplicate rows by row id; another machine's compaction between
    the read and the delete must not renumber them."""
    bucket = _bucket(s3_server)
    _use_s3(monkeypatch, s3_server, bucket)
    assert cli("sync").exit_code == 0
    table = _table(s3_server, bucket)
    table.delete("id = 'slack'")
    before = table.search().with_row_id(True).select(["id"]).to_list()
    table.optimize()
    after = _table(s3_server, bucket).search().with_row_id(True).select(["id"]).to_list()
    assert sorted((r["id"], r["_rowid"]) for r in after) == sorted(
        (r["id"], r["_rowid"]) for r in before
    )


def _run_sync(home: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    full = {**os.environ, **env, "HOMECLAW_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", SYNC_SCRIPT, "plugin", "sync", "--json"],
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=home,
    )


@pytest.mark.timeout(600)  # five sync processes; minutes on a loaded 2-core CI machine
def test_two_concurrent_syncs_from_two_homes_lose_nothing(
    hc_home: Path, s3_server: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bucket = _bucket(s3_server)
    _use_s3(monkeypatch, s3_server, bucket)
    shared, own_a, own_b = tmp_path / "shared", tmp_path / "own-a", tmp_path / "own-b"
    for i in range(30):
        write_plugin(shared, f"shared-{i:02d}", f"Shared {i}", f"Common task number {i}.")
        write_plugin(own_a, f"alpha-{i:02d}", f"Alpha {i}", f"Only machine A does {i}.")
        write_plugin(own_b, f"beta-{i:02d}", f"Beta {i}", f"Only machine B does {i}.")
    homes = [
        _second_home(tmp_path, [shared, own], name)
        for name, own in (("machine-a", own_a), ("machine-b", own_b))
    ]
    env = {**s3_server.env(bucket), "HOMECLAW_INDEX__REFRESH_INTERVAL_SEC": "0"}
    runs = [_run_sync(home, env) for home in homes]
    for run in runs:
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err

    ids = _table_ids(s3_server, bucket)
    assert len(ids) == len(set(ids)) == 90, "every descriptor of both, each once"
    for home in homes:
        check = _run_sync_check(home, env)
        assert check.returncode == 0, check.stdout + check.stderr

    # a machine deletes only what it removed itself, never the other machine's rows
    for i in range(5):
        (own_a / f"alpha-{i:02d}" / "plugin.yaml").unlink()
        (own_a / f"alpha-{i:02d}").rmdir()
    run = _run_sync(homes[0], env)
    _, err = run.communicate(timeout=240)
    assert run.returncode == 0, err
    ids = _table_ids(s3_server, bucket)
    assert len(ids) == 85 and not any(i.startswith("alpha-0") and i < "alpha-05" for i in ids)
    assert sum(i.startswith("beta-") for i in ids) == 30

    # a row of A's lost on the store (e.g. to a concurrent first create): A's next sync,
    # with nothing changed locally, sees the table moved on and puts it back
    _table(s3_server, bucket).delete("id = 'alpha-10'")
    run = _run_sync(homes[0], env)
    _, err = run.communicate(timeout=240)
    assert run.returncode == 0, err
    assert "alpha-10" in _table_ids(s3_server, bucket)


def _run_sync_check(home: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env, "HOMECLAW_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-c", SYNC_SCRIPT, "plugin", "sync", "--check"],
        env=full,
        capture_output=True,
        text=True,
        cwd=home,
        timeout=120,
    )


def test_wrong_endpoint_and_wrong_keys_fail_fast_with_the_setting_to_fix(
    cli: Any, index_env: dict[str, Any], s3_server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = _bucket(s3_server)
    _use_s3(monkeypatch, s3_server, bucket)
    monkeypatch.setenv("HOMECLAW_INDEX__ENDPOINT", "http://127.0.0.1:9")  # nothing listens
    started = time.monotonic()
    result = cli("sync")
    assert time.monotonic() - started < 20
    assert result.exit_code == 5, result.output
    assert "cannot reach the object store" in result.stderr
    assert "index.endpoint" in result.stderr

    monkeypatch.setenv("HOMECLAW_INDEX__ENDPOINT", s3_server.endpoint)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    result = cli("sync")
    assert result.exit_code == 3, result.output
    assert "refused the credentials" in result.stderr
    assert "AWS_SECRET_ACCESS_KEY" in result.stderr
    doctor = payload(cli("doctor", "--json"))
    index = next(c for c in doctor if c["name"] == "index store")
    assert index["status"] == "fail" and "AWS_ACCESS_KEY_ID" in index["fix"]

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3_server.secret)
    doctor = payload(cli("doctor", "--json"))
    index = next(c for c in doctor if c["name"] == "index store")
    assert index["status"] == "ok" and "writable" in index["detail"]


def test_a_missing_bucket_fails_sync_check_with_exit_3_not_a_stale_index(
    cli: Any, index_env: dict[str, Any], s3_server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the cron line of docs/team.md: "stale" (exit 1) would hide a typo in index.uri
    _use_s3(monkeypatch, s3_server, f"absent-{uuid.uuid4().hex[:8]}")
    result = cli("sync", "--check")
    assert result.exit_code == 3, result.output
    assert "does not exist" in result.stderr and "index.uri" in result.stderr

    # an existing bucket without the table yet is a new index: stale, exit 1
    _use_s3(monkeypatch, s3_server, _bucket(s3_server))
    result = cli("sync", "--check")
    assert result.exit_code == 1, result.output
    assert "stale" in result.output


def test_doctor_on_an_object_store_prints_no_lancedb_log_lines(
    hc_home: Path, s3_server: S3Server, tmp_path: Path
) -> None:
    # LanceDB's Rust logger writes to fd 2 itself: only a real process shows it
    env = {**os.environ, **s3_server.env(_bucket(s3_server)), "PYTHONPATH": str(REPO_ROOT)}
    env.pop("LANCEDB_LOG", None)
    done = subprocess.run(
        [sys.executable, "-c", SYNC_SCRIPT, "doctor"],
        env={**env, "HOMECLAW_HOME": str(_second_home(tmp_path, []))},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "reachable and writable" in done.stdout, done.stdout + done.stderr
    assert "lance::" not in done.stderr and "WARN" not in done.stderr, done.stderr
