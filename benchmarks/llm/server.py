"""Run the benchmark LLM: llama.cpp's OpenAI-compatible server, in-process through xllamacpp.

The model is the cached Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF (fetch_model.py downloads it
on first use). Sized for a 2-core machine without GPU: 2 threads, 1 slot, 8k context.

Library use (benchmarks, slow tests):

    from benchmarks.llm.server import llm_server
    with llm_server(port=0) as llm:          # port 0: any free port
        llm.api_base                          # "http://127.0.0.1:PORT/v1"
        llm.homeclaw_env()                    # HOMECLAW_* variables pointing homeclaw at it

CLI:  python benchmarks/llm/server.py [--port 8088] [--threads 2] [--ctx-size 8192] [--verbose]
      serves until Ctrl+C or SIGTERM, then stops cleanly.
Needs `pip install xllamacpp` (imported only when a server starts).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fetch_model import FetchError, fetch_model

MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
DEFAULT_PORT = 8088


class ServerError(RuntimeError):
    """The LLM server could not start or did not become ready."""


@dataclass(frozen=True)
class ServerConfig:
    """How to run llama.cpp's server; the defaults suit a 2-core CPU-only machine."""

    model: Path | None = None  # None: the cached model, fetched when missing
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT  # 0: pick a free port
    ctx_size: int = 8192  # homeclaw's system prompt + tools + a few rounds fit easily
    threads: int = 2
    parallel: int = 1  # one slot: a second slot would halve each one's context and speed
    alias: str = MODEL_ALIAS  # the model name /v1/models reports
    temperature: float = 0.0  # default for requests that set none: greedy, reproducible runs
    seed: int = 42
    max_tokens: int = -1  # per reply, for requests that set none; -1: until the model stops
    verbosity: int = -1  # llama.cpp log level; -1 silent, 3 info
    ready_timeout: float = 60.0


@dataclass
class RunningServer:
    """A started server's addresses."""

    base_url: str
    model: str
    load_seconds: float

    @property
    def api_base(self) -> str:
        """The OpenAI-compatible base URL, ending in /v1."""
        return self.base_url + "/v1"

    def homeclaw_env(self) -> dict[str, str]:
        """Environment variables that point homeclaw's openai provider at this server."""
        return {
            "HOMECLAW_LLM__PROVIDER": "openai",
            "HOMECLAW_LLM__HOST": self.base_url,
            "HOMECLAW_MODEL": self.model,
        }


def _check_port_free(host: str, port: int) -> None:
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As llama.cpp's own bind does, so a port left in TIME_WAIT by a stopped server is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ServerError(
                f"{host}:{port} is not free ({exc.strerror}); pick another --port"
            ) from exc


def _params(config: ServerConfig, model: Path) -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {config.alias}
    params.hostnames = [config.host]
    params.port = config.port
    params.n_ctx = config.ctx_size
    params.n_parallel = config.parallel
    params.cpuparams.n_threads = config.threads
    params.cpuparams_batch.n_threads = config.threads
    params.sampling.temp = config.temperature
    params.sampling.seed = config.seed
    params.n_predict = config.max_tokens
    params.verbosity = config.verbosity
    return params


def _restore_python_signal_handlers() -> None:
    """Take SIGINT/SIGTERM back from llama.cpp.

    Its server installs C handlers that stop the model loop behind Python's back (and exit(1)
    on a second Ctrl+C), so KeyboardInterrupt would never reach the caller. Setting Python's
    own handlers again re-registers them with the OS.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if handler is not None:
            signal.signal(signum, handler)


def wait_ready(base_url: str, timeout: float) -> dict[str, Any]:
    """Poll GET /v1/models until it answers 200 (returns its JSON) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base_url + "/v1/models", timeout=5) as response:
                data: dict[str, Any] = json.loads(response.read())
                return data
        except (urllib.error.URLError, OSError, ValueError) as exc:
            last = str(exc)
        time.sleep(0.2)
    raise ServerError(f"{base_url}/v1/models did not answer within {timeout:g}s ({last})")


@contextlib.contextmanager
def llm_server(config: ServerConfig | None = None, **overrides: Any) -> Iterator[RunningServer]:
    """Start the server, wait until /v1/models answers, yield its addresses, stop it on exit.

    Keyword overrides replace ServerConfig fields, e.g. `llm_server(port=0)`.
    """
    config = replace(config or ServerConfig(), **overrides)
    try:
        model = config.model or fetch_model(log=lambda _line: None)
    except FetchError as exc:
        raise ServerError(f"no model: {exc}") from exc
    if not model.is_file():
        raise ServerError(f"model file {model} does not exist")
    _check_port_free(config.host, config.port)
    try:
        import xllamacpp
    except ImportError as exc:
        raise ServerError("xllamacpp is not installed: pip install xllamacpp") from exc

    started = time.perf_counter()
    try:
        server: Any = xllamacpp.Server(_params(config, model))
    except RuntimeError as exc:
        raise ServerError(
            f"llama.cpp did not start on {config.host}:{config.port} with {model} ({exc});"
            " set verbosity=3 (CLI: --verbose) to see its log"
        ) from exc
    _restore_python_signal_handlers()
    try:
        base_url = str(server.listening_address).rstrip("/")
        wait_ready(base_url, config.ready_timeout)
        yield RunningServer(base_url, config.alias, time.perf_counter() - started)
    finally:
        # The C++ destructor stops the HTTP thread and joins the model loop.
        del server


def _stop_on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """CLI: serve until interrupted; exit 1 with a message when it cannot start."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="0 = any free port")
    parser.add_argument("--ctx-size", type=int, default=ServerConfig.ctx_size)
    parser.add_argument("--threads", type=int, default=ServerConfig.threads)
    parser.add_argument(
        "--temperature",
        type=float,
        default=ServerConfig.temperature,
        help="sampling temperature for requests that set none (default 0: greedy)",
    )
    parser.add_argument("--model", type=Path, help="a GGUF file instead of the cached model")
    parser.add_argument("--verbose", action="store_true", help="print llama.cpp's log")
    args = parser.parse_args(argv)
    config = ServerConfig(
        model=args.model,
        host=args.host,
        port=args.port,
        ctx_size=args.ctx_size,
        threads=args.threads,
        temperature=args.temperature,
        verbosity=3 if args.verbose else -1,
    )
    if config.model is None:
        try:
            fetch_model()
        except FetchError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        with llm_server(config) as llm:
            env = " ".join(f"{k}={v}" for k, v in llm.homeclaw_env().items())
            print(f"serving {llm.model} at {llm.api_base} (ready in {llm.load_seconds:.1f}s)")
            print(f"homeclaw: {env}")
            print("Ctrl+C stops it", flush=True)
            stop = threading.Event()
            while not stop.wait(1.0):
                pass
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
