"""End-to-end smoke check: homeclaw chatting with the real benchmark LLM.

Starts server.py's llama.cpp server on a free port, points homeclaw at it through HOMECLAW_*
variables in a throw-away HOMECLAW_HOME, runs `homeclaw sync`, then each question with
`homeclaw chat -q ... --trace`, and prints every command's output and wall time.
It only observes: nothing is asserted about the answers.

Run:  python benchmarks/llm/smoke.py [--threads N] [QUESTION ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import ServerConfig, ServerError, llm_server

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = ["how many km is 5 miles", "whats the capital of australia"]


def run_homeclaw(args: list[str], env: dict[str, str], cwd: Path) -> float:
    """Run `python -m homeclaw_cli ARGS`, echo its output, return its wall time in seconds."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "homeclaw_cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    print(f"$ homeclaw {' '.join(args)}   [exit {result.returncode}, {seconds:.1f}s]")
    for stream in (result.stdout, result.stderr):
        if stream.strip():
            print("  " + stream.rstrip().replace("\n", "\n  "))
    return seconds


def main(argv: list[str] | None = None) -> int:
    """CLI: run the smoke check; exit 1 when the server cannot start."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=ServerConfig.threads)
    parser.add_argument("--temperature", type=float, default=ServerConfig.temperature)
    parser.add_argument("questions", nargs="*", default=QUESTIONS)
    args = parser.parse_args(argv)
    try:
        with (
            llm_server(port=0, threads=args.threads, temperature=args.temperature) as llm,
            tempfile.TemporaryDirectory() as tmp,
        ):
            print(
                f"server {llm.api_base} ready in {llm.load_seconds:.1f}s, {args.threads} thread(s)"
            )
            env = {
                **os.environ,
                **llm.homeclaw_env(),
                "HOMECLAW_HOME": tmp,
                "PYTHONPATH": os.pathsep.join(
                    filter(None, [str(REPO), os.environ.get("PYTHONPATH")])
                ),
            }
            run_homeclaw(["sync"], env, Path(tmp))
            for question in args.questions:
                run_homeclaw(["chat", "-q", question, "--trace"], env, Path(tmp))
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
