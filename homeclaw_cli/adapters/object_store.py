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
import socket
import time
import urllib.parse
from pathlib import Path
from typing import Any

from homeclaw_cli.errors import ConfigError, unreachable_store

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
    if not uri.startswith("s3://") or unreachable_endpoint(options):
        return None  # LanceDB then reports the store (an unreachable one at once)
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


def _s3_endpoint(options: dict[str, str]) -> str | None:
    env = os.environ
    return (
        options.get("aws_endpoint")
        or env.get("AWS_ENDPOINT_URL_S3")
        or env.get("AWS_ENDPOINT_URL")
        or env.get("AWS_ENDPOINT")
    )


def _s3_filesystem(options: dict[str, str]) -> Any:
    from pyarrow import fs

    env = os.environ
    endpoint = _s3_endpoint(options)
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


_REMEMBER_SEC = 5.0  # one command asks several times; a long-lived serve or chat asks again
_unreachable: dict[str, tuple[float, str]] = {}


def require_reachable(uri: str, options: dict[str, str]) -> None:
    """UnavailableError, before LanceDB is imported, for an s3 index whose endpoint takes no
    connection."""
    if uri.startswith(("s3://", "s3+ddb://")):
        reason = unreachable_endpoint(options)
        if reason:
            raise unreachable_store(uri, reason)


def unreachable_endpoint(options: dict[str, str]) -> str | None:
    """Why the S3 endpoint set in `options` (or AWS_ENDPOINT_URL*) takes no connection, tried
    1 + client_max_retries times with connect_timeout each; None when it does, or when there is
    no endpoint to try directly (AWS's own, or one behind a proxy).

    LanceDB repeats a failed request at each of several steps of opening a table (about
    seven, each with its own retries), so a dead endpoint took ~7 times what the settings say.
    """
    endpoint = _s3_endpoint(options)
    proxied = options.get("proxy_url") or any(
        os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")
    )
    if not endpoint or proxied:
        return None
    seen = _unreachable.get(endpoint)
    if seen is not None and time.monotonic() - seen[0] < _REMEMBER_SEC:
        return seen[1]
    url = urllib.parse.urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
    host = url.hostname or ""
    port = url.port or (80 if url.scheme == "http" else 443)
    timeout = _seconds(options.get("connect_timeout", "3s"))
    tries = 1 + int(options.get("client_max_retries", "2") or 0)
    reason = ""
    for attempt in range(tries):
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except socket.gaierror as exc:
            reason = f"unknown host {host} ({exc.strerror})"
            break
        except TimeoutError:
            reason = f"{host}:{port} did not answer within {timeout:g} s"
        except OSError as exc:
            reason = f"{host}:{port}: {exc.strerror or exc}"
        else:
            _unreachable.pop(endpoint, None)
            return None
        if attempt < tries - 1:
            time.sleep(0.1 * 2**attempt)
    _unreachable[endpoint] = (time.monotonic(), reason)
    return reason


def _seconds(duration: str) -> float:
    """'3s', '500ms' or '3' (a LanceDB duration option) in seconds; 3 when unreadable."""
    text = duration.strip().lower()
    scale = 0.001 if text.endswith("ms") else 1.0
    try:
        return float(text.removesuffix("ms").removesuffix("s")) * scale
    except ValueError:
        return 3.0
