"""run_skill: run one script from a skill's scripts/ folder, contained.

What a call may do, and what it may not:
  - only a regular file inside that skill's scripts/ (no `..`, no absolute path, no symlink
    that leads out), matching `skills.script_allowlist` (`<skill id>/<script>` globs);
  - the interpreter comes from the shebang, else from the extension (.py runs with the
    Python running homeclaw, .sh with sh, ...); arguments are a list handed to exec, never a
    shell, so `; rm -rf ~` is just a string the script receives;
  - the environment is rebuilt from nothing: a minimal PATH, HOME, LANG, the variables the
    skill declares in requires.env (from the environment or skills.entries.<id>.env), and
    HOMECLAW_SKILL_DIR / HOMECLAW_CWD; nothing else of the caller's environment leaks in;
  - cwd is the skill folder, stdin is empty;
  - the script runs in its own process group: on timeout, when it writes more than
    `skills.script_max_output_bytes`, or when the caller sets the `cancel` event (the chat
    turn awaiting it was cancelled), the whole group (children included) is killed.
Every refusal raises a HomeclawError that says what was refused and why.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.skill_interpreters import (
    ScriptRefusedError,
    interpreter_for,
    script_path,
)
from homeclaw_cli.catalog.skill_paths import SkillPathError, resolve_inside
from homeclaw_cli.catalog.skills import Skill, SkillRegistry
from homeclaw_cli.errors import HomeclawError, UsageError
from homeclaw_cli.runtime.leftovers import CALL_ENV, end_leftovers, new_call_token
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.installed_scripts import unapproved

MAX_ARGS = 64
MAX_ARG_CHARS = 8192
_KILL_GRACE_SEC = 1.0
_PIPE_GRACE_SEC = 0.5
_POLL_SEC = 0.25
_READ_CHUNK = 65536


class ScriptCancelledError(HomeclawError):
    """The caller cancelled the run; the script's process group was killed."""


@dataclass
class ScriptResult:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool
    seconds: float
    command: list[str] = field(default_factory=list)
    skill_id: str = ""
    script: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def for_model(self) -> str:
        """The text a model gets back as the tool result."""
        parts = [f"exit code: {self.exit_code}"]
        if self.timed_out:
            parts.append("the script timed out and was stopped")
        if self.truncated:
            parts.append("output was cut at the size limit")
        parts.append("stdout:\n" + (self.stdout or "(empty)"))
        if self.stderr.strip():
            parts.append("stderr:\n" + self.stderr)
        return "\n".join(parts)


@dataclass
class PreparedScript:
    skill: Skill
    script: str
    path: Path
    command: list[str]
    env: dict[str, str]


def run_skill(
    settings: Settings,
    skill_name: str,
    script: str,
    args: Sequence[str] = (),
    *,
    registry: SkillRegistry,
    env: Mapping[str, str] | None = None,
    caller_cwd: Path | None = None,
    cancel: threading.Event | None = None,
) -> ScriptResult:
    """Run `script` of skill `skill_name` (one of `registry`'s) with `args`, contained as the
    module docstring says.

    Setting `cancel` (from another thread) stops it: ScriptCancelledError.
    """
    prepared = prepare_script(
        settings, skill_name, script, args, registry=registry, env=env, caller_cwd=caller_cwd
    )
    return execute(
        prepared,
        timeout=settings.skills.script_timeout_sec,
        max_output=settings.skills.script_max_output_bytes,
        cancel=cancel,
    )


def prepare_script(
    settings: Settings,
    skill_name: str,
    script: str,
    args: Sequence[str] = (),
    *,
    registry: SkillRegistry,
    env: Mapping[str, str] | None = None,
    caller_cwd: Path | None = None,
) -> PreparedScript:
    """Every check run_skill makes, without running anything."""
    skill = registry.get(skill_name)
    if not skill.eligible:
        raise ScriptRefusedError(
            f"skill {skill.id!r} is not eligible here: {skill.ineligible_reason}",
            hint=f"`homeclaw skill show {skill.id}` explains what it needs",
        )
    script = _normalize_script(script)
    scripts_root = skill.folder / "scripts"
    if not scripts_root.is_dir():
        raise ScriptRefusedError(f"skill {skill.id!r} has no scripts/ folder; it has no scripts")
    real_folder = skill.folder.resolve()
    if not scripts_root.resolve().is_relative_to(real_folder):
        raise SkillPathError(
            f"scripts/ of skill {skill.id!r} is a symlink that leads out of {skill.folder}; refused"
        )
    path = resolve_inside(scripts_root, script, what="script", skill_id=skill.id)
    rel = path.relative_to(scripts_root.resolve()).as_posix()
    if any(part.startswith(".") for part in rel.split("/")):
        raise ScriptRefusedError(f"script {script!r} is a hidden file; refused")
    _check_allowlist(settings, skill.id, rel)
    _check_installed(settings, skill, path)
    checked_args = _check_args(args)
    run_env = script_environment(settings, skill, env=env, caller_cwd=caller_cwd)
    try:
        interpreter = interpreter_for(path, run_env["PATH"])
    except ScriptRefusedError as exc:
        raise ScriptRefusedError(
            f"script {rel!r} of skill {skill.id!r} cannot run: {exc.message}",
            hint=exc.hint,
        ) from None
    return PreparedScript(skill, rel, path, [*interpreter, str(path), *checked_args], run_env)


