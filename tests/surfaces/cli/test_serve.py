"""`homeclaw serve` as a real process with a real external plugin process registering itself."""

from __future__ import annotations

import shutil
import stat
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.processes import (
    EXTERNAL_PLUGIN,
    LineProcess,
    child_env,
    start_plugin,
    start_serve,
)
from tests.json_output import payload

TOKEN_FILE = "data/state/serve_token"


@pytest.fixture
def serve_env(hc_home: Path) -> dict[str, str]:
    return child_env(
        {
            "HOMECLAW_NO_BUNDLED": "1",
            "HOMECLAW_SERVE__HEALTH_INTERVAL_SEC": "0.2",
            "HOMECLAW_SERVE__HEALTH_TIMEOUT_SEC": "2",
            "HOMECLAW_SERVE__UNHEALTHY_AFTER": "2",
            # The real embedding model is for the slow test below; plain CLI calls here.
            "HOMECLAW_SERVE__SYNC_ON_REGISTER": "false",
        }
    )


@pytest.fixture
def processes() -> Iterator[list[LineProcess]]:
    started: list[LineProcess] = []
    yield started
    for proc in started:
        proc.kill()


def plugin_list(run_cli: Callable[..., Any], env: dict[str, str]) -> dict[str, dict[str, Any]]:
    result = run_cli("plugin", "list", "--json", env=env)
    assert result.returncode == 0, result.stderr
    return {row["id"]: row for row in payload(result)}


