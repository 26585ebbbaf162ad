"""OpenClaw eligibility: always, os, requires.bins/anyBins/env/config, disabled entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.catalog.skill_eligibility import (
    EligibilityContext,
    agent_block,
    ineligible_reason,
    requirements_of,
)
from homeclaw_cli.catalog.skills import scan_skills
from tests.skill_helpers import make_skill, settings_for


def ctx(**kw: object) -> EligibilityContext:
    base: dict[str, object] = {
        "platform": "linux",
        "env": {},
        "which": lambda name: f"/usr/bin/{name}" if name in {"git", "curl"} else None,
    }
    base.update(kw)
    return EligibilityContext(**base)  # type: ignore[arg-type]


def reason(meta: dict[str, object], **kw: object) -> str | None:
    req, warnings = requirements_of(meta)
    assert warnings == []
    return ineligible_reason("s", req, ctx(**kw))


def test_no_metadata_is_eligible() -> None:
    assert reason({}) is None
    assert reason({"other": {"emoji": "x"}}) is None


def test_os_gate() -> None:
    assert reason({"openclaw": {"os": ["linux", "darwin"]}}) is None
    assert reason({"openclaw": {"os": ["darwin"]}}) == "only for darwin (this system is linux)"
    assert reason({"openclaw": {"os": ["macos"]}}, platform="darwin") is None


def test_bins_and_any_bins() -> None:
    assert reason({"openclaw": {"requires": {"bins": ["git", "curl"]}}}) is None
    assert reason({"openclaw": {"requires": {"bins": ["git", "memo"]}}}) == "needs `memo` on PATH"
    assert reason({"openclaw": {"requires": {"anyBins": ["claude", "git"]}}}) is None
    assert "needs one of `claude`, `codex`" in str(
        reason({"openclaw": {"requires": {"anyBins": ["claude", "codex"]}}})
    )


def test_env_from_environment_or_config_entries() -> None:
    meta = {"openclaw": {"requires": {"env": ["API_KEY"]}}}
    assert "needs env var API_KEY" in str(reason(meta))
    assert reason(meta, env={"API_KEY": "x"}) is None
    assert reason(meta, entry_env={"s": {"API_KEY": "x"}}) is None
    assert "needs env var" in str(reason(meta, env={"API_KEY": ""}))


def test_config_paths() -> None:
    meta = {"openclaw": {"requires": {"config": ["channels.discord"]}}}
    assert "needs config `channels.discord`" in str(reason(meta))
    values = {"channels.discord": {"token": "t"}}
    assert reason(meta, config_lookup=values.get) is None


def test_always_bypasses_other_checks_but_not_disabled() -> None:
    meta = {"openclaw": {"always": True, "os": ["win32"], "requires": {"bins": ["nope"]}}}
    assert reason(meta) is None
    req, _ = requirements_of(meta)
    assert "disabled in config" in str(ineligible_reason("s", req, ctx(disabled=frozenset({"s"}))))


def test_legacy_and_renamed_namespaces() -> None:
    assert agent_block({"clawdbot": {"os": ["x"]}})[0] == "clawdbot"
    assert agent_block({"dna": {"requires": {"bins": ["x"]}}})[0] == "dna"
    # Two candidate blocks: ambiguous, so none is used.
    assert agent_block({"a": {"os": ["x"]}, "b": {"os": ["y"]}}) == (None, {})


def test_malformed_requirements_warn_and_are_ignored() -> None:
    req, warnings = requirements_of({"openclaw": {"requires": {"bins": [1, 2]}, "os": "linux"}})
    assert req.bins == () and req.os == ("linux",)
    assert warnings == ["metadata.openclaw.requires.bins must be a list of strings; ignored"]
    _req, warnings = requirements_of({"openclaw": {"requires": "git"}})
    assert warnings == ["metadata.openclaw.requires must be a mapping; ignored"]


def test_scan_applies_eligibility_from_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "home" / "data" / "skills"
    make_skill(user, "needs-env", extra='metadata: {"openclaw":{"requires":{"env":["TOK_X"]}}}\n')
    make_skill(
        user,
        "needs-cfg",
        extra='metadata: {"openclaw":{"requires":{"config":["skills.config.flag"]}}}\n',
    )
    make_skill(user, "plain")
    make_skill(user, "switched-off")
    settings = settings_for(tmp_path)
    settings.skills.entries = {"switched-off": {"enabled": False}}  # type: ignore[dict-item]
    reg = scan_skills(settings, env={})
    assert reg.skills["plain"].eligible
    assert not reg.skills["switched-off"].eligible
    assert "TOK_X" in str(reg.skills["needs-env"].ineligible_reason)
    assert not reg.skills["needs-cfg"].eligible
    assert [s.id for s in reg.eligible()] == ["plain"]
    settings.skills.config = {"flag": True}
    reg = scan_skills(settings, env={"TOK_X": "1"})
    assert reg.skills["needs-env"].eligible and reg.skills["needs-cfg"].eligible
