"""One exception tree and the exit codes the CLI maps it to.

    HomeclawError                 message + hint (the fix), exit_code
     ├── UsageError               bad flags/arguments                      -> USAGE (2)
     ├── ConfigError              config file / env / flag values          -> CONFIG (3)
     ├── NotFoundError            unknown plugin, skill, file              -> NOT_FOUND (4)
     ├── ManifestError            a descriptor failed validation           -> FAILURE (1)
     ├── UnavailableError         Ollama, a plugin server, MCP unreachable -> UNAVAILABLE (5)
     ├── LockedError              another process holds the index lock    -> LOCKED (6)
     ├── ConflictError            an id is taken (registration)            -> FAILURE (1)
     ├── PluginCallError          a plugin ran and failed                  -> FAILURE (1)
     └── InterruptError           Ctrl-C stopped it                        -> INTERRUPTED (130)

Lower layers raise these with sentences a user can act on; only the CLI entry point turns
them into stderr text and an exit status.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class ExitCode(IntEnum):
    """Stable exit codes; scripts may rely on them."""

    OK = 0
    FAILURE = 1
    USAGE = 2
    CONFIG = 3
    NOT_FOUND = 4
    UNAVAILABLE = 5
    LOCKED = 6
    INTERRUPTED = 130


class HomeclawError(Exception):
    """Base of every error homeclaw reports to a user."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\nhint: {self.hint}"


class UsageError(HomeclawError):
    exit_code = ExitCode.USAGE


MAX_LISTED = 20  # problems one error lists; a wrong file (a CSV for JSONL) fails every line


def problems_error(title: str, problems: list[str], hint: str) -> UsageError:
    """One usage error naming every problem of a file, so one edit fixes them all."""
    if len(problems) == 1:
        return UsageError(problems[0], hint=hint)
    listed = problems[:MAX_LISTED]
    if len(problems) > MAX_LISTED:
        listed.append(f"... and {len(problems) - MAX_LISTED} more")
    return UsageError(f"{title}:\n  - " + "\n  - ".join(listed), hint=hint)


class ConfigError(HomeclawError):
    exit_code = ExitCode.CONFIG


class NotFoundError(HomeclawError):
    exit_code = ExitCode.NOT_FOUND


class ManifestError(HomeclawError):
    exit_code = ExitCode.FAILURE


class UnavailableError(HomeclawError):
    exit_code = ExitCode.UNAVAILABLE


class LockedError(HomeclawError):
    exit_code = ExitCode.LOCKED


class ConflictError(HomeclawError):
    exit_code = ExitCode.FAILURE


class PluginCallError(HomeclawError):
    exit_code = ExitCode.FAILURE


class InterruptError(HomeclawError):
    exit_code = ExitCode.INTERRUPTED


def missing_path(path: object, *, hint: str | None = None) -> NotFoundError:
    """The one error for a path the user gave that does not exist (exit 4 in every command)."""
    return NotFoundError(f"{path}: no such file or folder", hint=hint or "check the path")


def not_writable(path: object) -> ConfigError:
    """The one error for a file or folder homeclaw must write and may not (exit 3 everywhere):
    a home owned by another user, a read-only mount."""
    return ConfigError(
        f"{path} is not writable, so homeclaw cannot keep its state there",
        hint="make it writable for this user, or set HOMECLAW_HOME (or data_dir in the config) "
        "to a folder you can write; plugin search, list and call, logs and audit work as they are",
    )


def not_readable(path: object, why: str = "Permission denied") -> ConfigError:
    """The one error for a state file homeclaw must read and may not (exit 3 everywhere)."""
    return ConfigError(
        f"{path} cannot be read ({why})",
        hint="make it readable for this user (was it written with sudo?), or set HOMECLAW_HOME "
        "(or data_dir in the config) to your own folder",
    )


def damaged_index(uri: str, exc: BaseException) -> HomeclawError | None:
    """The user-facing error for a LanceDB failure on damaged index files (or a full disk,
    which is no damage), else None.

    The index is derived data (plugins and skills are the source of truth), so the fix is
    always the same: rebuild it (`sync --full` does, for a local index).
    """
    text = str(exc)
    # "lance error: LanceError(IO) ..." from a read, "External error: LanceError(IO) ..." from
    # a merge
    lance = "lance error" in text.lower() or "LanceError(" in text
    if not isinstance(exc, (RuntimeError, OSError, ValueError)) or not lance:
        return None
    first = text.splitlines()[0] if text else type(exc).__name__
    if "(os error 28)" in text or "(os error 122)" in text:  # ENOSPC, EDQUOT: not damage
        return HomeclawError(
            f"no space left to write the search index at {uri} ({first.split(', /')[0]})",
            hint="free some space on that disk (or move data_dir or index.uri), then run "
            "`homeclaw sync` again",
        )
    if "://" in uri and not uri.startswith("file://"):
        # A shared index is other machines' too, and a store that answers oddly (a proxy, an
        # outage, another LanceDB version) reads the same way as damage: never advise deleting.
        return HomeclawError(
            f"LanceDB could not read the search index at {uri} ({first.split(', /')[0]})",
            hint="run `homeclaw doctor` here and `homeclaw sync --check` on another machine: "
            "if that machine reads the index, the cause is on this one (network, keys, "
            "homeclaw version); do not delete a shared index",
        )
    return HomeclawError(
        f"the search index at {uri} is damaged ({first.split(', /')[0]})",
        hint="run `homeclaw sync --full`: it rebuilds the index from your plugins and skills",
    )


