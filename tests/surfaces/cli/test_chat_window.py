"""`homeclaw chat -q` with results bigger than the model's window (`llm.num_ctx`): what goes
back to the model is cut to fit, and says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.core.tokens import estimate_tokens
from tests.fakes.chat_plugins import fast_retrieval, write_plugin
from tests.fakes.ollama_server import FakeOllama, fake_ollama, text, tool_call
from tests.json_output import payload
from tests.skill_helpers import make_skill

__all__ = ["fake_ollama", "fast_retrieval"]

WINDOW = 2048
ROWS = 3000  # about 24,000 tokens of output, whatever the cut at 16,000 characters left
CUT_NOTE = "the rest did not fit in the model's context window]"

LEDGER_YAML = """\
id: ledger
name: Ledger
description: Read the whole household ledger and sum up the spending.
keywords: [ledger, spending]
type: inline
effects: read
capabilities:
  - id: dump
    name: Dump the ledger
    description: Every row of the household ledger.
    post_process: true
    post_process_prompt: Sum up the spending in one sentence.
"""

LEDGER_PY = f"""\
from homeclaw_cli.sdk import BasePlugin


class Ledger(BasePlugin):
    def dump(self) -> str:
        return "\\n".join(f"row {{n}}: groceries 12.50 EUR" for n in range({ROWS}))
"""


def request_tokens(request: dict[str, Any]) -> int:
    """What a request to the model takes of its window, by homeclaw's estimate."""
    tools = estimate_tokens(json.dumps(request["tools"])) if request.get("tools") else 0
    messages = sum(estimate_tokens(json.dumps(m)) for m in request["messages"])
    return tools + messages


def test_a_skill_output_goes_back_to_the_model_cut_to_the_window(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    make_skill(
        tmp_path / "skills",
        "ledger-rows",
        description="Print every row of the household ledger with the rows script.",
        extra="effects: read\n",
        scripts={"rows.py": f"for n in range({ROWS}):\n    print(f'row {{n}}: rent 800 EUR')\n"},
    )
    env = {
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_SKILLS_PATH": str(tmp_path / "skills"),
        "HOMECLAW_SKILLS__SCRIPT_ALLOWLIST": "[ledger-rows]",
        "HOMECLAW_LLM__NUM_CTX": str(WINDOW),
    }
    fake_ollama.add_model("llama3.2")
    run = tool_call("run_skill", {"skill_name": "ledger-rows", "script": "rows.py"})
    fake_ollama.script(run, text("You pay 800 EUR of rent, over and over."))
    result = cli(
        "chat", "--host", fake_ollama.host, "-q", "print the ledger rows", "--json", env=env
    )
    assert result.exit_code == 0, result.stderr
    assert payload(result)["ok"]
    second = fake_ollama.chat_requests[1]
    output = next(m["content"] for m in second["messages"] if m["role"] == "tool")
    assert "row 0: rent 800 EUR" in output and CUT_NOTE in output
    assert f"row {ROWS - 1}:" not in output
    assert request_tokens(second) <= WINDOW


def test_a_plugin_output_is_post_processed_cut_to_the_window(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    write_plugin(tmp_path / "plugins", "ledger", LEDGER_YAML, LEDGER_PY)
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(tool_call("ledger__dump", {}), text("You spent on groceries."))
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__NUM_CTX": str(WINDOW)}
    args = ("--plugins-dir", str(tmp_path / "plugins"), "chat", "--host", fake_ollama.host)
    result = cli(*args, "-q", "sum up my ledger spending", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "You spent on groceries.\n"
    post = fake_ollama.chat_requests[1]
    output = post["messages"][1]["content"]
    assert "row 0: groceries 12.50 EUR" in output and CUT_NOTE in output
    assert request_tokens(post) <= WINDOW


@pytest.mark.parametrize(
    ("props", "listed"),
    [
        ({"default_generation_settings": {"n_ctx": WINDOW}}, {}),  # llama-server
        (None, {"max_model_len": WINDOW}),  # vLLM
    ],
)
def test_without_num_ctx_the_window_a_server_runs_with_is_planned_for(
    cli: Callable[..., Any],
    tmp_path: Path,
    fast_retrieval: object,
    props: dict[str, Any] | None,
    listed: dict[str, int],
) -> None:
    """llama-server (/props) and vLLM (/v1/models max_model_len) say the window they run the
    model with: homeclaw plans with it, not with Ollama's default 4,096."""
    from tests.fakes.openai_server import FakeOpenAI

    write_plugin(tmp_path / "plugins", "ledger", LEDGER_YAML, LEDGER_PY)
    with FakeOpenAI(models=("local-model",), props=props) as server:
        server.model_fields = listed
        server.replies.extend([("tool", "ledger__dump", "{}"), "You spent on groceries."])
        env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__PROVIDER": "openai"}
        args = ("--plugins-dir", str(tmp_path / "plugins"), "chat", "--host", server.host)
        result = cli(*args, "-m", "local-model", "-q", "sum up my ledger spending", env=env)
    assert result.exit_code == 0, result.stderr
    post = server.requests[1]
    assert CUT_NOTE in post["messages"][1]["content"]
    assert request_tokens(post) <= WINDOW
