"""Registrations per second through a real `homeclaw serve`, and none lost, under N clients.

    python benchmarks/bench_serve.py [--clients 50] [--per-client 4] [--no-check]

Starts `homeclaw serve --port 0` in a temporary HOMECLAW_HOME, fires clients x per-client
registrations (distinct ids) from as many concurrent clients, then counts what
external_plugins.json holds and what the API lists after a server restart.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from homeclaw_cli.state.external_registrations import read_external_plugins
from tests.fakes.processes import child_env, start_serve


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--per-client", type=int, default=4)
    parser.add_argument("--no-check", action="store_true", help="skip the health check")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as home:
        env = child_env(
            {
                "HOMECLAW_HOME": home,
                "HOMECLAW_NO_BUNDLED": "1",
                "HOMECLAW_SERVE__CHECK_ON_REGISTER": "false" if args.no_check else "true",
                "HOMECLAW_SERVE__HEALTH_INTERVAL_SEC": "0",
                "HOMECLAW_SERVE__SYNC_ON_REGISTER": "false",  # measure registration only
            }
        )
        server, url = start_serve(env)
        try:
            token = (Path(home) / "data/state/serve_token").read_text().strip()
            headers = {"Authorization": f"Bearer {token}"}

            async def client(http: httpx.AsyncClient, c: int) -> list[int]:
                codes = []
                for k in range(args.per_client):
                    i = c * args.per_client + k
                    body = {
                        "plugin_id": f"bench-{i}",
                        "name": f"Bench {i}",
                        "description": f"Benchmark plugin {i}.",
                        "health_check_url": f"{url}/api/health",
                        "type": "http",
                        "config": {"base_url": f"http://127.0.0.1:{20000 + i}"},
                    }
                    r = await http.post(f"{url}/api/plugins/register", json=body, headers=headers)
                    codes.append(r.status_code)
                return codes

            async def burst() -> list[int]:
                # One connection per client, all at once: 50 plugins starting together.
                limits = httpx.Limits(max_connections=args.clients)
                async with httpx.AsyncClient(timeout=120, limits=limits) as http:
                    chunks = await asyncio.gather(*(client(http, c) for c in range(args.clients)))
                return [code for chunk in chunks for code in chunk]

            total = args.clients * args.per_client
            start = time.perf_counter()
            codes = asyncio.run(burst())
            seconds = time.perf_counter() - start
            server.stop()
            manifests, problems = read_external_plugins(Path(home) / "data/external_plugins.json")
            server, url = start_serve(env)
            listed = {row["id"] for row in httpx.get(f"{url}/api/plugins").json()}
        finally:
            server.stop()

    expected = {f"bench-{i}" for i in range(total)}
    ok = sum(code == 200 for code in codes)
    print(
        f"clients: {args.clients}  registrations: {total}  "
        f"health check: {'off' if args.no_check else 'on'}"
    )
    print(f"seconds: {seconds:.2f}  registrations/s: {total / seconds:.1f}")
    print(
        f"HTTP 200: {ok}/{total}  in file: {len({m.id for m in manifests})}  "
        f"file problems: {len(problems)}  listed after restart: {len(listed & expected)}"
    )
    print(f"lost: {len(expected - {m.id for m in manifests})}")


if __name__ == "__main__":
    main()
