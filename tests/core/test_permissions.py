from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.catalog.plugin_loader import load_plugin
from homeclaw_cli.core.manifest import Permissions, PluginManifest
from homeclaw_cli.core.permissions import (
    PermissionDenied,
    allowed_env,
    allowed_getenv,
    check_path,
    check_shell,
    check_url,
    diff_permissions,
    granted,
)
from homeclaw_cli.state.approvals import ApprovalStore


def perms(**kw: object) -> Permissions:
    return Permissions.model_validate(kw)


def test_manifest_permissions_are_optional_and_parsed() -> None:
    base = {"id": "a", "name": "A", "description": "d"}
    assert PluginManifest.model_validate(base).permissions.empty
    m = PluginManifest.model_validate(
        {**base, "permissions": {"network": ["https://API.x.com/v1"], "env_vars": ["KEY"]}}
    )
    assert m.permissions.network == ["api.x.com"]
    assert PluginManifest.model_validate(
        {**base, "permissions": {"network": True}}
    ).permissions.network == ["*"]


def test_bad_permission_entries_are_reported_with_their_field(tmp_path: Path) -> None:
    (tmp_path / "plugin.yaml").write_text(
        "id: a\nname: A\ndescription: d\ntype: http\nconfig: {base_url: 'http://x'}\n"
        "permissions:\n  filesystem: [relative/path]\n  env_vars: ['BAD-NAME']\n  nework: []\n"
    )
    result = load_plugin(tmp_path)
    text = "\n".join(str(d) for d in result.diagnostics)
    assert "permissions.filesystem[0]" in text and "absolute path" in text
    assert "permissions.env_vars[0]" in text
    assert "unknown field `nework`" in text and "did you mean `network`" in text.lower()


def test_diff_asks_only_for_new_permissions() -> None:
    old = perms(network=["a.com"], env_vars=["K1"])
    new = perms(network=["a.com", "b.com"], env_vars=["K2"], shell=True)
    diff = diff_permissions(old, new)
    assert diff.added == perms(network=["b.com"], env_vars=["K2"], shell=True)
    assert diff.removed == perms(env_vars=["K1"])
    assert diff_permissions(new, new).added.empty
    assert diff_permissions(None, new).added == new


def test_approval_store_round_trip_and_revoke(tmp_path: Path) -> None:
    store = ApprovalStore.for_state_dir(tmp_path)
    assert store.get("p") is None
    store.grant("p", perms(env_vars=["K"]))
    assert ApprovalStore(tmp_path / "approvals.json").get("p") == perms(env_vars=["K"])
    store.revoke("p")
    assert store.get("p") is None


def test_granted_is_declared_and_approved() -> None:
    declared = perms(env_vars=["K", "SNEAKY"], network=["a.com"])
    assert granted(declared, perms(env_vars=["K"])) == perms(env_vars=["K"])
    assert granted(declared, None) == declared  # placed by hand: what it declares


def test_allowed_env_passes_only_base_and_granted_vars() -> None:
    environ = {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "API_KEY": "s", "AWS_SECRET": "x"}
    env = allowed_env(perms(env_vars=["API_KEY", "MISSING"]), environ, extra={"MODE": "1"})
    assert env == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "API_KEY": "s", "MODE": "1"}


def test_getenv_refuses_ungranted_names() -> None:
    p = perms(env_vars=["OK"])
    assert allowed_getenv(p, "OK", {"OK": "1"}) == "1"
    with pytest.raises(PermissionDenied, match="NOPE"):
        allowed_getenv(p, "NOPE", {"NOPE": "1"})


def test_check_path_allows_granted_folders_and_refuses_symlinks_out(tmp_path: Path) -> None:
    notes, secret = tmp_path / "notes", tmp_path / "secret"
    notes.mkdir()
    secret.mkdir()
    (secret / "key").write_text("x")
    (notes / "escape").symlink_to(secret / "key")
    p = perms(filesystem=[str(notes)])
    assert check_path(p, notes / "a.txt") == (notes / "a.txt").resolve()
    with pytest.raises(PermissionDenied, match="outside"):
        check_path(p, secret / "key")
    with pytest.raises(PermissionDenied):
        check_path(p, notes / "escape")
    with pytest.raises(PermissionDenied):
        check_path(p, notes / ".." / "secret" / "key")
    assert check_path(perms(), secret / "key", also=[secret]) == (secret / "key").resolve()


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://api.example.com/x", True),
        ("https://eu.cdn.example.org/x", True),
        ("https://example.org/x", False),
        ("http://localhost:8080/", True),
        ("http://localhost:9090/", False),
        ("https://evil.com/?u=api.example.com", False),
        ("ftp://api.example.com/", False),
    ],
)
def test_check_url_matches_hosts_wildcards_and_ports(url: str, ok: bool) -> None:
    p = perms(network=["api.example.com", "*.example.org", "localhost:8080"])
    if ok:
        assert check_url(p, url) == url
    else:
        with pytest.raises(PermissionDenied):
            check_url(p, url)


def test_star_allows_any_host_and_shell_needs_a_grant() -> None:
    assert check_url(perms(network=True), "https://anything.net/")
    with pytest.raises(PermissionDenied, match="shell"):
        check_shell(perms())
    check_shell(perms(shell=True))
