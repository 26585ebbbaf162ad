"""The to-do plugin's HTTP server (a homeclaw `type: http` plugin). Standard library only.

    python plugins/todo/server.py [--host 127.0.0.1] [--port 3107] [--data FILE]

Endpoints: GET /health; GET /todos?status=open|done|all; POST /todos {"text"};
POST /todos/done {"id"}; POST /run with a PluginRequest (capability `summary`).
Replies are PluginResult JSON; errors are 4xx with {"success": false, "error": "..."}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

MAX_BODY = 64 * 1024


class TodoStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()

    def load(self) -> list[dict]:
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []

    def save(self, todos: list[dict]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".todo.")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(todos, handle, indent=2)
        Path(tmp).replace(self.path)


class Handler(BaseHTTPRequestHandler):
    store: TodoStore

    def log_message(self, format: str, *args: object) -> None:  # quiet by default
        pass

    def reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def ok(self, text: str, **metadata: object) -> None:
        self.reply(200, {"success": True, "text": text, "metadata": metadata})

    def error(self, status: int, message: str) -> None:
        self.reply(status, {"success": False, "error": message})

    def body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("request body too large")
        data = json.loads(self.rfile.read(length) or b"{}")
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        return data

    def do_GET(self) -> None:
        url = urlparse(self.path)
        if url.path == "/health":
            self.reply(200, {"ok": True})
        elif url.path == "/todos":
            status = parse_qs(url.query).get("status", ["open"])[0]
            if status not in ("open", "done", "all"):
                self.error(400, f"status must be open, done or all, not {status!r}")
                return
            todos = [t for t in self.store.load() if status == "all" or t["status"] == status]
            lines = [
                f"{t['id']}. [{'x' if t['status'] == 'done' else ' '}] {t['text']}" for t in todos
            ]
            self.ok("\n".join(lines) or f"No {status} tasks.", todos=todos)
        else:
            self.error(404, f"no endpoint GET {url.path}")

    def do_POST(self) -> None:
        path = urlparse(self.path).path
        try:
            data = self.body()
        except ValueError as exc:
            self.error(400, str(exc))
            return
        with self.store.lock:
            todos = self.store.load()
            if path == "/todos":
                text = str(data.get("text", "")).strip()
                if not text:
                    self.error(400, "text is required")
                    return
                number = max((t["id"] for t in todos), default=0) + 1
                todo = {"id": number, "text": text, "status": "open"}
                todos.append(todo)
                self.store.save(todos)
                self.ok(f"Added task {todo['id']}: {text}", todo=todo)
            elif path == "/todos/done":
                todo = next((t for t in todos if t["id"] == data.get("id")), None)
                if todo is None:
                    self.error(404, f"there is no task {data.get('id')}")
                    return
                todo["status"] = "done"
                self.store.save(todos)
                self.ok(f"Done: {todo['text']}", todo=todo)
            elif path == "/run":
                self.run_request(data, todos)
            else:
                self.error(404, f"no endpoint POST {path}")

    def run_request(self, request: dict, todos: list[dict]) -> None:
        open_ = [t for t in todos if t["status"] == "open"]
        done = len(todos) - len(open_)
        next_up = f" Next: {open_[0]['text']}." if open_ else ""
        self.reply(
            200,
            {
                "request_id": request.get("request_id", ""),
                "plugin_id": "todo",
                "success": True,
                "text": f"{len(open_)} open, {done} done.{next_up}",
                "metadata": {"open": len(open_), "done": done},
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3107, help="0 picks a free port")
    parser.add_argument("--data", type=Path, default=Path.home() / ".homeclaw-todo.json")
    args = parser.parse_args()
    Handler.store = TodoStore(args.data)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    # The first line tells a supervisor (or a test) where the server listens.
    print(f"listening on http://{args.host}:{server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
