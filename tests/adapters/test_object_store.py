from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.adapters import object_store
from homeclaw_cli.errors import ConfigError, ExitCode, object_store_error
from tests.fakes.index import settings_for


def test_storage_options_from_the_index_settings(tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path,
        **{
            "index.uri": "s3://team/index",
            "index.endpoint": "http://minio:9000",
            "index.region": "eu-west-1",
            "index.allow_http": True,
            "index.storage_options": {"AWS_S3_EXPRESS": "false"},
        },
    )
    options = object_store.storage_options(settings.index, settings.index_uri)
    assert options["aws_endpoint"] == "http://minio:9000"
    assert options["aws_region"] == "eu-west-1"
    assert options["allow_http"] == "true"
    assert options["aws_s3_express"] == "false"
    assert options["connect_timeout"] == "3s" and options["client_max_retries"] == "2"
    assert object_store.storage_options(settings.index, str(tmp_path / "index")) == {}


def test_a_named_profile_gives_its_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text(
        "[team]\naws_access_key_id = AKIATEAM\n"
        "aws_secret_access_key = s3cr3t\nregion = eu-north-1\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    keys = object_store.profile_credentials("team")
    assert keys == {
        "aws_access_key_id": "AKIATEAM",
        "aws_secret_access_key": "s3cr3t",
        "aws_region": "eu-north-1",
    }
    with pytest.raises(ConfigError, match=r"index\.profile: no AWS profile 'other'"):
        object_store.profile_credentials("other")


def test_manifest_names_of_both_lance_naming_schemes() -> None:
    assert object_store._manifest_version("18446744073709551585.manifest") == 30
    assert object_store._manifest_version("7.manifest") == 7
    assert object_store._manifest_version("d1234.manifest") is None


def test_store_errors_are_classified() -> None:
    refused = object_store_error("s3://b/i", ValueError("ListRequest ... status: 403, body"))
    assert refused is not None and refused.exit_code == ExitCode.CONFIG
    down = object_store_error("s3://b/i", ValueError("tcp connect error ConnectionRefused"))
    assert down is not None and down.exit_code == ExitCode.UNAVAILABLE
    assert object_store_error("/local/index", ValueError("tcp connect error")) is None


def test_config_show_masks_secrets(cli: object, hc_home: Path) -> None:
    from tests.json_output import payload

    (hc_home / "config.yaml").write_text(
        "llm: {api_key: sk-123, headers: {Authorization: Bearer xyz}}\n"
        "index: {storage_options: {aws_secret_access_key: abc, aws_region: us-east-1}}\n"
    )
    result = cli("config", "show", "--json")  # type: ignore[operator]
    values = payload(result)["values"]
    assert values["llm.api_key"]["value"] == "***"
    assert values["llm.headers"]["value"] == {"Authorization": "***"}
    storage = values["index.storage_options"]["value"]
    assert storage == {"aws_secret_access_key": "***", "aws_region": "us-east-1"}
    text = cli("config", "show").stdout  # type: ignore[operator]
    assert "sk-123" not in text and "xyz" not in text and "abc" not in text


def test_an_unreadable_shared_index_is_never_advice_to_delete_it() -> None:
    from homeclaw_cli.errors import index_store_error

    failure = RuntimeError("lance error: LanceError(IO): Execution error: odd reply, /x.rs:1:1")
    remote = index_store_error("s3://team/index", failure)
    assert remote is not None and "delete s3://" not in str(remote)
    assert "do not delete a shared index" in str(remote)
    local = index_store_error("/home/me/index", failure)
    assert local is not None and "sync --full" in str(local)
