"""An object-store index.uri whose path LanceDB would cut short is refused before any request.

LanceDB reads index.uri as a URL: s3://team/a#b put every table into s3://team/a itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.json_output import payload


@pytest.mark.parametrize(
    ("uri", "named"), [("s3://team/a#b", "'#'"), ("s3://team/my index", "a space")]
)
def test_an_index_uri_with_a_fragment_or_space_is_a_config_error_naming_it(
    cli: Any, index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch, uri: str, named: str
) -> None:
    monkeypatch.setenv("HOMECLAW_INDEX__URI", uri)
    monkeypatch.setenv("HOMECLAW_INDEX__ENDPOINT", "http://127.0.0.1:9")  # never reached
    for command in (("sync",), ("sync", "--check"), ("plugin", "search", "rain")):
        result = cli(*command)
        assert result.exit_code == 3, result.output
        assert f"index.uri {uri}: {named}" in result.stderr
        assert "s3://team/homeclaw-index" in result.stderr
    checks = payload(cli("doctor", "--json"))
    store = next(c for c in checks if c["name"] == "index store")
    assert store["status"] == "fail" and named in store["detail"]


def test_the_dynamodb_commit_store_query_is_not_refused(
    cli: Any, index_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOMECLAW_INDEX__URI", "s3+ddb://team/index?ddbTableName=commits")
    result = cli("config", "show")
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("HOMECLAW_INDEX__ENDPOINT", "http://127.0.0.1:9")
    result = cli("sync", "--check")
    assert "cannot be part of an object-store path" not in result.output + result.stderr
