"""The files `homeclaw plugin new` writes, as text templates.

Placeholders filled by app/scaffold.py: __ID__, __NAME__, __MODULE__, __CLASS__,
__PORT__ (and __TYPE__, __LANG__, __TEST__ in the README).
"""

CAPABILITY = """\
capabilities:
  - id: greet
    name: Greet
    description: Greet someone by name.
    parameters:
      - name: name
        type: string
        description: Who to greet.
    output_description: A one-line greeting.
"""

PERMISSIONS = """\
# What this plugin may reach; shown for approval at `homeclaw plugin install`.
permissions:
  network: []      # hosts, e.g. [api.example.com]
  filesystem: []   # folders, e.g. [~/notes]
  env_vars: []     # e.g. [MY_API_KEY]
  shell: false
"""

INLINE_PY = '''\
"""__NAME__: an inline homeclaw plugin (runs inside homeclaw's Python process)."""

from homeclaw_cli.sdk import BasePlugin, PluginError


class __CLASS__(BasePlugin):
    def initialize(self) -> None:
        self.greeting = self.config.get("greeting", "Hello")

    def greet(self, name: str) -> str:
        if not name.strip():
            raise PluginError("give a name to greet")
        return f"{self.greeting}, {name}!"
'''

INLINE_TEST = '''\
"""Run with: python -m pytest (from this folder)."""

import importlib.util
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def load_plugin():
    spec = importlib.util.spec_from_file_location("__MODULE___plugin", HERE / "plugin.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plugin = module.__CLASS__(plugin_id="__ID__", folder=HERE, config={})
    plugin.initialize()
    return plugin


def test_greet_says_hello():
    assert load_plugin().greet(name="Ada") == "Hello, Ada!"


def test_greet_needs_a_name():
    from homeclaw_cli.sdk import PluginError

    with pytest.raises(PluginError):
        load_plugin().greet(name=" ")
'''

HANDLER_PY = '''\
def handle(request: dict) -> dict:
    """PluginRequest -> PluginResult (seed 001 §5)."""
    capability = request.get("capability_id") or "greet"
    params = request.get("parameters") or {}
    result = {"request_id": request.get("request_id", ""), "plugin_id": "__ID__"}
    if capability != "greet":
        return {**result, "success": False, "error": f"unknown capability {capability!r}"}
    name = str(params.get("name") or "").strip()
    if not name:
        return {**result, "success": False, "error": "give a name to greet"}
    return {**result, "success": True, "text": f"Hello, {name}!"}
'''

SUBPROCESS_PY = (
    '''\
"""__NAME__: a subprocess plugin. One PluginRequest JSON on stdin, one PluginResult on stdout."""

import json
import sys


'''
    + HANDLER_PY
    + """

def main() -> int:
    try:
        request = json.loads(sys.stdin.readline() or "{}")
    except ValueError as exc:
        print(json.dumps({"success": False, "error": f"bad request JSON: {exc}"}))
        return 1
    print(json.dumps(handle(request)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
"""
)

SUBPROCESS_PY_TEST = '''\
"""Run with: python -m pytest (from this folder)."""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def call(request: dict) -> dict:
    proc = subprocess.run(
        [sys.executable, str(HERE / "main.py")],
        input=json.dumps(request) + "\\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(proc.stdout)


def test_greet_says_hello():
    result = call({"request_id": "r1", "capability_id": "greet", "parameters": {"name": "Ada"}})
    assert result == {"request_id": "r1", "plugin_id": "__ID__", "success": True,
                      "text": "Hello, Ada!"}


def test_unknown_capability_is_an_error():
    assert call({"capability_id": "nope"})["success"] is False
'''

HANDLER_JS = """\
function handle(request) {
  const capability = request.capability_id || "greet";
  const params = request.parameters || {};
  const result = { request_id: request.request_id || "", plugin_id: "__ID__" };
  if (capability !== "greet") {
    return { ...result, success: false, error: `unknown capability ${capability}` };
  }
  const name = String(params.name || "").trim();
  if (!name) return { ...result, success: false, error: "give a name to greet" };
  return { ...result, success: true, text: `Hello, ${name}!` };
}
"""

