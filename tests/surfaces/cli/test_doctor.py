"""`homeclaw doctor` against FakeOllama."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import NO_INDEX_ENV, fast_retrieval, write_test_plugins
from tests.fakes.ollama_server import FakeOllama, fake_ollama, unused_port_host
from tests.json_output import payload

__all__ = ["fake_ollama", "fast_retrieval"]


def by_name(result: Any) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in payload(result)}


def test_all_good(cli: Callable[..., Any], fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("llama3.2")
    result = cli("doctor", "--host", fake_ollama.host, "--json")
    checks = by_name(result)
    assert checks["llm server"]["status"] == "ok" and "0.12.0" in checks["llm server"]["detail"]
    assert checks["model"]["status"] == "ok"
    assert checks["embedding model"]["status"] == "ok"
    assert checks["index"]["status"] == "warn" and checks["index"]["fix"] == "run `homeclaw sync`"
    assert result.exit_code == 0


def test_model_not_pulled_and_no_tools(cli: Callable[..., Any], fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("tiny", tools=False)
    result = cli("doctor", "--host", fake_ollama.host, "--model", "mistral", "--json")
    assert result.exit_code == 1
    model = by_name(result)["model"]
    assert model["status"] == "fail"
    # the installed models, the key to set, a model with tools when there is one
    assert model["detail"].endswith(
        "is not installed on Ollama at " + fake_ollama.host + "; installed: tiny:latest (no tools)"
    )
    assert "llm.model" in model["fix"] and "HOMECLAW_MODEL=tiny:latest" in model["fix"]
    assert "`ollama pull mistral`" in model["fix"]
    fake_ollama.add_model("qwen2.5:3b")
    fix = by_name(cli("doctor", "--host", fake_ollama.host, "-m", "mistral", "--json"))["model"]
    assert "HOMECLAW_MODEL=qwen2.5:3b (it supports tools)" in fix["fix"]
    assert "qwen2.5:3b (tools)" in fix["detail"]
    result = cli("doctor", "--host", fake_ollama.host, "--model", "tiny", "--json")
    assert by_name(result)["model"]["status"] == "warn"


def test_a_model_an_openai_compatible_server_does_not_list(cli: Callable[..., Any]) -> None:
    from tests.fakes.openai_server import FakeOpenAI

    env = {"HOMECLAW_LLM__PROVIDER": "openai"}
    with FakeOpenAI(models=("qwen-7b", "llama-8b")) as two:
        model = by_name(cli("doctor", "--host", two.host, "-m", "zzz", "--json", env=env))["model"]
        assert model["status"] == "fail" and "installed: qwen-7b, llama-8b" in model["detail"]
        chat = cli("chat", "--host", two.host, "-m", "zzz", "-q", "hi", env=env)
        assert chat.exit_code == 4 and "model zzz is not installed" in chat.stderr
    # llama-server answers to any name with its one model: not a failure, but not "ok" either
    with FakeOpenAI(models=("qwen-7b",)) as one:
        result = cli("doctor", "--host", one.host, "-m", "zzz", "--json", env=env)
        model = by_name(result)["model"]
        assert model["status"] == "warn"
        assert model["detail"] == (
            f"zzz is not a model of the server at {one.host}; its one model, qwen-7b, answers "
            "to any name"
        )
        assert "HOMECLAW_MODEL=qwen-7b" in model["fix"] and "--model qwen-7b" in model["fix"]
        named = cli("doctor", "--host", one.host, "-m", "qwen-7b", "--json", env=env)
        assert by_name(named)["model"]["status"] == "ok"
        env |= {"HOMECLAW_NO_BUNDLED": "1", **NO_INDEX_ENV}  # no sync: this is about the model
        one.replies.append("Hello!")
        chat = cli("chat", "--host", one.host, "-m", "zzz", "-q", "hi", env=env)
        assert chat.exit_code == 0 and chat.stdout == "Hello!\n"
        assert (
            f"zzz is not a model of the server at {one.host}; its one model, qwen-7b, answers "
            "instead (set llm.model or pass --model qwen-7b)"
        ) in " ".join(chat.stderr.split())
        one.replies.append("Hello!")
        chat = cli("chat", "--host", one.host, "-m", "qwen-7b", "-q", "hi", env=env)
        assert chat.exit_code == 0 and "not a model" not in chat.stderr


def test_ollama_down_and_broken_plugin(cli: Callable[..., Any], tmp_path: Path) -> None:
    plugins = write_test_plugins(tmp_path / "plugins")
    (plugins / "tides" / "plugin.yaml").write_text("id: Bad Id\n")
    host = unused_port_host()
    result = cli("--plugins-dir", str(plugins), "doctor", "--host", host)
    assert result.exit_code == 1
    assert "Ollama is not running" in result.stdout and "ollama serve" in result.stdout
    model_row = next(line for line in result.stdout.splitlines() if line.startswith("model"))
    assert "ollama pull llama3.2" in model_row
    assert "plugin tides" in result.stdout and "homeclaw plugin validate" in result.stdout


def test_index_up_to_date_then_stale(
    cli: Callable[..., Any], fake_ollama: FakeOllama, fast_retrieval: object, tmp_path: Path
) -> None:
    from tests.skill_helpers import make_skill

    plugins = write_test_plugins(tmp_path / "plugins")
    make_skill(tmp_path / "skills", "tidy", description="Tidy the desk.")
    fake_ollama.add_model("llama3.2")
    pre = ["--plugins-dir", str(plugins)]
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_SKILLS_PATH": str(tmp_path / "skills")}
    assert cli(*pre, "sync", env=env).exit_code == 0
    index = by_name(cli(*pre, "doctor", "--host", fake_ollama.host, "--json", env=env))
    assert index["index"]["status"] == "ok" and "up to date" in index["index"]["detail"]
    # counted per kind, as the REPL's /status counts the plugins alone
    assert "(2 plugin and 1 skill descriptors, up to date)" in index["index"]["detail"]
    manifest = plugins / "tides" / "plugin.yaml"
    manifest.write_text(manifest.read_text().replace("High and low", "Low and high"))
    index = by_name(cli(*pre, "doctor", "--host", fake_ollama.host, "--json", env=env))
    assert index["index"]["status"] == "warn" and "1 changed" in index["index"]["detail"]


def test_terminal_output_prints_brackets_in_details_verbatim(
    cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins = tmp_path / "plugins"
    (plugins / "brk").mkdir(parents=True)
    (plugins / "brk" / "plugin.yaml").write_text('id: "[/bold]x"\nname: x\ndescription: y\n')
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # Rich output, as on a terminal
    monkeypatch.setenv("COLUMNS", "300")
    result = cli("--plugins-dir", str(plugins), "doctor", "--host", unused_port_host())
    assert result.exit_code == 1, result.output
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert "plugin id '[/bold]x' must match [a-z0-9]" in shown
    assert "FAIL  plugin brk" in shown  # the Rich layout, not the piped table


def test_embedding_check_follows_the_configured_model(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.add_model("llama3.2")

    def embedding(model: str) -> dict[str, Any]:
        env = {"HOMECLAW_EMBEDDING__MODEL": model}
        return by_name(cli("doctor", "--host", fake_ollama.host, "--json", env=env))[
            "embedding model"
        ]

    folder = tmp_path / "my-model"
    folder.mkdir()
    empty = embedding(str(folder))
    assert empty["status"] == "fail" and "without a model" in empty["detail"]
    (folder / "modules.json").write_text("[]", encoding="utf-8")
    assert embedding(str(folder)) == {
        "name": "embedding model",
        "status": "ok",
        "detail": f"{folder} (local folder)",
        "fix": "",
    }
    missing = embedding("nobody/no-such-embedding-model")
    assert missing["status"] == "fail"
    assert "neither a local folder nor in the Hugging Face cache" in missing["detail"]
    assert "make install-mpnet" in missing["fix"]
