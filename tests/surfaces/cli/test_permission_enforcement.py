"""Permissions are enforced through `homeclaw plugin call` for installed plugins."""

from __future__ import annotations

import json
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

ENV_SCRIPT = """
import json, os, sys
sys.stdin.readline()
names = ("GRANTED", "ADDED_LATER", "UNRELATED", "MAPPED", "HOMECLAW_PLUGIN_ID")
print(json.dumps({"text": json.dumps({n: os.environ.get(n) for n in names})}))
"""


def write(folder: Path, manifest: dict[str, Any], files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.yaml").write_text(json.dumps(manifest))
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


def subprocess_manifest(plugin_id: str, **config: Any) -> dict[str, Any]:
    return {
        "id": plugin_id,
        "name": plugin_id,
        "description": "Test plugin.",
        "type": "subprocess",
        "config": {"command": "python", "args": ["main.py"], **config},
        "capabilities": [{"id": "go", "name": "Go", "description": "Go."}],
    }


def test_subprocess_plugin_gets_only_approved_env_vars(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GRANTED", "ADDED_LATER", "UNRELATED", "SECRET"):
        monkeypatch.setenv(name, name.lower())
    manifest = subprocess_manifest("envy", env={"MAPPED": "${SECRET}"})
    manifest["permissions"] = {"env_vars": ["GRANTED"]}
    src = write(tmp_path / "src", manifest, {"main.py": ENV_SCRIPT})
    installed = cli("plugin", "install", str(src), "--yes")
    assert installed.exit_code == 0, installed.output
    assert "env var: SECRET" in installed.stderr  # referenced by config.env: asked for too
    seen = json.loads(cli("plugin", "call", "envy").stdout)
    assert seen == {
        "GRANTED": "granted",
        "ADDED_LATER": None,
        "UNRELATED": None,
        "MAPPED": "secret",
        "HOMECLAW_PLUGIN_ID": "envy",
    }
    # The installed manifest edited by hand: new names are not approved, so not passed.
    path = hc_home / "data" / "plugins" / "envy" / "plugin.yaml"
    edited = json.loads(path.read_text())
    edited["permissions"]["env_vars"] = ["GRANTED", "ADDED_LATER"]
    edited["config"]["env"] = {"MAPPED": "${UNRELATED}"}
    path.write_text(json.dumps(edited))
    seen = json.loads(cli("plugin", "call", "envy").stdout)
    assert seen["ADDED_LATER"] is None and seen["MAPPED"] == "${UNRELATED}"
    assert seen["GRANTED"] == "granted"


INLINE_FILES = """
from homeclaw_cli.sdk import BasePlugin


class Reader(BasePlugin):
    def read(self, path: str) -> str:
        return self.read_text(path)

    def secret(self) -> str:
        return str(self.getenv("NOT_GRANTED"))
"""


def test_inline_plugin_sdk_helpers_follow_the_approval(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOT_GRANTED", "x")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("from notes")
    (tmp_path / "private.txt").write_text("private")
    manifest = {
        "id": "reader",
        "name": "Reader",
        "description": "Reads notes.",
        "type": "inline",
        "permissions": {"filesystem": [str(notes)]},
        "capabilities": [
            {
                "id": "read",
                "name": "Read",
                "description": "Read a file.",
                "parameters": [{"name": "path", "type": "string"}],
            },
            {"id": "secret", "name": "Secret", "description": "Read an env var."},
        ],
    }
    src = write(tmp_path / "src", manifest, {"plugin.py": INLINE_FILES})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    ok = cli("plugin", "call", "reader", "read", "-p", f"path={notes / 'a.txt'}")
    assert ok.exit_code == 0 and ok.stdout.strip() == "from notes"
    denied = cli("plugin", "call", "reader", "read", "-p", f"path={tmp_path / 'private.txt'}")
    assert denied.exit_code == 1 and "outside the granted folders" in denied.output
    env = cli("plugin", "call", "reader", "secret")
    assert env.exit_code == 1 and "NOT_GRANTED was not granted" in env.output


def make_wheel(path: Path) -> Path:
    wheel = path / "hcdemo-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("hcdemo/__init__.py", "VALUE = 42\n")
        zf.writestr(
            "hcdemo-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: hcdemo\nVersion: 0.1\n"
        )
        zf.writestr(
            "hcdemo-0.1.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        zf.writestr("hcdemo-0.1.dist-info/RECORD", "")
    return wheel


@pytest.mark.slow
def test_with_deps_folder_is_what_the_plugin_runs_with(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # the inline runner prepends deps dirs
    wheel = make_wheel(tmp_path)
    sub = write(
        tmp_path / "sub",
        subprocess_manifest("subdeps"),
        {
            "main.py": """
            import json, sys, hcdemo
            sys.stdin.readline()
            print(json.dumps({"text": str(hcdemo.VALUE)}))
            """,
            "requirements.txt": f"{wheel}\n",
        },
    )
    inline = write(
        tmp_path / "inl",
        {
            "id": "inldeps",
            "name": "Inline deps",
            "description": "Uses a dependency.",
            "type": "inline",
            "capabilities": [{"id": "go", "name": "Go", "description": "Go."}],
        },
        {
            "plugin.py": """
            from homeclaw_cli.sdk import BasePlugin


            class P(BasePlugin):
                def go(self) -> str:
                    import hcdemo

                    return f"inline {hcdemo.VALUE}"
            """,
            "requirements.txt": f"{wheel}\n",
        },
    )
    env = {"PIP_NO_INDEX": "1"}
    for src in (sub, inline):
        result = cli("plugin", "install", str(src), "--with-deps", env=env)
        assert result.exit_code == 0, result.output
    assert "hcdemo" not in sys.modules
    assert cli("plugin", "call", "subdeps").stdout.strip() == "42"
    assert cli("plugin", "call", "inldeps").stdout.strip() == "inline 42"
    sys.modules.pop("hcdemo", None)


MCP_SERVER = """
import json, os
from mcp.server import MCPServer

server = MCPServer("envmcp")


@server.tool()
def handle_request(capability_id: str = "", parameters: dict | None = None) -> str:
    names = ("GRANTED", "UNRELATED", "HOMECLAW_PLUGIN_ID")
    return json.dumps({n: os.environ.get(n) for n in names})


if __name__ == "__main__":
    server.run("stdio")
"""


@pytest.mark.slow
def test_mcp_stdio_server_gets_only_approved_env_vars(
    cli: Any, hc_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRANTED", "g")
    monkeypatch.setenv("UNRELATED", "u")
    manifest = {
        "id": "envmcp",
        "name": "Env MCP",
        "description": "Shows its environment.",
        "type": "mcp",
        "config": {"transport": "stdio", "command": "python", "args": ["server.py"]},
        "permissions": {"env_vars": ["GRANTED"]},
    }
    src = write(tmp_path / "src", manifest, {"server.py": MCP_SERVER})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    result = cli("plugin", "call", "envmcp")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "GRANTED": "g",
        "UNRELATED": None,
        "HOMECLAW_PLUGIN_ID": "envmcp",
    }


def test_damaged_approval_store_section_is_a_clear_config_error(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write(tmp_path / "src", subprocess_manifest("plain"), {"main.py": ENV_SCRIPT})
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    store = hc_home / "data" / "state" / "approvals.json"
    store.write_text('{"plugin": 5}')
    result = cli("plugin", "call", "plain")
    assert result.exit_code == 3, result.output
    assert "approvals.json" in result.stderr and "`plugin`" in result.stderr
    assert "delete the file" in result.stderr
