"""An s3+ddb:// index (LanceDB's DynamoDB commit store, docs/team.md) whose commit store cannot
be reached is a network problem (exit 5) in every command, never a damaged index to delete."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.chat_plugins import write_test_plugins
from tests.fakes.ollama_server import FakeOllama, text
from tests.fakes.s3 import S3Server
from tests.json_output import payload

pytestmark = pytest.mark.slow

DEAD = "http://127.0.0.1:9"  # nothing listens


def _use_commit_store(monkeypatch: pytest.MonkeyPatch, s3: S3Server, dynamodb_endpoint: str) -> str:
    bucket = f"team-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(bucket)
    for key, value in s3.env(bucket).items():
        monkeypatch.setenv(key, value)
    uri = f"s3+ddb://{bucket}/index?ddbTableName=commits"
    monkeypatch.setenv("HOMECLAW_INDEX__URI", uri)
    monkeypatch.setenv(
        "HOMECLAW_INDEX__STORAGE_OPTIONS", f'{{"dynamodb_endpoint": "{dynamodb_endpoint}"}}'
    )
    return uri


def test_an_unreachable_commit_store_is_exit_5_and_never_advice_to_delete(
    cli: Callable[..., Any],
    index_env: dict[str, Any],
    s3_server: S3Server,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uri = _use_commit_store(monkeypatch, s3_server, DEAD)
    for command in (("sync",), ("sync", "--check"), ("plugin", "search", "slack")):
        result = cli(*command)
        assert result.exit_code == 5, (command, result.output)
        assert f"cannot reach the commit store (DynamoDB endpoint) of index.uri {uri}" in (
            result.stderr
        )
        assert "dynamodb_endpoint" in result.stderr
        assert "the search index at" not in result.stderr and "delete" not in result.stderr
    checks = payload(cli("doctor", "--json"))
    store = next(c for c in checks if c["name"] == "index store")
    assert store["status"] == "fail" and "commit store (DynamoDB endpoint)" in store["detail"]
    assert ".rs:" not in store["detail"] and "delete" not in store["fix"]


def test_a_missing_commit_table_names_the_table_and_its_keys(
    cli: Callable[..., Any],
    index_env: dict[str, Any],
    s3_server: S3Server,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _use_commit_store(monkeypatch, s3_server, s3_server.endpoint)  # moto: no such table
    result = cli("sync")
    assert result.exit_code == 3, result.output
    assert "the DynamoDB table commits" in result.stderr and "does not exist" in result.stderr
    assert "base_uri" in result.stderr and "delete" not in result.stderr


def test_chat_says_the_commit_store_is_unreachable_in_one_line(
    cli: Callable[..., Any],
    s3_server: S3Server,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
) -> None:
    _use_commit_store(monkeypatch, s3_server, DEAD)
    plugins = write_test_plugins(tmp_path / "plugins")
    with FakeOllama() as fake:
        fake.add_model("llama3.2")
        fake.script(text("ok"), text("ok"), text("ok"))
        result = cli(
            "--plugins-dir",
            str(plugins),
            "chat",
            "--host",
            fake.host,
            "-q",
            "hello",
            env={"HOMECLAW_NO_BUNDLED": "1"},
        )
    assert result.exit_code == 0, result.output
    assert "cannot reach the commit store (DynamoDB endpoint)" in result.stderr
    assert ".rs:" not in result.stderr and "delete" not in result.stderr