SUBPROCESS_JS = (
    """\
// __NAME__: a subprocess plugin. One PluginRequest JSON on stdin, one PluginResult on stdout.
"use strict";

"""
    + HANDLER_JS
    + """
module.exports = { handle };

if (require.main === module) {
  let input = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    input += chunk;
    if (input.includes("\\n")) process.stdin.pause(), respond();
  });
  process.stdin.on("end", respond);
  let done = false;
  function respond() {
    if (done) return;
    done = true;
    let request;
    try {
      request = JSON.parse(input.split("\\n")[0] || "{}");
    } catch (err) {
      const error = `bad request JSON: ${err}`;
      process.stdout.write(JSON.stringify({ success: false, error }) + "\\n");
      process.exit(1);
    }
    process.stdout.write(JSON.stringify(handle(request)) + "\\n");
    process.exit(0);
  }
}
"""
)

SUBPROCESS_JS_TEST = """\
// Run with: node --test
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const path = require("node:path");

function call(request) {
  const proc = spawnSync("node", [path.join(__dirname, "main.js")], {
    input: JSON.stringify(request) + "\\n",
    encoding: "utf8",
    timeout: 30000,
  });
  assert.strictEqual(proc.status, 0, proc.stderr);
  return JSON.parse(proc.stdout);
}

test("greet says hello", () => {
  const result = call({ request_id: "r1", capability_id: "greet", parameters: { name: "Ada" } });
  assert.deepStrictEqual(result, {
    request_id: "r1", plugin_id: "__ID__", success: true, text: "Hello, Ada!",
  });
});

test("unknown capability is an error", () => {
  assert.strictEqual(call({ capability_id: "nope" }).success, false);
});
"""

HTTP_PY = (
    '''\
"""__NAME__: an http plugin. POST /run takes a PluginRequest and returns a PluginResult.

Start it with `python server.py` (PORT=__PORT__ by default); homeclaw calls it at base_url.
"""

import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


'''
    + HANDLER_PY
    + """

class Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._send(200, {"ok": True})
        else:
            self._send(404, {"success": False, "error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/run":
            self._send(404, {"success": False, "error": "not found"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError as exc:
            self._send(400, {"success": False, "error": f"bad request JSON: {exc}"})
            return
        result = handle(request)
        self._send(200, result)

    def log_message(self, format: str, *args: object) -> None:
        pass


def make_server(port: int) -> ThreadingHTTPServer:
    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


if __name__ == "__main__":
    server = make_server(int(os.environ.get("PORT", "__PORT__")))
    print(f"__ID__ listening on http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever()
"""
)

HTTP_PY_TEST = '''\
"""Run with: python -m pytest (from this folder)."""

import importlib.util
import json
import threading
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent


def start():
    spec = importlib.util.spec_from_file_location("__MODULE___server", HERE / "server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server = module.make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_run_greets():
    server = start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/run"
        body = json.dumps({"request_id": "r1", "capability_id": "greet",
                           "parameters": {"name": "Ada"}}).encode()
        request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            result = json.loads(response.read())
        assert result["success"] is True
        assert result["text"] == "Hello, Ada!"
    finally:
        server.shutdown()
        server.server_close()
'''

HTTP_JS = (
    """\
// __NAME__: an http plugin. POST /run takes a PluginRequest and returns a PluginResult.
// Start it with `node server.js` (PORT=__PORT__ by default).
"use strict";
const http = require("node:http");

"""
    + HANDLER_JS
    + """
function createServer() {
  return http.createServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/health") return send(200, { ok: true });
    if (req.method !== "POST" || req.url !== "/run") {
      return send(404, { success: false, error: "not found" });
    }
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      let request;
      try {
        request = JSON.parse(body || "{}");
      } catch (err) {
        return send(400, { success: false, error: `bad request JSON: ${err}` });
      }
      send(200, handle(request));
    });
  });
}

module.exports = { createServer, handle };

if (require.main === module) {
  const port = Number(process.env.PORT || __PORT__);
  createServer().listen(port, "127.0.0.1", () => {
    console.log(`__ID__ listening on http://127.0.0.1:${port}`);
  });
}
"""
)

HTTP_JS_TEST = """\
// Run with: node --test
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { createServer } = require("./server.js");

test("POST /run greets", async () => {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address();
    const response = await fetch(`http://127.0.0.1:${port}/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        request_id: "r1", capability_id: "greet", parameters: { name: "Ada" },
      }),
    });
    const result = await response.json();
    assert.strictEqual(result.success, true);
    assert.strictEqual(result.text, "Hello, Ada!");
  } finally {
    server.close();
  }
});
"""