def index_store_error(uri: str, exc: BaseException) -> HomeclawError | None:
    """The user-facing error for any LanceDB failure on the index at `uri`: a store or commit
    store that cannot be reached or refuses the keys before damaged files; else None."""
    return object_store_error(uri, exc) or damaged_index(uri, exc)


def index_failure(uri: str, exc: BaseException) -> HomeclawError | None:
    """`exc` when it is already a HomeclawError, else index_store_error(); None when neither
    says what happened (the caller shows the exception itself)."""
    return exc if isinstance(exc, HomeclawError) else index_store_error(uri, exc)


_UNREACHABLE = ("connect error", "connectionrefused", "dns error", "timed out", "sending request")
_REFUSED = ("invalidaccesskeyid", "signaturedoesnotmatch", "accessdenied", "forbidden", "403")


def object_store_error(uri: str, exc: BaseException) -> HomeclawError | None:
    """The user-facing error for an object store that cannot be reached or refuses the keys."""
    if "://" not in uri or uri.startswith("file://"):
        return None
    text = str(exc).lower()
    if uri.startswith("s3+ddb://") and "dynamodb" in text:
        return commit_store_error(uri, text)
    if any(word in text for word in _REFUSED):
        return ConfigError(
            f"the object store refused the credentials for index.uri {uri}",
            hint="set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or index.profile, or keys in "
            "index.storage_options) to keys that may read and write that bucket",
        )
    if "nosuchbucket" in text or "bucket does not exist" in text:
        return ConfigError(
            f"the bucket of index.uri {uri} does not exist",
            hint="create the bucket, or fix index.uri",
        )
    if any(word in text for word in _UNREACHABLE):
        return unreachable_store(uri)
    return None


def unreachable_store(uri: str, reason: str | None = None) -> UnavailableError:
    """The one error for an object store that takes no connection (exit 5)."""
    because = f" ({reason})" if reason else ""
    return UnavailableError(
        f"cannot reach the object store of index.uri {uri}{because}",
        hint="check index.endpoint (or AWS_ENDPOINT_URL), index.allow_http for http://, "
        "and that the server is up",
    )


_DDB_REFUSED = ("unrecognizedclient", "invalidsignature", "accessdenied", "expiredtoken")


def commit_store_error(uri: str, text: str) -> HomeclawError:
    """The user-facing error for LanceDB's DynamoDB commit store (s3+ddb://) failing; `text`
    is LanceDB's error in lower case, which names lance-table's commit/dynamodb.rs.

    The AWS SDK reports a request that got no answer (endpoint down, DNS, timeout) as
    "no service error"; the table files on S3 are not involved, so nothing is damaged.
    """
    table = uri.partition("ddbTableName=")[2].partition("&")[0] or "(no ddbTableName)"
    if "resourcenotfoundexception" in text:
        return ConfigError(
            f"the DynamoDB table {table} (the commit store of index.uri {uri}) does not exist",
            hint="create it with the key base_uri (string) and sort key version (number), "
            "or fix ddbTableName in index.uri",
        )
    if any(word in text for word in _DDB_REFUSED):
        return ConfigError(
            f"DynamoDB refused the credentials for the commit store of index.uri {uri}",
            hint="use keys (AWS_*, index.profile) that may read and write the DynamoDB "
            f"table {table}",
        )
    return UnavailableError(
        f"cannot reach the commit store (DynamoDB endpoint) of index.uri {uri}",
        hint="check index.storage_options.dynamodb_endpoint, "
        "index.region and that DynamoDB is up; the index itself is not damaged, "
        "so keep it and run the command again once DynamoDB answers",
    )


def field_problems(exc: ValidationError, whole: str) -> list[str]:
    """One `plugins.notes.scripts: Input should be a valid list` per problem, instead of
    pydantic's multi-line report with URLs; `whole` names a problem with no field."""
    return [
        f"{'.'.join(str(part) for part in error['loc']) or whole}: {error['msg']}"
        for error in exc.errors(include_url=False)
    ]
