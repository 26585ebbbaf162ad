"""`homeclaw plugin mcp-import`: the server's tools as faithful capabilities, layout kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.json_output import payload
from tests.plugin_factory import REPO_ROOT, workspace_plugins

pytestmark = pytest.mark.slow
SERVER = REPO_ROOT / "tests" / "fakes" / "mcp_test_server.py"

MANIFEST = f"""\
# Our team's test server. Keep this comment.
id: testmcp
name: Test MCP
description: A test MCP server.
type: mcp
config:
  command: python
  args: ["{SERVER}"]  # the fake server
  timeout_sec: 20
capabilities:
  # Hand-written, must survive the import.
  - id: pid
    name: Process id
    description: The server's pid.
    effects: read
"""


def plugin_folder() -> Path:
    folder = workspace_plugins() / "testmcp"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(MANIFEST)
    return folder


def capabilities(folder: Path) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((folder / "plugin.yaml").read_text())
    return {c["id"]: c for c in data["capabilities"]}


def test_import_maps_schemas_and_annotations_and_keeps_comments(cli: Any) -> None:
    folder = plugin_folder()
    result = cli("plugin", "mcp-import", str(folder), "--only", "lookup", "--only", "purge")
    assert result.exit_code == 0, result.output
    assert "next: homeclaw sync --expand" in result.stderr
    text = (folder / "plugin.yaml").read_text()
    assert text.startswith("# Our team's test server. Keep this comment.\n")
    assert "# the fake server" in text and "# Hand-written, must survive the import." in text
    caps = capabilities(folder)
    assert caps["pid"]["effects"] == "read"  # the hand-written one, as written
    lookup = {p["name"]: p for p in caps["lookup"]["parameters"]}
    assert caps["lookup"]["effects"] == ["read"]  # readOnlyHint
    # FastMCP gives each property a title; it stands in for a missing description.
    assert lookup["city"] == {
        "name": "city",
        "type": "string",
        "required": True,
        "description": "City",
    }
    assert (
        lookup["unit"]["enum"] == ["celsius", "fahrenheit"]
        and lookup["unit"]["default"] == "celsius"
    )
    assert lookup["days"]["type"] == "integer" and lookup["days"]["required"] is False
    assert lookup["note"]["type"] == "string" and lookup["note"]["required"] is False
    purge = {p["name"]: p for p in caps["purge"]["parameters"]}
    assert caps["purge"]["effects"] == ["destructive"]  # destructiveHint
    assert purge["ids"]["type"] == "array"
    assert purge["ids"]["json_schema"]["items"] == {"type": "integer"}
    assert purge["filters"]["type"] == "object"
    assert purge["filters"]["json_schema"]["additionalProperties"] == {"type": "string"}
    checked = payload(cli("plugin", "validate", str(folder), "--json"))
    assert checked["valid"]  # its only warning: MCP tools carry no example requests
    assert [w["code"] for w in checked["plugins"][0]["warnings"]] == ["examples-missing"]
    called = cli(
        "plugin", "call", "testmcp", "purge", "-p", "ids:=[1,2]", "-p", 'filters:={"a":"b"}'
    )
    assert called.exit_code == 0, called.output
    assert "purged 2 matching {'a': 'b'}" in called.stdout
    refused = cli("plugin", "call", "testmcp", "lookup", "-p", "city=Oslo", "-p", "unit=kelvin")
    assert refused.exit_code != 0 and "must be one of" in refused.stderr


def test_the_dispatcher_tool_is_not_imported_as_a_capability(cli: Any) -> None:
    folder = plugin_folder()
    result = cli("plugin", "mcp-import", str(folder))
    assert result.exit_code == 0, result.output
    caps = capabilities(folder)
    assert "handle_request" not in caps and "handle-request" not in caps
    assert {"add", "get-time", "lookup", "purge"} <= set(caps)


def test_a_reimport_keeps_what_the_author_added_to_a_capability(cli: Any) -> None:
    folder = plugin_folder()
    manifest = folder / "plugin.yaml"
    manifest.write_text(
        manifest.read_text().replace(
            "    description: The server's pid.\n",
            "    description: The server's pid.\n    # Asked by the on-call team.\n"
            '    examples: ["which pid is the server", "server process id"]\n',
        )
        # ruamel hangs a comment above the next key on the last value before it: pid's effects
        + "# Found by retrieval with these.\nkeywords: [pid]\n"
    )
    for _ in range(2):  # the import, then a re-import after the server changed
        result = cli("plugin", "mcp-import", str(folder))
        assert result.exit_code == 0, result.output
    text = manifest.read_text()
    assert "# Asked by the on-call team." in text
    assert "# Found by retrieval with these.\nkeywords: [pid]" in text
    pid = capabilities(folder)["pid"]
    assert pid["examples"] == ["which pid is the server", "server process id"]
    assert (pid["name"], pid["effects"]) == ("Pid", ["write"])  # what the server says now
    assert text.count("- id: pid") == 1


def test_a_one_line_capability_list_is_written_as_blocks(cli: Any) -> None:
    folder = plugin_folder()
    manifest = folder / "plugin.yaml"
    text = manifest.read_text()
    one_line = "capabilities: [{id: pid, name: Process id, description: The pid.}]\n"
    manifest.write_text(text[: text.index("capabilities:")] + one_line)
    result = cli("plugin", "mcp-import", str(folder), "--only", "pid", "--only", "purge")
    assert result.exit_code == 0, result.output
    written = manifest.read_text()
    assert "capabilities:\n  - id: pid\n" in written and "  - id: purge\n" in written
    assert max(len(line) for line in written.splitlines()) <= 100


def test_a_server_that_exits_at_once_names_the_manifest_to_fix(cli: Any, tmp_path: Path) -> None:
    folder = plugin_folder()
    dying = tmp_path / "dying_server.py"
    dying.write_text("import sys\nsys.stderr.write('missing API key\\n')\nsys.exit(1)\n")
    manifest = folder / "plugin.yaml"
    manifest.write_text(manifest.read_text().replace(str(SERVER), str(dying)))
    before = manifest.read_text()
    result = cli("plugin", "mcp-import", str(folder))
    assert result.exit_code == 5, result.output
    assert "missing API key" in result.stderr
    assert f"check config.command and config.args in {manifest}" in result.stderr
    assert manifest.read_text() == before


COLLIDING = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("colliding")
for name in ["名前", "日本", "a.b", "a-b", "A_B", "a_b"]:
    server.add_tool(lambda name=name: name, name=name, description=f"Tool {name}.")
server.run()
"""


