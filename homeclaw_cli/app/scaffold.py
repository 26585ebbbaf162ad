"""`homeclaw plugin new`: a plugin folder that validates and runs at once, with its own test.

Every scaffold has one capability, `greet(name)`, so the whole path (manifest, parameters,
result) is exercised from the first minute; replace it with the real thing.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from homeclaw_cli.app.scaffold_templates import (
    CAPABILITY,
    HTTP_JS,
    HTTP_JS_TEST,
    HTTP_PY,
    HTTP_PY_TEST,
    INLINE_PY,
    INLINE_TEST,
    MCP_JS,
    MCP_JS_TEST,
    MCP_PY,
    MCP_PY_TEST,
    PERMISSIONS,
    README,
    SUBPROCESS_JS,
    SUBPROCESS_JS_TEST,
    SUBPROCESS_PY,
    SUBPROCESS_PY_TEST,
)
from homeclaw_cli.errors import UsageError

TYPES = ("inline", "subprocess", "http", "mcp")
LANGS = ("python", "node")


@dataclass
class ScaffoldResult:
    plugin_id: str
    folder: Path
    files: list[str]
    test_command: str


def plugin_id_from(name: str) -> str:
    slug = re.sub(r"[^a-z0-9_-]+", "-", name.strip().lower()).strip("-_")
    if not slug or not slug[0].isalnum():
        raise UsageError(
            f"cannot make a plugin id from {name!r}",
            hint="use letters and digits, e.g. `homeclaw plugin new weather`",
        )
    return slug


def _port(plugin_id: str) -> int:
    return 3100 + zlib.crc32(plugin_id.encode()) % 900


def _manifest(plugin_id: str, name: str, ptype: str, config: str) -> str:
    return (
        f"id: {plugin_id}\n"
        f"name: {name}\n"
        f"description: Greets people by name (replace with what {name} does).\n"
        'version: "0.1.0"\n'
        f"type: {ptype}\n" + config + CAPABILITY + PERMISSIONS
    )


def _files(plugin_id: str, name: str, ptype: str, lang: str) -> tuple[dict[str, str], str]:
    module = plugin_id.replace("-", "_")
    test_py = f"test_{module}.py"
    test_js = f"{module}.test.js"
    port = _port(plugin_id)
    files: dict[str, str]
    if ptype == "inline":
        files = {
            "plugin.yaml": _manifest(plugin_id, name, "inline", ""),
            "plugin.py": INLINE_PY,
            test_py: INLINE_TEST,
        }
    elif ptype == "subprocess":
        cmd = (
            '  command: python3\n  args: ["main.py"]\n'
            if lang == "python"
            else ('  command: node\n  args: ["main.js"]\n')
        )
        files = {"plugin.yaml": _manifest(plugin_id, name, "subprocess", "config:\n" + cmd)}
        if lang == "python":
            files.update({"main.py": SUBPROCESS_PY, test_py: SUBPROCESS_PY_TEST})
        else:
            files.update({"main.js": SUBPROCESS_JS, test_js: SUBPROCESS_JS_TEST})
    elif ptype == "http":
        config = f"config:\n  base_url: http://127.0.0.1:{port}\n  path: /run\n"
        manifest = _manifest(plugin_id, name, "http", config)
        manifest += f"health_check_url: http://127.0.0.1:{port}/health\n"
        files = {"plugin.yaml": manifest}
        if lang == "python":
            files.update({"server.py": HTTP_PY, test_py: HTTP_PY_TEST})
        else:
            files.update({"server.js": HTTP_JS, test_js: HTTP_JS_TEST})
    else:
        cmd = "python3" if lang == "python" else "node"
        entry = "server.py" if lang == "python" else "server.js"
        config = f'config:\n  transport: stdio\n  command: {cmd}\n  args: ["{entry}"]\n'
        config += "  tool: handle_request\n"
        files = {"plugin.yaml": _manifest(plugin_id, name, "mcp", config)}
        if lang == "python":
            files.update(
                {"server.py": MCP_PY, test_py: MCP_PY_TEST, "requirements.txt": "mcp>=1.9\n"}
            )
        else:
            files.update({"server.js": MCP_JS, test_js: MCP_JS_TEST})
    test_cmd = "python -m pytest" if lang == "python" or ptype == "inline" else "node --test"
    shown_lang = "python" if ptype == "inline" else lang
    files["README.md"] = (
        README.replace("__TYPE__", ptype)
        .replace("__LANG__", shown_lang)
        .replace("__TEST__", test_cmd.ljust(34))  # keeps the comments in one column
    )
    klass = "".join(part.capitalize() for part in re.split(r"[-_]", plugin_id)) + "Plugin"
    if klass[0].isdigit():
        klass = "P" + klass
    rendered = {
        path: text.replace("__ID__", plugin_id)
        .replace("__NAME__", name)
        .replace("__MODULE__", module)
        .replace("__CLASS__", klass)
        .replace("__PORT__", str(port))
        for path, text in files.items()
    }
    return rendered, test_cmd


def scaffold_plugin(name: str, ptype: str, lang: str, directory: Path) -> ScaffoldResult:
    """Write a new plugin folder `<directory>/<id>`; refuses to touch an existing one."""
    if ptype not in TYPES:
        raise UsageError(f"unknown plugin type {ptype!r}", hint=f"use one of: {', '.join(TYPES)}")
    if lang not in LANGS:
        raise UsageError(f"unknown language {lang!r}", hint=f"use one of: {', '.join(LANGS)}")
    if ptype == "inline" and lang != "python":
        raise UsageError(
            "inline plugins are Python (they run inside homeclaw)",
            hint="use --type subprocess, http or mcp for a node plugin",
        )
    plugin_id = plugin_id_from(name)
    folder = directory.expanduser().resolve() / plugin_id
    if folder.exists():
        raise UsageError(f"{folder} already exists", hint="pick another name or --dir")
    display = name.strip() if plugin_id != name.strip() else name.strip().replace("-", " ").title()
    files, test_cmd = _files(plugin_id, display, ptype, lang)
    folder.mkdir(parents=True)
    for rel, text in files.items():
        path = folder / rel
        path.write_text(text, encoding="utf-8")
        if rel in ("main.py", "main.js", "server.py", "server.js"):
            path.chmod(0o755)
    return ScaffoldResult(plugin_id, folder, sorted(files), test_cmd)
