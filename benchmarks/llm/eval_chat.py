"""`homeclaw eval chat` on the real small model, through the OpenAI provider and the Ollama protocol.

Starts server.py's llama.cpp server (Qwen2.5-Coder-1.5B, greedy) on a free port; per protocol a
throw-away HOMECLAW_HOME with the bundled plugins, `homeclaw sync`, the to-do plugin's server
(when port 3107 is free), then `homeclaw eval chat TASKS --json` through
- openai: homeclaw's OpenAI provider straight at the server's /v1;
- ollama: homeclaw's unchanged Ollama provider at ollama_shim.py, which forwards to /v1.
Runs the tasks in chunks (`--chunk`, one `eval chat` process each) and writes the merged report
as JSON and markdown (rates, leaks, latency, prompt tokens, load average, misses) into
benchmarks/llm/results/ after every chunk, so a run cut short still leaves its figures.

Run:  python benchmarks/llm/eval_chat.py [--protocols openai,ollama] [--limit N] [--label NAME]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from benchmarks.llm.ollama_shim import ollama_shim  # noqa: E402
from benchmarks.llm.server import ServerConfig, ServerError, llm_server  # noqa: E402
from benchmarks.llm.stand_in import stand_in_plugins  # noqa: E402
from homeclaw_cli.app.eval_chat import METRICS  # noqa: E402

TODO_PORT = 3107
ROWS = [
    ("plugin", "right plugin called"),
    ("needs", "every need's plugin called"),
    ("capability", "right capability"),
    ("args", "right arguments"),
    ("answer", "right answer"),
    ("no_plugin", "no-plugin answered without a tool"),
    ("asks", "asked for the value instead of a call"),
    ("retrieved", "right plugin retrieved"),
    ("passed", "tasks passed (every check)"),
]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def homeclaw(args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "homeclaw_cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@contextmanager
def todo_server(data: Path) -> Any:
    """The bundled to-do plugin's server on its manifest's port, when that port is free."""
    if not port_free(TODO_PORT):
        yield False
        return
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "plugins/todo/server.py"), "--data", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(50):
            if not port_free(TODO_PORT):
                break
            time.sleep(0.1)
        yield True
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run_protocol(
    protocol: str,
    llm_env: dict[str, str],
    tasks: list[dict[str, Any]],
    args: argparse.Namespace,
    on_chunk: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """sync, then `eval chat --json` over chunks of the tasks in one fresh HOMECLAW_HOME;
    `on_chunk` gets the merged figures after every chunk (a later kill keeps them)."""
    with tempfile.TemporaryDirectory(prefix=f"hc-eval-{protocol}-") as tmp, ExitStack() as stack:
        home = Path(tmp)
        env = {
            **os.environ,
            **llm_env,
            "HOMECLAW_HOME": str(home),
            "HF_HUB_OFFLINE": "1",
            # News is offered only with a key: a placeholder one keeps its tasks measured (its
            # calls then fail at the network, as every call does on a machine without one).
            # NEWSAPI_KEY= (empty) measures a machine without a key.
            "NEWSAPI_KEY": os.environ.get("NEWSAPI_KEY", "placeholder-for-the-benchmark"),
            # On a shared CPU a new prompt can take minutes; llama.cpp keeps an OpenAI stream
            # alive meanwhile (SSE comments), but an Ollama stream stays silent until the first
            # token, so homeclaw's default 120 s would end the turn.
            "HOMECLAW_LLM__TIMEOUT_SEC": "900",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        env.pop("HOMECLAW_NO_BUNDLED", None)
        # --plugins-dir: that folder's plugins alone (a public set's), not the bundled ones.
        scope: list[str] = []
        if args.plugins_dir:
            served = stack.enter_context(stand_in_plugins(args.plugins_dir, home / "set-plugins"))
            scope = ["--plugins-dir", str(served)]
            env["HOMECLAW_NO_BUNDLED"] = "1"
            todo = False
        else:
            todo = stack.enter_context(todo_server(home / "todo.json"))
        started = time.perf_counter()
        sync = homeclaw([*scope, "sync"], env, home, timeout=900)
        if sync.returncode:
            raise SystemExit(f"homeclaw sync failed:\n{sync.stderr}")
        facts = {
            "protocol": protocol,
            "sync_seconds": round(time.perf_counter() - started, 1),
            "todo_server": todo,
            "load_before": load(),
        }
        parts: list[dict[str, Any]] = []
        for first in range(0, len(tasks), args.chunk):
            chunk = home / f"tasks-{first}.yaml"
            chunk.write_text(yaml.safe_dump(tasks[first : first + args.chunk]), encoding="utf-8")
            command = [*scope, "eval", "chat", str(chunk), "--json", "--repeat", str(args.repeat)]
            result = homeclaw(command, env, args.cwd or home, timeout=args.timeout)
            envelope = json.loads(result.stdout) if result.stdout.strip() else {}
            if "data" not in envelope:
                print(f"{protocol}: eval chat failed (exit {result.returncode}), stopping:")
                print(result.stderr[-2000:], flush=True)
                break
            parts.append(envelope["data"])
            merged = {**facts, **merge(parts), "load_after": load()}
            print(f"{protocol}: {merged['runs']}/{len(tasks)} tasks; load {load()}", flush=True)
            on_chunk(merged)
        if not parts:
            raise SystemExit(f"{protocol}: no task finished")
        return merged


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The `eval chat --json` data of several chunks as one report."""
    tasks = [t for p in parts for t in p["tasks"]]
    rates = {}
    for name in (*METRICS, "passed"):
        if name == "passed":
            values = [t["passed"] for t in tasks]
        else:
            values = [t["checks"][name] for t in tasks if name in t["checks"]]
        total = len(values)
        rates[name] = {
            "passed": sum(values),
            "total": total,
            "rate": round(sum(values) / total, 4) if total else None,
        }
    turns = [turn for t in tasks for turn in t["turns"]]
    seconds = sorted(turn["seconds"] for turn in turns)
    first = [x["first_round_tokens"] for x in turns if x["first_round_tokens"] is not None]
    whole = [x["turn_tokens"] for x in turns if x["turn_tokens"] is not None]
    return {
        "model": parts[0]["model"],
        "provider": parts[0]["provider"],
        "runs": len(tasks),
        "rates": rates,
        "leaked_calls": sum(t["leaked"] for t in tasks),
        "claimed_acts": sum(t.get("claimed", False) for t in tasks),
        "latency_seconds": {
            "median": round(statistics.median(seconds), 3) if seconds else None,
            "p90": seconds[max(math.ceil(0.9 * len(seconds)) - 1, 0)] if seconds else None,
        },
        "prompt_tokens": {
            "first_round_median": statistics.median(first) if first else None,
            "turn_median": statistics.median(whole) if whole else None,
            "source": "estimate" if any(x["estimated"] for x in turns) else "server",
        },
        "seconds": round(sum(p["seconds"] for p in parts), 1),
        "tasks": tasks,
        "misses": [m for p in parts for m in p["misses"]],
    }