def _normalize_script(script: str) -> str:
    if not isinstance(script, str):
        raise SkillPathError(f"script must be a string, got {type(script).__name__}")
    # Models often pass the path as listed in SKILL.md: "scripts/x.py".
    stripped = script.strip()
    for prefix in ("./scripts/", "scripts/"):
        if stripped.startswith(prefix):
            return stripped[len(prefix) :]
    return stripped


def _check_allowlist(settings: Settings, skill_id: str, rel: str) -> None:
    key = f"{skill_id}/{rel}"
    patterns = settings.skills.script_allowlist
    if not any(fnmatch.fnmatchcase(key, p) or fnmatchcase_id(skill_id, p) for p in patterns):
        raise ScriptRefusedError(
            f"script {key!r} is not in skills.script_allowlist ({', '.join(patterns) or 'empty'})",
            hint=f"add `{key}` (or `{skill_id}/*`) to skills.script_allowlist in the config file",
        )


def _check_installed(settings: Settings, skill: Skill, path: Path) -> None:
    """Refuse a script added to an installed skill or plugin after its install was approved."""
    found = unapproved(settings, path)
    if found is None:
        return
    entry, rel = found
    raise ScriptRefusedError(
        f"{rel} of {entry.kind} {entry.id!r} ({entry.folder}) was not part of what "
        f"`homeclaw {entry.kind} install` installed and approved; added since, it does not run "
        f"(skill {skill.id!r} has these scripts: {', '.join(skill.scripts) or 'none'})",
        hint=f"delete it, or add it to the source ({entry.source}) and run "
        f"`homeclaw {entry.kind} update {entry.id}`",
    )


def fnmatchcase_id(skill_id: str, pattern: str) -> bool:
    """A bare skill id in the allowlist allows all of that skill's scripts."""
    return "/" not in pattern and pattern != "*" and fnmatch.fnmatchcase(skill_id, pattern)


def _check_args(args: Sequence[str]) -> list[str]:
    if isinstance(args, str):
        raise UsageError("args must be a list of strings, not one string")
    checked = list(args)
    if len(checked) > MAX_ARGS:
        raise UsageError(f"{len(checked)} arguments given; run_skill takes at most {MAX_ARGS}")
    for i, arg in enumerate(checked):
        if not isinstance(arg, str):
            raise UsageError(f"argument {i + 1} must be a string, got {type(arg).__name__}")
        if "\x00" in arg:
            raise UsageError(f"argument {i + 1} contains a NUL byte")
        if len(arg) > MAX_ARG_CHARS:
            raise UsageError(f"argument {i + 1} is longer than {MAX_ARG_CHARS} characters")
    return checked


