"""`homeclaw plugin new`: a plugin folder that validates and runs at once, with its own test.

Every scaffold has one capability, `greet(name)`, so the whole path (manifest, parameters,
result) is exercised from the first minute; replace it with the real thing.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from homeclaw_cli.core.ids import check_plugin_id, id_slug
from homeclaw_cli.errors import UsageError

TEMPLATES = Path(__file__).resolve().parent / "scaffold_templates"
TYPES = ("inline", "subprocess", "http", "mcp")
EXECUTABLES = ("main.py", "main.js", "server.py", "server.js")
LANGS = ("python", "node")


@dataclass
class ScaffoldResult:
    plugin_id: str
    folder: Path
    files: list[str]
    test_command: str


def plugin_id_from(name: str) -> str:
    slug = id_slug(name)
    if not slug or not slug[0].isalnum():
        raise UsageError(
            f"cannot make a plugin id from {name!r}",
            hint="use letters and digits, e.g. `homeclaw plugin new weather`",
        )
    try:
        return check_plugin_id(slug)
    except ValueError as exc:
        raise UsageError(str(exc), hint="give the plugin another name") from None


def _port(plugin_id: str) -> int:
    return 3100 + zlib.crc32(plugin_id.encode()) % 900


def template(name: str) -> str:
    """A scaffold file as written, placeholders (__ID__, __NAME__, ...) still in it."""
    return (TEMPLATES / f"{name}.tmpl").read_text(encoding="utf-8")


def _manifest(plugin_id: str, name: str, ptype: str, config: str) -> str:
    # Quoted: a name such as `123`, `yes` or `null` would otherwise be read as a number,
    # a boolean or nothing, and the scaffold would fail its own validation.
    description = f"Greets people by name (replace with what {name} does)."
    return (
        f"id: {_quoted(plugin_id)}\n"
        f"name: {_quoted(name)}\n"
        f"description: {_quoted(description)}\n"
        'version: "0.1.0"\n'
        "# Requests people would type to reach this plugin: they are embedded and searched, so\n"
        "# write them the way users do (terse ones too). 3-200 characters, at most 10.\n"
        'examples: ["say hi to Ada", "greet the new intern Sam"]\n'
        "# Requests it is mistaken for but does not serve; such a request is not offered it.\n"
        '# not_for: ["send Ada a birthday card"]\n'
        f"type: {ptype}\n" + config + template("capability.yaml") + template("permissions.yaml")
    )


def _quoted(text: str) -> str:
    """`text` as a YAML double-quoted string (JSON's string syntax is YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def _config(ptype: str, lang: str, port: int) -> str:
    """The manifest's `config:` block (and for http its health check) for a type and language."""
    python = lang == "python"
    if ptype == "subprocess":
        return f"config:\n  command: {'python3' if python else 'node'}\n" + (
            '  args: ["main.py"]\n' if python else '  args: ["main.js"]\n'
        )
    if ptype == "http":
        return f"config:\n  base_url: http://127.0.0.1:{port}\n  path: /run\n"
    if ptype == "mcp":
        command, entry = ("python3", "server.py") if python else ("node", "server.js")
        return (
            f'config:\n  transport: stdio\n  command: {command}\n  args: ["{entry}"]\n'
            "  tool: handle_request\n"
        )
    return ""


def _code_files(ptype: str, lang: str, module: str) -> dict[str, str]:
    """The plugin's code and its test, named as the scaffold's README tells people to run them."""
    if ptype == "inline":
        return {
            "plugin.py": template("inline/plugin.py"),
            f"test_{module}.py": template("inline/test_plugin.py"),
        }
    entry = "main" if ptype == "subprocess" else "server"
    if lang == "python":
        files = {
            f"{entry}.py": template(f"{ptype}/{entry}.py"),
            f"test_{module}.py": template(f"{ptype}/test_plugin.py"),
        }
        if ptype == "mcp":
            files["requirements.txt"] = "mcp>=1.9\n"
        return files
    return {
        f"{entry}.js": template(f"{ptype}/{entry}.js"),
        f"{module}.test.js": template(f"{ptype}/plugin.test.js"),
    }


def _class_name(plugin_id: str) -> str:
    klass = "".join(part.capitalize() for part in re.split(r"[-_]", plugin_id)) + "Plugin"
    return "P" + klass if klass[0].isdigit() else klass


def _files(plugin_id: str, name: str, ptype: str, lang: str) -> tuple[dict[str, str], str]:
    module = plugin_id.replace("-", "_")
    port = _port(plugin_id)
    manifest = _manifest(plugin_id, name, ptype, _config(ptype, lang, port))
    if ptype == "http":
        manifest += f"health_check_url: http://127.0.0.1:{port}/health\n"
    files = {"plugin.yaml": manifest, **_code_files(ptype, lang, module)}
    test_cmd = "python -m pytest" if lang == "python" or ptype == "inline" else "node --test"
    shown_lang = "python" if ptype == "inline" else lang
    files["README.md"] = (
        template("README.md")
        .replace("__TYPE__", ptype)
        .replace("__LANG__", shown_lang)
        .replace("__TEST__", test_cmd.ljust(34))  # keeps the comments in one column
    )
    rendered = {
        path: text.replace("__ID__", plugin_id)
        .replace("__NAME__", name)
        .replace("__MODULE__", module)
        .replace("__CLASS__", _class_name(plugin_id))
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
        if rel in EXECUTABLES:
            path.chmod(0o755)
    return ScaffoldResult(plugin_id, folder, sorted(files), test_cmd)
