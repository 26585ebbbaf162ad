"""Permissions: what a plugin or skill declared, what the user approved, and the checks.

Seed 003's model: a manifest declares network hosts, filesystem paths, env vars and shell.
`homeclaw plugin install` shows them and records the approval in an ApprovalStore; an upgrade
asks only for what is new (diff_permissions). The grant a plugin runs with is what it declares
*and* what was approved, so editing an installed manifest by hand grants nothing new.

Enforcement happens wherever homeclaw controls execution:
  - allowed_env()  the only environment a subprocess plugin, MCP stdio server or skill script
                   receives (a small base set plus the approved names);
  - check_path()   the SDK file helpers and built-in file tools (symlinks are resolved first);
  - check_url()    the SDK fetch helpers (every request, redirects included);
  - check_shell()  anything that would run a shell command for a plugin or skill.
In-process Python (inline plugins) shares homeclaw's interpreter: nothing stops its code from
calling open() or socket directly. IN_PROCESS_NOTICE says so at install and in the docs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlparse

from pydantic import ValidationError

from homeclaw_cli.core.manifest import Permissions, PluginManifest, normalize_host
from homeclaw_cli.errors import ConfigError, HomeclawError

if TYPE_CHECKING:
    pass

Kind = Literal["plugin", "skill"]

IN_PROCESS_NOTICE = (
    "inline plugins run inside homeclaw's own Python process: their code can read any file, "
    "environment variable or host your user account can. homeclaw enforces the permissions "
    "only for the SDK helpers (read_text/write_text/fetch/getenv/run_command); install inline "
    "plugins only from sources you trust."
)
SUBPROCESS_NOTICE = (
    "subprocess and MCP stdio plugins get only the approved environment variables, but they "
    "run as your user: homeclaw does not sandbox their file or network access."
)

# Variables every child process needs to work at all; nothing secret lives here.
BASE_ENV_VARS = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "TERM",
    "SHELL",
    "SYSTEMROOT",
    "PYTHONIOENCODING",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
)
_VAR_REF = re.compile(r"\$(\w+)|\$\{(\w+)\}")


class PermissionDenied(HomeclawError):
    """A plugin or skill reached for something it was not granted."""


@dataclass(frozen=True)
class PermissionDiff:
    added: Permissions
    removed: Permissions

    @property
    def empty(self) -> bool:
        return self.added.empty and self.removed.empty


def _minus(a: Iterable[str], b: Iterable[str]) -> list[str]:
    seen = set(b)
    return [x for x in a if x not in seen]


def diff_permissions(approved: Permissions | None, requested: Permissions) -> PermissionDiff:
    """What `requested` adds over `approved` (to ask for) and what it drops (to show)."""
    base = approved or Permissions()
    return PermissionDiff(
        added=Permissions(
            network=_minus(requested.network, base.network),
            filesystem=_minus(requested.filesystem, base.filesystem),
            env_vars=_minus(requested.env_vars, base.env_vars),
            shell=requested.shell and not base.shell,
        ),
        removed=Permissions(
            network=_minus(base.network, requested.network),
            filesystem=_minus(base.filesystem, requested.filesystem),
            env_vars=_minus(base.env_vars, requested.env_vars),
            shell=base.shell and not requested.shell,
        ),
    )


def intersect(a: Permissions, b: Permissions) -> Permissions:
    """Only what both grant."""
    return Permissions(
        network=[x for x in a.network if x in b.network],
        filesystem=[x for x in a.filesystem if x in b.filesystem],
        env_vars=[x for x in a.env_vars if x in b.env_vars],
        shell=a.shell and b.shell,
    )


def describe(perms: Permissions) -> list[str]:
    """One line per permission, for prompts and `plugin show`."""
    lines = [f"network: {h}" + (" (ANY host)" if h == "*" else "") for h in perms.network]
    lines += [f"filesystem: {p}" for p in perms.filesystem]
    lines += [f"env var: {v}" for v in perms.env_vars]
    if perms.shell:
        lines.append("shell: may run shell commands")
    return lines


def granted(declared: Permissions, approved: Permissions | None) -> Permissions:
    """The permissions an item runs with.

    Installed items (an approval record exists) get what they declare and was approved.
    Items the user placed by hand (bundled, workspace, --plugins-dir, a folder copied into
    the user dir) have no record and run with what they declare: putting them there was the
    user's decision.
    """
    return declared if approved is None else intersect(declared, approved)


# --- enforcement --------------------------------------------------------------------------


def allowed_env(
    perms: Permissions,
    environ: Mapping[str, str] | None = None,
    *,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for a plugin/skill child process: base vars + approved names + extra.

    `extra` is what the manifest itself sets (`config.env`), which is the plugin's own data.
    """
    source = os.environ if environ is None else environ
    env = {k: v for k, v in source.items() if k in BASE_ENV_VARS or k.startswith("LC_")}
    env.update({k: source[k] for k in perms.env_vars if k in source})
    env.update(extra or {})
    return env