def script_environment(
    settings: Settings,
    skill: Skill,
    *,
    env: Mapping[str, str] | None = None,
    caller_cwd: Path | None = None,
) -> dict[str, str]:
    """The whole environment a script sees (nothing else of the caller's is passed on)."""
    source = os.environ if env is None else env
    supplied = settings.skills.entries.get(skill.id)
    run_env = {
        "PATH": script_path(source),
        "HOME": source.get("HOME", str(Path.home())),
        "LANG": source.get("LANG", "C.UTF-8"),
        "HOMECLAW_SKILL_DIR": str(skill.folder),
        "HOMECLAW_SKILL_ID": skill.id,
        "HOMECLAW_CWD": str(caller_cwd or settings.cwd),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if "TZ" in source:
        run_env["TZ"] = source["TZ"]
    for name in granted_env_names(settings, skill):
        value = (supplied.env.get(name) if supplied else None) or source.get(name)
        if value:
            run_env[name] = value
    if supplied:
        run_env.update({k: v for k, v in supplied.env.items() if k not in ("PATH",)})
    return run_env


def granted_env_names(settings: Settings, skill: Skill) -> list[str]:
    """The env vars a skill may receive: what it declares (requires.env and
    `permissions.env_vars`), limited to what was approved when `homeclaw skill install`
    installed it (skills placed by hand have no approval record and get what they declare).
    """
    from homeclaw_cli.core.manifest import Permissions
    from homeclaw_cli.core.permissions import skill_permissions
    from homeclaw_cli.errors import ConfigError
    from homeclaw_cli.state.approvals import permissions_for

    declared = list(skill.requirements.env)
    with contextlib.suppress(ConfigError):  # a malformed block adds nothing; validate says why
        declared += [n for n in skill_permissions(skill.frontmatter).env_vars if n not in declared]
    wanted = Permissions(env_vars=declared)
    return permissions_for(settings.state_dir, skill.id, wanted, "skill").env_vars


def execute(
    prepared: PreparedScript,
    *,
    timeout: float,
    max_output: int,
    cancel: threading.Event | None = None,
) -> ScriptResult:
    """Run a prepared script with the timeout and output cap; never raises for its failures,
    only ScriptCancelledError once `cancel` is set (the script is killed by then)."""
    started = time.monotonic()
    token = new_call_token()
    try:
        proc = subprocess.Popen(
            prepared.command,
            cwd=prepared.skill.folder,
            env={**prepared.env, CALL_ENV: token},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        raise HomeclawError(f"cannot start {prepared.command[0]}: {exc.strerror}") from None
    try:
        buffers, timed_out, truncated = _collect(proc, started + timeout, max_output, cancel)
    finally:
        # Always: nothing the script started outlives the call, detached or not.
        _kill_group(proc)
        end_leftovers(token)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
    exit_code = proc.wait()
    if cancel is not None and cancel.is_set():
        raise ScriptCancelledError(f"{prepared.skill.id}/{prepared.script} was cancelled")
    stderr = buffers["stderr"].decode("utf-8", "replace")
    if timed_out:
        stderr += f"\n[homeclaw] stopped after {timeout:g} s (skills.script_timeout_sec)\n"
    if truncated:
        stderr += (
            f"\n[homeclaw] output passed {max_output} bytes "
            "(skills.script_max_output_bytes): the script was stopped\n"
        )
    return ScriptResult(
        exit_code=exit_code,
        stdout=buffers["stdout"].decode("utf-8", "replace"),
        stderr=stderr,
        timed_out=timed_out,
        truncated=truncated,
        seconds=round(time.monotonic() - started, 3),
        command=prepared.command,
        skill_id=prepared.skill.id,
        script=prepared.script,
    )


def _collect(
    proc: subprocess.Popen[bytes],
    deadline: float,
    max_output: int,
    cancel: threading.Event | None,
) -> tuple[dict[str, bytearray], bool, bool]:
    """Read stdout/stderr until the script ends, the deadline passes, the cap is hit or
    `cancel` is set (seen within one poll interval)."""
    buffers = {"stdout": bytearray(), "stderr": bytearray()}
    timed_out = truncated = False
    total = 0
    exited_at: float | None = None
    assert proc.stdout is not None and proc.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")
        while selector.get_map() and not truncated:
            if cancel is not None and cancel.is_set():
                return buffers, timed_out, truncated
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > _PIPE_GRACE_SEC:
                break  # the script is done; a leftover child still holds its pipes
            if now >= deadline:
                timed_out = True
                break
            for key, _ in selector.select(min(deadline - now, _POLL_SEC)):
                chunk = os.read(key.fd, _READ_CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                room = max_output - total
                buffers[key.data].extend(chunk[:room])
                total += min(len(chunk), room)
                if len(chunk) > room:
                    truncated = True
                    break
    if not timed_out and not truncated:
        timed_out = _wait_exit(proc, deadline, cancel)
    return buffers, timed_out, truncated


def _wait_exit(
    proc: subprocess.Popen[bytes], deadline: float, cancel: threading.Event | None
) -> bool:
    """Wait for a script that closed its pipes to exit; True when the deadline passed."""
    while proc.poll() is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        if cancel is not None and cancel.is_set():
            return False
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(min(remaining, _POLL_SEC))
    return False


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the script's process group, then SIGKILL whatever is left after a grace."""
    pgid = proc.pid  # start_new_session: the script leads its own group
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(_KILL_GRACE_SEC)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