def import_from(cli: Any, server: Path, source: str) -> Path:
    """The test plugin's folder, its server replaced by `source` (written to `server`), after
    a successful `plugin mcp-import`."""
    folder = plugin_folder()
    server.write_text(source)
    manifest = folder / "plugin.yaml"
    manifest.write_text(manifest.read_text().replace(str(SERVER), str(server)))
    result = cli("plugin", "mcp-import", str(folder))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return folder


def test_tools_whose_ids_collide_get_ids_of_their_own(cli: Any, tmp_path: Path) -> None:
    folder = import_from(cli, tmp_path / "colliding_server.py", COLLIDING)
    tools = yaml.safe_load((folder / "plugin.yaml").read_text())["config"]["tools"]
    # a name that already is a valid id keeps it; the others are numbered
    assert tools == {"tool": "名前", "tool-2": "日本", "a-b-2": "a.b", "a_b-2": "A_B"}
    assert {"pid", "tool", "tool-2", "a-b", "a-b-2", "a_b", "a_b-2"} == set(capabilities(folder))
    for cap_id, answer in [("tool-2", "日本"), ("a-b", "a-b"), ("a_b", "a_b"), ("a_b-2", "A_B")]:
        called = cli("plugin", "call", "testmcp", cap_id)
        assert called.stdout == f"{answer}\n", called.output


MODELS = """\
from pydantic import BaseModel
from mcp.server.mcpserver import MCPServer

server = MCPServer("models")


class Point(BaseModel):
    x: float
    y: float


class Shape(BaseModel):
    points: list[Point]
    name: str = "shape"


@server.tool()
def area(shape: Shape, origin: Point | None = None) -> str:
    \"\"\"Pydantic model parameters: the schema refers to its $defs.\"\"\"
    return f"{shape.name}: {len(shape.points)} points from {origin}"


server.run()
"""


def test_model_parameters_behind_refs_are_imported_as_objects(cli: Any, tmp_path: Path) -> None:
    folder = import_from(cli, tmp_path / "models_server.py", MODELS)
    params = {p["name"]: p for p in capabilities(folder)["area"]["parameters"]}
    assert params["shape"]["type"] == "object" and params["shape"]["required"] is True
    number = {"type": "number"}
    point = {
        "properties": {"x": {"title": "X", **number}, "y": {"title": "Y", **number}},
        "required": ["x", "y"],
        "title": "Point",
        "type": "object",
    }
    assert params["shape"]["json_schema"]["properties"]["points"]["items"] == point
    assert params["origin"]["type"] == "object" and params["origin"]["required"] is False
    shape = '{"points": [{"x": 1, "y": 2}]}'
    called = cli("plugin", "call", "testmcp", "area", "-p", f"shape:={shape}")
    assert called.stdout == "shape: 1 points from None\n", called.output


def test_a_plugin_of_another_type_is_refused_with_its_type(cli: Any) -> None:
    result = cli("plugin", "mcp-import", str(REPO_ROOT / "plugins" / "units"))
    assert result.exit_code == 2, result.output
    assert "units has type: inline; mcp-import needs type: mcp" in result.stderr
