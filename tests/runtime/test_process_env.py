"""The environment of a plugin process: base variables, granted env vars, the manifest's env."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from homeclaw_cli.core.manifest import Permissions, PluginManifest
from homeclaw_cli.core.permissions import requested_permissions
from homeclaw_cli.runtime.process_env import plugin_env
from homeclaw_cli.state.approvals import ApprovalStore, permissions_for


def perms(**kw: object) -> Permissions:
    return Permissions.model_validate(kw)


def env_of(
    state: Path, manifest: PluginManifest, folder: Path | None, data: Path
) -> dict[str, str]:
    granted = permissions_for(state, manifest.id, requested_permissions(manifest))
    extra = dict(getattr(manifest.config, "env", None) or {})
    env = plugin_env(
        extra,
        manifest.id,
        data,
        permissions=granted,
        folder=folder,
        pass_through=manifest.permissions.env_vars,
    )
    env.pop("HOMECLAW_PLUGIN_ID")
    env.pop("HOMECLAW_PLUGIN_DATA")
    return env


def test_plugin_env_for_a_subprocess_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = PluginManifest.model_validate(
        {
            "id": "s",
            "name": "S",
            "description": "d",
            "type": "subprocess",
            "config": {"command": "x", "env": {"MODE": "fast"}},
            "permissions": {"env_vars": ["TOKEN", "EXTRA"]},
        }
    )
    folder = tmp_path / "s"
    (folder / ".homeclaw-deps").mkdir(parents=True)
    monkeypatch.setattr(os, "environ", {"PATH": "/bin", "TOKEN": "t", "EXTRA": "e", "SECRET": "x"})
    state = tmp_path / "state"
    env = env_of(state, manifest, folder, tmp_path / "data")
    assert env == {
        "PATH": "/bin",
        "TOKEN": "t",
        "EXTRA": "e",
        "MODE": "fast",
        "PYTHONPATH": str(folder / ".homeclaw-deps"),
    }
    # Installed with only TOKEN approved: EXTRA (added to the manifest by hand) is not passed.
    ApprovalStore.for_state_dir(state).grant("s", perms(env_vars=["TOKEN"]))
    assert "EXTRA" not in env_of(state, manifest, folder, tmp_path / "data")


def test_env_vars_referenced_by_the_config_are_requested_and_expanded_only_if_granted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = PluginManifest.model_validate(
        {
            "id": "n",
            "name": "N",
            "description": "d",
            "type": "subprocess",
            "config": {
                "command": "x",
                "args": ["--key=$ARG_KEY"],
                "env": {"API": "${NEWS_KEY}", "HOMEDIR": "$HOME/x", "LEAK": "${AWS_SECRET}"},
            },
            "permissions": {"network": ["api.news.org"]},
        }
    )
    assert requested_permissions(manifest).env_vars == ["NEWS_KEY", "AWS_SECRET", "ARG_KEY"]
    monkeypatch.setattr(
        os, "environ", {"PATH": "/bin", "HOME": "/h", "NEWS_KEY": "k", "AWS_SECRET": "s"}
    )
    state = tmp_path / "state"
    placed_by_hand = env_of(state, manifest, None, tmp_path / "data")  # what it declares
    assert placed_by_hand["API"] == "k" and placed_by_hand["LEAK"] == "s"
    assert "NEWS_KEY" not in placed_by_hand  # referenced only: passed under the manifest's name
    ApprovalStore.for_state_dir(state).grant("n", perms(env_vars=["NEWS_KEY"]))
    env = env_of(state, manifest, None, tmp_path / "data")
    assert env["API"] == "k" and env["HOMEDIR"] == "/h/x"
    assert env["LEAK"] == "${AWS_SECRET}" and "AWS_SECRET" not in env
