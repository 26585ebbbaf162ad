"""The real small model end to end (slow): `homeclaw eval chat` on a handful of tasks, through
the OpenAI provider and through the Ollama protocol (benchmarks/llm/ollama_shim.py), on
Qwen2.5-Coder-1.5B served by llama.cpp (`make install-llm` installs xllamacpp and the model).

Skipped when xllamacpp or the cached model is missing, unless HOMECLAW_REQUIRE_REAL_LLM=1
(CI sets it in .ci/run): then it fails, so CI can never silently stop testing the real path.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.json_output import payload

# Read before the hc_home fixture scrubs HOMECLAW_* from the environment.
REQUIRED = os.environ.get("HOMECLAW_REQUIRE_REAL_LLM") == "1"
MODELS_DIR = os.environ.get("HOMECLAW_BENCH_MODELS")

# Tasks the model passes on every run (greedy sampling), picked from benchmarks/llm/tasks.yaml;
# the last two ask for two things at once, in one sentence and in two (the model calls one tool,
# the other part is asked alone).
# The Ollama-protocol run takes the first two (a plugin call and a no-plugin answer): the path
# is the same from the provider on, and CI time is scarce.
TASKS = """\
- {id: units, request: "how many km is 5 miles", plugin: units, capability: convert,
   args: {value: 5}, answer: ["8.04"]}
- {id: hamlet, request: "who wrote hamlet", no_plugin: true, answer: [shakespeare]}
- {id: hash, request: "sha256 of hello", plugin: hashkit, capability: hash, args: {text: hello},
   answer: ["2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"]}
- {id: note, request: "remember that the garage code is 7391", plugin: notes,
   capability: add_note, answer: ["saved"]}
- {id: two-needs, request: "how many km is 5 miles and what is 17 times 23",
   needs: [units, calculator], answer: ["391"]}
- {id: two-sentences, request: "7 factorial pls. Then sha1 checksum for abc",
   needs: [calculator, hashkit], answer: ["a9993e364706816aba3e25717850c26c9cd0d89d"]}
"""
OLLAMA_TASKS = 2
THRESHOLDS = ["--fail-under", "passed=1", "--max-leaked", "0"]


def _missing() -> str | None:
    """Why the real model cannot run here, or None."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (make install-llm)"
    from benchmarks.llm.fetch_model import is_verified, model_path

    env = {"HOMECLAW_BENCH_MODELS": MODELS_DIR} if MODELS_DIR else {}
    path = model_path(env)
    if not is_verified(path):
        return f"the benchmark model is not cached at {path} (make install-llm)"
    return None


@pytest.fixture(scope="module")
def llm() -> Iterator[Any]:
    reason = _missing()
    if reason is not None:
        if REQUIRED:
            pytest.fail(f"HOMECLAW_REQUIRE_REAL_LLM=1 but {reason}")
        pytest.skip(reason)
    from benchmarks.llm.fetch_model import model_path
    from benchmarks.llm.server import llm_server

    env = {"HOMECLAW_BENCH_MODELS": MODELS_DIR} if MODELS_DIR else {}
    # One thread: steady when other work shares the CPU (benchmarks/llm/README.md, pitfalls).
    with llm_server(port=0, threads=1, model=model_path(env)) as server:
        yield server


def _check(result: Any, runs: int) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    data = payload(result)
    assert data["runs"] == runs
    rates = data["rates"]
    assert rates["plugin"]["rate"] == 1.0 and rates["args"]["rate"] == 1.0
    assert rates["answer"]["rate"] == 1.0 and rates["no_plugin"]["rate"] == 1.0
    assert data["leaked_calls"] == 0
    assert data["prompt_tokens"]["source"] == "server"
    return data


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_eval_chat_on_the_real_model_openai_and_ollama(
    llm: Any, run_cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    from benchmarks.llm.ollama_shim import ollama_shim

    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(TASKS, encoding="utf-8")
    few = tmp_path / "few.yaml"
    few.write_text(yaml.safe_dump(yaml.safe_load(TASKS)[:OLLAMA_TASKS]), encoding="utf-8")
    synced = run_cli("sync", timeout=600)
    assert synced.returncode == 0, synced.stderr

    command = ["eval", "chat", str(tasks), "--json", *THRESHOLDS]
    openai = _check(run_cli(*command, env=llm.homeclaw_env(), timeout=900), runs=6)
    assert openai["provider"] == "openai" and openai["model"] == llm.model
    assert openai["rates"]["needs"]["rate"] == 1.0

    with ollama_shim(llm.api_base, llm.model) as shim:
        command = ["eval", "chat", str(few), "--json", *THRESHOLDS]
        ollama = _check(run_cli(*command, env=shim.homeclaw_env(), timeout=900), runs=2)
    assert ollama["provider"] == "ollama"