def load_tasks(path: Path, limit: int | None, only: str | None = None) -> list[dict[str, Any]]:
    """The tasks (those whose id `only` finds, a regular expression, when given), each
    plugin's (and the no-plugin ones) spread evenly over the run, so the first N tasks, or a
    run cut short, are a fair sample of the whole set."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    tasks: list[dict[str, Any]] = data["tasks"] if isinstance(data, dict) else data
    tasks = [t for t in tasks if only is None or re.search(only, str(t["id"]))]
    groups: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        plugin = task.get("plugin") or task.get("skill") or "-"
        groups.setdefault(str(plugin[0] if isinstance(plugin, list) else plugin), []).append(task)
    # Task i of a group of n sits at (i + 0.5) / n of the run.
    spread = [
        ((i + 0.5) / len(group), k, task)
        for k, group in enumerate(groups.values())
        for i, task in enumerate(group)
    ]
    mixed = [task for _, _, task in sorted(spread, key=lambda x: (x[0], x[1]))]
    return mixed[:limit] if limit else mixed


def _shown(path: Path) -> str:
    resolved = path.resolve()
    return str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO) else str(path)


def pct(rate: dict[str, Any]) -> str:
    if not rate["total"]:
        return "-"
    return f"{rate['rate']:.0%} ({rate['passed']}/{rate['total']})"


def markdown(meta: dict[str, Any], results: list[dict[str, Any]]) -> str:
    """The report as a markdown page: one column per protocol, then the misses."""
    heads = [f"{r['protocol']}" for r in results]
    lines = [
        f"# eval chat: {meta['label']}",
        "",
        f"{meta['date']}, commit `{meta['commit']}`, model {meta['model']} on xllamacpp "
        f"({meta['threads']} threads, greedy), tasks `{meta['tasks']}`, repeat {meta['repeat']}.",
        f"Command: `{meta['command']}`",
        "",
        "| | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(heads),
    ]
    for key, label in ROWS:
        lines.append(f"| {label} | " + " | ".join(pct(r["rates"][key]) for r in results) + " |")
    rows = {
        "tool-call JSON shown as the answer": lambda r: str(r["leaked_calls"]),
        "an act claimed done or offered with no tool run": lambda r: str(
            r.get("claimed_acts", "-")
        ),
        "turn seconds, median / p90": lambda r: (
            f"{r['latency_seconds']['median']} / {r['latency_seconds']['p90']}"
        ),
        "prompt tokens median, first round / turn": lambda r: (
            f"{r['prompt_tokens']['first_round_median']} / {r['prompt_tokens']['turn_median']}"
            + (" (estimate)" if r["prompt_tokens"]["source"] == "estimate" else "")
        ),
        "load average (1/5/15 min) before / after": lambda r: (
            f"{r['load_before']} / {r['load_after']}"
        ),
        "whole eval / sync seconds": lambda r: f"{r['seconds']:.0f} / {r['sync_seconds']}",
        "to-do plugin server running": lambda r: "yes" if r["todo_server"] else "no",
    }
    for label, cell in rows.items():
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in results) + " |")
    for r in results:
        lines += ["", f"## Misses, {r['protocol']} ({len(r['misses'])})", ""]
        for miss in r["misses"]:
            calls = ", ".join(
                f"{c['name']}({json.dumps(c['arguments'], ensure_ascii=False)})"
                + ("" if c["ok"] else " error")
                for c in miss["calls"]
            )
            not_run = "".join(
                f"; not run: {c['name']}({json.dumps(c['arguments'], ensure_ascii=False)})"
                for c in miss.get("skipped", [])
            )
            failed = [k for k, ok in miss["checks"].items() if not ok]
            failed += ["leaked"] if miss["leaked"] else []
            failed += ["claimed or offered an act no tool did"] if miss.get("claimed") else []
            answer = (miss["error"] and f"error: {miss['error']}") or miss["answer"]
            answer = " ".join(str(answer).split())[:160]
            lines.append(
                f"- `{miss['task']}` {' / '.join(miss['request'])!r}: missed {', '.join(failed)}; "
                f"calls: {calls or 'none'}{not_run}; answer: {answer!r}"
            )
    return "\n".join(lines) + "\n"


def write_results(stem: Path, meta: dict[str, Any], results: list[dict[str, Any]]) -> None:
    meta["date"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    stem.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "results": results}, indent=1) + "\n", encoding="utf-8"
    )
    stem.with_suffix(".md").write_text(markdown(meta, results), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """CLI: run the benchmark, write results/<label>.json and .md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=HERE / "tasks.yaml")
    parser.add_argument("--protocols", default="openai,ollama")
    parser.add_argument("--threads", type=int, default=ServerConfig.threads)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    parser.add_argument("--only", help="only the tasks whose id this regular expression finds")
    parser.add_argument("--label", default="latest", help="results/eval_chat-LABEL.{json,md}")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per chunk")
    parser.add_argument("--chunk", type=int, default=10, help="tasks per `eval chat` run")
    parser.add_argument(
        "--cwd",
        type=Path,
        help="run `eval chat` here (the skills' tasks name paths in the checkout); "
        "default: the throw-away HOMECLAW_HOME",
    )
    parser.add_argument(
        "--plugins-dir",
        type=Path,
        help="measure this folder's plugins (a public set's, public_tasks.py; their dead "
        "address answered by stand_in.py) instead of the bundled ones",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=ServerConfig.max_tokens,
        help="cap each reply (long essays of a public no-tool set); -1: no cap",
    )
    args = parser.parse_args(argv)
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip() or os.environ.get("HOMECLAW_BENCH_COMMIT", "?")
    meta = {
        "label": args.label,
        "commit": commit,
        "model": "?",
        "threads": args.threads,
        "tasks": _shown(args.tasks)
        + (f" (first {args.limit})" if args.limit else "")
        + (f" (ids matching {args.only!r})" if args.only else ""),
        "repeat": args.repeat,
        "command": "python benchmarks/llm/eval_chat.py " + " ".join(argv or sys.argv[1:]),
    }
    stem = out_dir / f"eval_chat-{args.label}"
    results: list[dict[str, Any]] = []
    try:
        with llm_server(port=0, threads=args.threads, max_tokens=args.max_tokens) as llm:
            tasks = load_tasks(args.tasks, args.limit, args.only)
            print(f"server {llm.api_base} ready in {llm.load_seconds:.1f} s; load {load()}")
            meta["model"] = llm.model
            for protocol in args.protocols.split(","):
                started = time.perf_counter()

                def save(merged: dict[str, Any], done: int = len(results)) -> None:
                    write_results(stem, meta, [*results[:done], merged])

                if protocol == "ollama":
                    with ollama_shim(llm.api_base, llm.model) as shim:
                        env = shim.homeclaw_env()
                        results.append(run_protocol(protocol, env, tasks, args, save))
                else:
                    env = llm.homeclaw_env()
                    results.append(run_protocol(protocol, env, tasks, args, save))
                rates = results[-1]["rates"]
                print(
                    f"{protocol}: {time.perf_counter() - started:.0f} s, plugin "
                    f"{pct(rates['plugin'])}, answer {pct(rates['answer'])}; load {load()}",
                    flush=True,
                )
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {stem}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