def test_external_plugin_lifecycle_across_a_restart(
    hc_home: Path,
    serve_env: dict[str, str],
    processes: list[LineProcess],
    run_cli: Callable[..., Any],
) -> None:
    server, url = start_serve(serve_env)
    processes.append(server)
    token_file = hc_home / TOKEN_FILE
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600

    # The plugin process registers itself through the API with the token.
    plugin, port, status = start_plugin(serve_env, homeclaw=url, token_file=token_file)
    processes.append(plugin)
    assert status == "200"
    server.wait_for(r"registered echo \(added\)")
    rows = plugin_list(run_cli, serve_env)
    assert rows["echo"]["source"] == "external"
    assert rows["echo"]["status"] == "ok"
    assert rows["echo"]["capabilities"] == ["shout"]
    proxied = httpx.get(f"{url}/api/plugins/health/echo").json()
    assert proxied["ok"] is True
    called = run_cli("plugin", "call", "echo", "shout", "-p", "text=hello", env=serve_env)
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "HELLO"

    # It goes down: after 2 failed interval checks it is unhealthy everywhere.
    plugin.kill()
    server.wait_for(r"plugin echo is unhealthy")
    assert plugin_list(run_cli, serve_env)["echo"]["status"] == "unhealthy"
    shown = httpx.get(f"{url}/api/plugins/echo").json()
    assert shown["health"]["ok"] is False
    assert shown["health"]["failures"] >= 2
    down = run_cli("plugin", "call", "echo", "shout", "-p", "text=hello", env=serve_env)
    assert down.returncode == 5
    assert "127.0.0.1" in down.stderr

    # It comes back on the same port (re-registering the same descriptor is a no-op).
    plugin, _, status = start_plugin(serve_env, homeclaw=url, token_file=token_file, port=port)
    processes.append(plugin)
    assert status == "200"
    server.wait_for(r"plugin echo is healthy again")
    assert plugin_list(run_cli, serve_env)["echo"]["status"] == "ok"
    back = run_cli("plugin", "call", "echo", "shout", "-p", "text=again", env=serve_env)
    assert back.stdout.strip() == "AGAIN"

    # The server restarts: the registration survives and the token stays the same.
    token = token_file.read_text().strip()
    server.stop()
    assert server.proc.returncode == 0, server.seen
    server, url = start_serve(serve_env)
    processes.append(server)
    assert token_file.read_text().strip() == token
    listed = {row["id"]: row for row in httpx.get(f"{url}/api/plugins").json()}
    assert listed["echo"]["source"] == "external"

    gone = httpx.post(
        f"{url}/api/plugins/unregister",
        json={"plugin_id": "echo"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert gone.status_code == 200
    assert "echo" not in plugin_list(run_cli, serve_env)


@pytest.mark.slow
def test_fifty_concurrent_clients_none_lost_and_a_restart_keeps_them(
    hc_home: Path, serve_env: dict[str, str], processes: list[LineProcess]
) -> None:
    server, url = start_serve(serve_env)
    processes.append(server)
    headers = {"Authorization": f"Bearer {(hc_home / TOKEN_FILE).read_text().strip()}"}

    def register(i: int) -> int:
        body = {
            "plugin_id": f"svc-{i}",
            "name": f"Service {i}",
            "description": f"Service number {i}.",
            "health_check_url": f"{url}/api/health",
            "type": "http",
            "config": {"base_url": f"http://127.0.0.1:{20000 + i}"},
        }
        response = httpx.post(f"{url}/api/plugins/register", json=body, headers=headers, timeout=60)
        return response.status_code

    with ThreadPoolExecutor(max_workers=50) as pool:
        statuses = list(pool.map(register, range(50)))
    assert statuses == [200] * 50

    server.stop()
    server, url = start_serve(serve_env)
    processes.append(server)
    ids = {row["id"] for row in httpx.get(f"{url}/api/plugins").json()}
    assert ids == {f"svc-{i}" for i in range(50)}


def test_non_loopback_bind_warns_and_no_token_warns(
    serve_env: dict[str, str], processes: list[LineProcess]
) -> None:
    server, _ = start_serve(serve_env, "--host", "0.0.0.0", "--no-token")
    processes.append(server)
    text = "\n".join(server.seen)
    assert "not loopback" in text
    assert "without a token" in text
    assert "token is turned off" in text


def test_show_token_prints_the_stored_token(hc_home: Path, run_cli: Callable[..., Any]) -> None:
    first = run_cli("serve", "--show-token")
    assert first.returncode == 0, first.stderr
    token = first.stdout.strip()
    assert len(token) >= 32
    assert (hc_home / TOKEN_FILE).read_text().strip() == token
    assert run_cli("serve", "--show-token").stdout.strip() == token


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_a_node_plugin_registers_itself(
    hc_home: Path,
    serve_env: dict[str, str],
    processes: list[LineProcess],
    run_cli: Callable[..., Any],
) -> None:
    server, url = start_serve(serve_env)
    processes.append(server)
    script = EXTERNAL_PLUGIN.with_suffix(".mjs")
    args = ["--port", "0", "--homeclaw", url, "--token-file", str(hc_home / TOKEN_FILE)]
    plugin = LineProcess(
        [str(shutil.which("node")), str(script), *args], env=serve_env, watch="stdout"
    )
    processes.append(plugin)
    assert plugin.wait_for(r"^ready (\d+) (\S+)").group(2) == "200"
    row = plugin_list(run_cli, serve_env)["node-echo"]
    assert (row["source"], row["status"], row["capabilities"]) == ("external", "ok", ["reverse"])
    called = run_cli("plugin", "call", "node-echo", "-p", "text=abc", env=serve_env)
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "cba"


def test_a_port_in_use_is_a_clear_error(
    serve_env: dict[str, str], processes: list[LineProcess], run_cli: Callable[..., Any]
) -> None:
    server, url = start_serve(serve_env)
    processes.append(server)
    port = url.rsplit(":", 1)[1]
    second = run_cli("serve", "--port", port, env=serve_env)
    assert second.returncode == 5
    assert f"cannot listen on 127.0.0.1:{port}" in second.stderr
    assert "another homeclaw serve" in second.stderr


@pytest.mark.parametrize(
    ("command", "port"),
    [(("serve",), "99999"), (("serve",), "-1"), (("mcp", "serve", "-t", "http"), "99999")],
)
def test_a_port_out_of_range_is_a_usage_error(
    command: tuple[str, ...], port: str, serve_env: dict[str, str], run_cli: Callable[..., Any]
) -> None:
    # mcp serve crashed in bind() with an OverflowError; serve called it a configuration error.
    result = run_cli(*command, "--port", port, env=serve_env)
    assert result.returncode == 2
    assert "Invalid value for '--port'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("host", ["no-such-host.invalid", "192.0.2.1"])
def test_a_host_that_is_not_this_machine_is_named_as_the_problem(
    host: str, serve_env: dict[str, str], run_cli: Callable[..., Any]
) -> None:
    result = run_cli("serve", "--host", host, "--port", "0", env=serve_env)
    assert result.returncode == 5
    assert f"cannot listen on {host}:0" in result.stderr
    assert "--host must be an address of this machine" in result.stderr
    assert "another homeclaw serve" not in result.stderr


@pytest.mark.slow
def test_kill_9_mid_burst_keeps_every_acknowledged_registration(
    hc_home: Path, serve_env: dict[str, str], processes: list[LineProcess]
) -> None:
    from homeclaw_cli.state.external_registrations import read_external_plugins

    env = {**serve_env, "HOMECLAW_SERVE__CHECK_ON_REGISTER": "false"}
    server, url = start_serve(env)
    processes.append(server)
    headers = {"Authorization": f"Bearer {(hc_home / TOKEN_FILE).read_text().strip()}"}
    acknowledged: list[str] = []
    lock = threading.Lock()
    enough = threading.Event()

    def register(i: int) -> None:
        body = {
            "plugin_id": f"crash-{i}",
            "name": f"Crash {i}",
            "description": "A registration racing a crash.",
            "health_check_url": f"http://127.0.0.1:{30000 + i}/health",
            "type": "http",
            "config": {"base_url": f"http://127.0.0.1:{30000 + i}"},
        }
        try:
            response = httpx.post(
                f"{url}/api/plugins/register", json=body, headers=headers, timeout=30
            )
        except httpx.HTTPError:
            return  # the server died before answering: not acknowledged
        if response.status_code == 200:
            with lock:
                acknowledged.append(f"crash-{i}")
                if len(acknowledged) >= 20:
                    enough.set()

    with ThreadPoolExecutor(max_workers=50) as pool:
        futures = [pool.submit(register, i) for i in range(200)]
        assert enough.wait(60)
        server.kill()  # SIGKILL, mid-burst
        for future in futures:
            future.result()

    manifests, problems = read_external_plugins(hc_home / "data" / "external_plugins.json")
    assert problems == []  # never a half-written file
    stored = {m.id for m in manifests}
    assert set(acknowledged) <= stored


@pytest.mark.slow
def test_a_registration_is_in_the_index_at_once_with_the_real_model(
    hc_home: Path,
    serve_env: dict[str, str],
    processes: list[LineProcess],
    run_cli: Callable[..., Any],
) -> None:
    env = {**serve_env, "HOMECLAW_SERVE__SYNC_ON_REGISTER": "true"}
    server, url = start_serve(env)
    processes.append(server)
    plugin, _, status = start_plugin(env, homeclaw=url, token_file=hc_home / TOKEN_FILE)
    processes.append(plugin)
    assert status == "200"
    server.wait_for(r"index synced \(added 1\)", timeout=120)
    found = run_cli(
        "plugin", "search", "shout this message in capitals", "--json", env=env, timeout=120
    )
    assert found.returncode == 0, found.stderr
    assert [h["id"] for h in payload(found)["hits"]][:1] == ["echo"]


def test_docs_page_works_offline(serve_env: dict[str, str], processes: list[LineProcess]) -> None:
    server, url = start_serve(serve_env)
    processes.append(server)
    page = httpx.get(f"{url}/docs", timeout=10)
    assert page.status_code == 200
    assert "/docs/static/swagger-ui-bundle.js" in page.text
    assert "cdn" not in page.text.lower() and "https://" not in page.text
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"):
        got = httpx.get(f"{url}/docs/static/{asset}", timeout=10)
        assert got.status_code == 200 and len(got.content) > 500, asset
    assert "SwaggerUIBundle" in httpx.get(f"{url}/docs/static/swagger-ui-bundle.js").text
    assert httpx.get(f"{url}/openapi.json", timeout=10).json()["openapi"].startswith("3.1")
