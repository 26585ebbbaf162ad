"""A stand-in server for a public set's plugins, so chat tasks can call them.

The converted public sets (benchmarks/public) are descriptors of APIs nobody serves here; their
http plugins point at an address nothing listens on (convert.BASE_URL). homeclaw offers an http
plugin only while its server answers, so the chat loop would see none of them. For chat tasks
on such a set (public_tasks.py), `stand_in_plugins` copies the plugins with their base_url set
to a local server that answers every call with a success naming what it received: what is
measured is which plugin the model calls and with what, never the answer.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

DEAD_URL = "http://127.0.0.1:9"  # benchmarks/public/convert.py BASE_URL


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            request = {}
        capability = request.get("capability_id", "?")
        params = json.dumps(request.get("parameters", {}), ensure_ascii=False)
        body = {"success": True, "text": f"Done: {capability} with {params}."}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the benchmark's output is its report."""


@contextmanager
def stand_in_plugins(source: Path, target: Path) -> Iterator[Path]:
    """`source`'s plugins copied to `target`, those at DEAD_URL pointed at a stand-in server
    that runs until the block ends; yields `target`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    for manifest_path in target.glob("*/plugin.yaml"):
        manifest = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
        config = manifest.get("config") or {}
        if manifest.get("type") == "http" and config.get("base_url") == DEAD_URL:
            config["base_url"] = url
            manifest_path.write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield target
    finally:
        server.shutdown()
        server.server_close()