def allowed_getenv(
    perms: Permissions, name: str, environ: Mapping[str, str] | None = None
) -> str | None:
    """An environment variable's value, only if `name` was granted."""
    if name not in perms.env_vars:
        raise PermissionDenied(
            f"environment variable {name} was not granted to this plugin",
            hint=f"declare it under permissions.env_vars ({name}) and reinstall/approve",
        )
    return (os.environ if environ is None else environ).get(name)


def _roots(entries: Iterable[str | Path]) -> list[Path]:
    return [Path(e).expanduser().resolve() for e in entries]


def check_path(
    perms: Permissions, path: str | Path, *, also: Iterable[Path] = (), what: str = "plugin"
) -> Path:
    """Resolve `path` (following symlinks) and return it if it is inside a granted folder.

    `also` adds implicit roots (the plugin's own folder and data dir). A symlink inside a
    granted folder that points outside is refused because the resolved target is checked.
    """
    target = Path(path).expanduser().resolve()
    for root in [*_roots(perms.filesystem), *_roots(also)]:
        if target == root or target.is_relative_to(root):
            return target
    raise PermissionDenied(
        f"{what} may not access {target}: it is outside the granted folders "
        f"({', '.join(perms.filesystem) or 'none'})",
        hint="declare the folder under permissions.filesystem and approve it at install",
    )


def host_allowed(perms: Permissions, host: str, port: int | None = None) -> bool:
    host = host.lower().rstrip(".")
    for entry in perms.network:
        if entry == "*":
            return True
        name, _, entry_port = entry.partition(":")
        if entry_port and (port is None or str(port) != entry_port):
            continue
        if name.startswith("*."):
            if host.endswith(name[1:]) and host != name[2:]:
                return True
        elif host == name:
            return True
    return False


def check_url(perms: Permissions, url: str, *, what: str = "plugin") -> str:
    """Return `url` if its host is granted; raise PermissionDenied otherwise."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise PermissionDenied(f"{what} may only fetch http(s) URLs, not {url!r}")
    if not host_allowed(perms, parsed.hostname, parsed.port):
        raise PermissionDenied(
            f"{what} may not reach {parsed.hostname}: not in its granted hosts "
            f"({', '.join(perms.network) or 'none'})",
            hint=f"declare `{normalize_host(parsed.netloc)}` under permissions.network",
        )
    return url


def check_shell(perms: Permissions, *, what: str = "plugin") -> None:
    if not perms.shell:
        raise PermissionDenied(
            f"{what} may not run shell commands",
            hint="declare `permissions: {shell: true}` and approve it at install",
        )


def skill_permissions(
    frontmatter: Mapping[str, Any], source: Path | str = "SKILL.md"
) -> Permissions:
    """A skill's permissions: `permissions:` in its frontmatter (homeclaw's own key) plus the
    env vars OpenClaw skills list under `metadata.openclaw.requires.env` (seed 004).

    Raises ConfigError naming the file and field when `permissions` is malformed.
    """
    raw = frontmatter.get("permissions") or {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: `permissions` must be a mapping (network, filesystem, ...)")
    try:
        perms = Permissions.model_validate(dict(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in ("permissions", *first["loc"]))
        detail = (first.get("ctx") or {}).get("reason") or first["msg"]
        raise ConfigError(f"{source}: {where}: {detail}") from None
    metadata = frontmatter.get("metadata")
    openclaw = metadata.get("openclaw") if isinstance(metadata, Mapping) else None
    requires = openclaw.get("requires") if isinstance(openclaw, Mapping) else None
    env = requires.get("env") if isinstance(requires, Mapping) else None
    extra = [str(v) for v in env if isinstance(v, str)] if isinstance(env, list) else []
    names = [*perms.env_vars, *(v for v in extra if v not in perms.env_vars)]
    return perms.model_copy(update={"env_vars": names})


def referenced_env_vars(manifest: PluginManifest) -> list[str]:
    """Env vars a manifest pulls in through `$VAR` / `${VAR}` in `config.env` or `config.args`
    (e.g. `env: {NEWSAPI_KEY: "${NEWSAPI_KEY}"}`), base variables left out."""
    config = manifest.config
    texts = [*(getattr(config, "env", None) or {}).values(), *(getattr(config, "args", None) or [])]
    names: list[str] = []
    for text in texts:
        for match in _VAR_REF.finditer(text):
            name = match.group(1) or match.group(2)
            if name not in names and name not in BASE_ENV_VARS and not name.startswith("LC_"):
                names.append(name)
    return names


def requested_permissions(manifest: PluginManifest) -> Permissions:
    """What a plugin asks for: its `permissions` plus the env vars its config references.

    This is what `plugin install` shows for approval and what the runners grant from.
    """
    extra = [n for n in referenced_env_vars(manifest) if n not in manifest.permissions.env_vars]
    if not extra:
        return manifest.permissions
    return manifest.permissions.model_copy(
        update={"env_vars": [*manifest.permissions.env_vars, *extra]}
    )


def expand_vars(text: str, env: Mapping[str, str]) -> str:
    """`$VAR` / `${VAR}` from `env` only (unknown names stay as written, like expandvars)."""
    return _VAR_REF.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)
