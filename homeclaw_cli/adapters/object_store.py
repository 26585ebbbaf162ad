"""An index on object storage (s3://, gs://, az://): LanceDB's storage options and a cheap probe.

LanceDB talks to the store itself (its Rust object_store client); this module only turns the
`index.*` settings into its `storage_options` (endpoint, region, allow_http, a named AWS
profile's keys, short timeouts and few retries, so a wrong endpoint fails in seconds) and
answers "what is the table's latest version?" without importing lancedb (~1-3 s): a Lance
table's versions are the manifests in `<table>.lance/_versions/`, listed with pyarrow's S3
client. Any other store, or a probe that fails, falls back to asking LanceDB.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any

from homeclaw_cli.errors import ConfigError

REMOTE_SCHEMES = ("s3://", "s3+ddb://", "gs://", "az://", "abfs://")
_U64_MAX = 2**64 - 1
_RETRYABLE = ("conflict", "retryable", "incompatible transaction")
# LanceDB parses index.uri as a URL: '#' and '?' end the path (s3://team/a#b writes every table
# into s3://team/a itself), and spaces or '%' are signed differently from how they are sent.
_UNSAFE_IN_PATH = re.compile(r"[#?%\s]")


def is_remote(uri: str) -> bool:
    """True for an object-store URI (anything with a scheme other than file://)."""
    return "://" in uri and not uri.startswith("file://")


def cache_dir(data_dir: Path, uri: str) -> Path:
    """Where this machine keeps the query snapshots of the remote index at `uri`."""
    return data_dir / "index-cache" / hashlib.sha256(uri.encode()).hexdigest()[:16]


def storage_options(index: Any, uri: str) -> dict[str, str]:
    """LanceDB storage_options from the `index` settings; empty for a local index."""
    if not is_remote(uri):
        return {}
    check_path(uri)
    options: dict[str, str] = {
        "connect_timeout": f"{index.connect_timeout_sec:g}s",
        "timeout": f"{index.timeout_sec:g}s",
        "client_max_retries": str(index.max_retries),
        "client_retry_timeout": str(int(max(5.0, index.connect_timeout_sec * 3))),
    }
    s3 = uri.startswith(("s3://", "s3+ddb://"))
    if index.endpoint:
        options["aws_endpoint" if s3 else "azure_storage_endpoint"] = index.endpoint
    if index.region and s3:
        options["aws_region"] = index.region
    if index.allow_http:
        options["allow_http"] = "true"
    if index.profile:
        options.update(profile_credentials(index.profile))
    options.update({k.lower(): str(v) for k, v in index.storage_options.items()})
    return options


def check_path(uri: str) -> None:
    """Refuse an object-store `uri` whose path LanceDB would cut short or mis-sign."""
    path = uri.partition("://")[2]
    if uri.startswith("s3+ddb://"):
        path = path.partition("?")[0]  # ?ddbTableName=... is the commit store's option
    bad = sorted(set(_UNSAFE_IN_PATH.findall(path)))
    if bad:
        shown = ", ".join("a space" if c.isspace() else repr(c) for c in bad)
        raise ConfigError(
            f"index.uri {uri}: {shown} cannot be part of an object-store path "
            "(LanceDB reads the URI as a URL, so the tables would land somewhere else)",
            hint="use letters, digits, '-', '_', '.' and '/' after the bucket, "
            "e.g. s3://team/homeclaw-index, in the config file (`homeclaw config path`)",
        )


def profile_credentials(profile: str) -> dict[str, str]:
    """The keys (and region) of AWS named profile `profile` from ~/.aws/credentials + config."""
    home = Path.home() / ".aws"
    files = {
        "credentials": Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE", home / "credentials")),
        "config": Path(os.environ.get("AWS_CONFIG_FILE", home / "config")),
    }
    parser = configparser.ConfigParser()
    parser.read([files["credentials"], files["config"]], encoding="utf-8")
    section = profile if parser.has_section(profile) else f"profile {profile}"
    if not parser.has_section(section) or not parser.has_option(section, "aws_access_key_id"):
        raise ConfigError(
            f"index.profile: no AWS profile {profile!r} with aws_access_key_id in "
            f"{files['credentials']}",
            hint="add the profile there, or drop index.profile and set AWS_ACCESS_KEY_ID",
        )
    out = {}
    for key in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token", "region"):
        value = parser.get(section, key, fallback=None)
        if value:
            out["aws_region" if key == "region" else key] = value
    return out


def latest_version(uri: str, table: str, options: dict[str, str]) -> int | None:
    """The newest version of `table` by listing its manifests (s3 only): 0 when the table
    has none (it does not exist); None when unknown (another store, or the listing failed)."""
    if not uri.startswith("s3://"):
        return None
    try:
        from pyarrow import fs

        s3 = _s3_filesystem(options)
        path = f"{uri.removeprefix('s3://').rstrip('/')}/{table}.lance/_versions"
        names = [i.base_name for i in s3.get_file_info(fs.FileSelector(path, allow_not_found=True))]
        # A missing bucket lists as empty too: "no table" there would read as a new index
        bucket = path.partition("/")[0]
        if not names and s3.get_file_info(bucket).type == fs.FileType.NotFound:
            return None
    except Exception:  # any failure: the caller asks LanceDB, which reports it properly
        return None
    versions = [_manifest_version(n) for n in names if n.endswith(".manifest")]
    return max((v for v in versions if v is not None), default=0)


def _manifest_version(name: str) -> int | None:
    stem = name.removesuffix(".manifest")
    if not stem.isdigit():
        return None  # detached or temporary manifests
    number = int(stem)
    # Lance's V2 naming stores u64::MAX - version, so the newest sorts first.
    return _U64_MAX - number if number > 2**63 else number


def _s3_filesystem(options: dict[str, str]) -> Any:
    from pyarrow import fs

    env = os.environ
    endpoint = (
        options.get("aws_endpoint")
        or env.get("AWS_ENDPOINT_URL_S3")
        or env.get("AWS_ENDPOINT_URL")
        or env.get("AWS_ENDPOINT")
    )
    kwargs: dict[str, Any] = {
        "region": options.get("aws_region") or env.get("AWS_REGION") or "us-east-1",
        "connect_timeout": float(options.get("connect_timeout", "3s").rstrip("s")),
        "request_timeout": float(options.get("timeout", "30s").rstrip("s")),
        "retry_strategy": fs.AwsStandardS3RetryStrategy(max_attempts=1),
    }
    if endpoint:
        scheme, _, host = endpoint.rpartition("://")
        kwargs.update(endpoint_override=host.rstrip("/"), scheme=scheme or "https")
    if options.get("aws_access_key_id"):
        kwargs.update(
            access_key=options["aws_access_key_id"],
            secret_key=options.get("aws_secret_access_key", ""),
            session_token=options.get("aws_session_token"),
        )
    return fs.S3FileSystem(**kwargs)


def retry_commit(commit: Any, attempts: int = 6) -> Any:
    """Run one LanceDB commit, again after a short pause when another writer's commit won."""
    for attempt in range(attempts):
        try:
            return commit()
        except (RuntimeError, OSError, ValueError) as exc:
            text = str(exc).lower()
            if attempt == attempts - 1 or not any(w in text for w in _RETRYABLE):
                raise
            time.sleep(0.2 * 2**attempt)
    return None