MCP_PY = '''\
"""__NAME__: an MCP server plugin (stdio). homeclaw calls its `handle_request` tool.

Needs the `mcp` package: `homeclaw plugin install ./__ID__ --with-deps` installs it from
requirements.txt into the plugin's own folder.
"""

from mcp.server import MCPServer

server = MCPServer("__ID__")


@server.tool()
def handle_request(
    capability_id: str = "greet",
    parameters: dict | None = None,
    user_input: str = "",
    request_id: str = "",
) -> str:
    """Handle one homeclaw PluginRequest; returns the result text."""
    if capability_id not in ("greet", ""):
        raise ValueError(f"unknown capability {capability_id!r}")
    name = str((parameters or {}).get("name") or user_input).strip()
    if not name:
        raise ValueError("give a name to greet")
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run("stdio")
'''

MCP_PY_TEST = '''\
"""Run with: python -m pytest (from this folder). Uses the MCP SDK's in-process client."""

import asyncio
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_handle_request_greets():
    from mcp import Client

    spec = importlib.util.spec_from_file_location("__MODULE___server", HERE / "server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    async def call():
        async with Client(module.server) as client:
            return await client.call_tool(
                "handle_request", {"capability_id": "greet", "parameters": {"name": "Ada"}}
            )

    result = asyncio.run(call())
    assert not result.is_error
    assert result.content[0].text == "Hello, Ada!"
'''

# A dependency-free MCP stdio server: newline-delimited JSON-RPC 2.0 (the MCP stdio transport).
MCP_JS = """\
// __NAME__: an MCP server plugin (stdio, no dependencies). homeclaw calls `handle_request`.
// For a bigger server, use @modelcontextprotocol/sdk instead of this minimal loop.
"use strict";
const readline = require("node:readline");

function greet(args) {
  const capability = args.capability_id || "greet";
  if (capability !== "greet") throw new Error(`unknown capability ${capability}`);
  const name = String((args.parameters || {}).name || args.user_input || "").trim();
  if (!name) throw new Error("give a name to greet");
  return `Hello, ${name}!`;
}

const TOOL = {
  name: "handle_request",
  description: "Handle one homeclaw PluginRequest; returns the result text.",
  inputSchema: {
    type: "object",
    properties: {
      capability_id: { type: "string" },
      parameters: { type: "object" },
      user_input: { type: "string" },
      request_id: { type: "string" },
    },
  },
};

function respond(message) {
  const { id, method, params } = message;
  if (method === "initialize") {
    return {
      protocolVersion: (params && params.protocolVersion) || "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "__ID__", version: "0.1.0" },
    };
  }
  if (method === "ping") return {};
  if (method === "tools/list") return { tools: [TOOL] };
  if (method === "tools/call") {
    if (params.name !== "handle_request") throw new Error(`unknown tool ${params.name}`);
    try {
      return { content: [{ type: "text", text: greet(params.arguments || {}) }], isError: false };
    } catch (err) {
      return { content: [{ type: "text", text: String(err.message) }], isError: true };
    }
  }
  const error = new Error(`method not found: ${method}`);
  error.code = -32601;
  throw error;
}

function handleLine(line) {
  if (!line.trim()) return null;
  const message = JSON.parse(line);
  if (message.id === undefined) return null; // a notification
  try {
    return { jsonrpc: "2.0", id: message.id, result: respond(message) };
  } catch (err) {
    const error = { code: err.code || -32603, message: err.message };
    return { jsonrpc: "2.0", id: message.id, error };
  }
}

module.exports = { handleLine };

if (require.main === module) {
  const rl = readline.createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    const reply = handleLine(line);
    if (reply) process.stdout.write(JSON.stringify(reply) + "\\n");
  });
}
"""

MCP_JS_TEST = """\
// Run with: node --test
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const path = require("node:path");

test("tools/call handle_request greets over stdio", () => {
  const lines = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call",
      params: {
        name: "handle_request",
        arguments: { capability_id: "greet", parameters: { name: "Ada" } },
      } },
  ].map((m) => JSON.stringify(m)).join("\\n") + "\\n";
  const server = path.join(__dirname, "server.js");
  const proc = spawnSync("node", [server], { input: lines, encoding: "utf8" });
  const replies = proc.stdout.trim().split("\\n").map((l) => JSON.parse(l));
  assert.strictEqual(replies.length, 2);
  assert.strictEqual(replies[1].result.content[0].text, "Hello, Ada!");
});
"""

README = """\
# __NAME__

A homeclaw __TYPE__ plugin (__LANG__), created by `homeclaw plugin new`.

    homeclaw plugin validate .        # check the manifest
    __TEST__# run its own tests
    homeclaw plugin install . --yes   # install into your user plugins dir

Edit plugin.yaml (description, capabilities, permissions) and the code, then validate again.
Declare in `permissions` every host, folder, env var or shell use the plugin needs: it is shown
for approval at install, and subprocess plugins receive only the approved env vars.
"""
