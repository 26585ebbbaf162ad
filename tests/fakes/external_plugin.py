"""A real external plugin process: an HTTP server (stdlib only) that registers itself.

    python external_plugin.py --port 0 --homeclaw http://127.0.0.1:9750 --token-file F --id echo

Serves GET /health (200), POST /run (seed 001 §5.4: PluginRequest -> PluginResult) and the
REST capability POST /echo (body: the parameters). Once listening it POSTs its descriptor
to {homeclaw}/api/plugins/register and prints one line `ready <port> <http status>` on
stdout, then serves until killed. Without --homeclaw it only serves (`ready <port> -`).
Plugins in any language do the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def descriptor(plugin_id: str, port: int) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    return {
        "plugin_id": plugin_id,
        "name": "Echo",
        "description": "Echo a message back, shouted.",
        "description_long": "Repeats the text it is given in upper case. Use to test plugins.",
        "health_check_url": f"{base}/health",
        "type": "http",
        "config": {"base_url": base, "path": "/run", "timeout_sec": 5},
        "capabilities": [
            {
                "id": "shout",
                "name": "Shout",
                "description": "Repeat a message in upper case.",
                "parameters": [{"name": "text", "type": "string", "description": "Message"}],
                "method": "POST",
                "path": "/echo",
                "effects": "read",
            }
        ],
    }


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
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
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/echo":  # REST capability: the body is the parameters
            text = str(request.get("text", ""))
        else:  # /run: a PluginRequest
            params = request.get("parameters") or {}
            text = str(params.get("text") or request.get("user_input") or "")
        self._send(
            200,
            {
                "request_id": request.get("request_id", ""),
                "plugin_id": request.get("plugin_id", ""),
                "success": True,
                "text": text.upper(),
            },
        )


def register(homeclaw: str, token: str | None, body: dict[str, Any]) -> int:
    request = urllib.request.Request(
        f"{homeclaw}/api/plugins/register",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        sys.stderr.write(exc.read().decode() + "\n")
        return int(exc.code)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--homeclaw")
    parser.add_argument("--token-file", type=Path)
    parser.add_argument("--id", default="echo")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]
    # Serve first: homeclaw GETs the health URL while handling the registration.
    threading.Thread(target=server.serve_forever, daemon=True).start()
    status: int | str = "-"
    if args.homeclaw:
        token = args.token_file.read_text().strip() if args.token_file else None
        status = register(args.homeclaw, token, descriptor(args.id, port))
    print(f"ready {port} {status}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
