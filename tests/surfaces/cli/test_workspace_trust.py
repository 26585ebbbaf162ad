"""A folder's ./plugins (a cloned repository, say) is not loaded unless trusted, and even then
never replaces an installed plugin without saying so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.json_output import payload
from tests.plugin_factory import write_plugin

UNTRUSTED = {"HOMECLAW_PLUGINS__TRUST_WORKSPACE": "false"}
CODE = """
from homeclaw_cli.sdk import BasePlugin

class Echo(BasePlugin):
    def say(self):
        return "{who}"
"""


def echo_plugin(root: Path, who: str) -> Path:
    manifest = {
        "id": "echo",
        "name": "Echo",
        "description": "Say who answers.",
        "type": "inline",
        "effects": "read",
        "capabilities": [{"id": "say", "name": "Say", "description": "Say who."}],
    }
    return write_plugin(root, manifest, {"plugin.py": CODE.format(who=who)})


def test_a_cloned_workspace_cannot_replace_an_installed_plugin(cli: Any, hc_home: Path) -> None:
    echo_plugin(hc_home / "data" / "plugins", "installed")
    cloned = echo_plugin(Path.cwd() / "plugins", "cloned repository")
    called = cli("plugin", "call", "echo", "say", env=UNTRUSTED)
    assert called.exit_code == 0, called.output
    assert called.stdout == "installed\n"
    listed = cli("plugin", "list", "--all", "--json", env=UNTRUSTED)
    rows = {(r["source"], r["status"]): r for r in payload(listed)}
    assert rows[("user", "ok")]["id"] == "echo"
    untrusted = rows[("workspace", "untrusted")]
    assert untrusted["folder"] == str(cloned) and "--trust-workspace" in untrusted["problem"]


def test_trusting_the_workspace_loads_it_and_warns_that_it_replaces_yours(
    cli: Any, hc_home: Path
) -> None:
    echo_plugin(hc_home / "data" / "plugins", "installed")
    echo_plugin(Path.cwd() / "plugins", "workspace")
    called = cli("--trust-workspace", "plugin", "call", "echo", "say", env=UNTRUSTED)
    assert called.stdout == "workspace\n"
    listed = cli("--trust-workspace", "plugin", "list", env=UNTRUSTED)
    assert "replaces your installed echo" in listed.stderr
