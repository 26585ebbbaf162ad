from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload


def _queries(path: Path) -> Path:
    lines = [
        {"query": "weather forecast rain", "expected": ["weather"], "tags": ["paraphrase"]},
        {"query": "slack message", "expected": ["slack"], "tags": ["keyword"]},
        {"query": "countdown alarm", "expected": ["timer"], "tags": ["short"]},
        {"query": "evaluate arithmetic math", "expected": ["slack"], "tags": ["vague"]},
        {"query": "hello there", "expected": [], "tags": ["none"]},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_eval_retrieval_json(cli: Any, index_env: dict[str, Any], tmp_path: Path) -> None:
    cli("sync")
    result = cli("eval", "retrieval", str(_queries(tmp_path / "q.jsonl")), "--json")
    assert result.exit_code == 0, result.output
    data = payload(result)
    assert data["overall"]["queries"] == 4
    assert data["overall"]["recall@1"] == 0.75
    assert data["by_tag"]["keyword"]["recall@1"] == 1.0
    assert data["by_tag"]["vague"]["recall@1"] == 0.0
    assert data["misses"] == []  # only 4 plugins: everything is in the top 5
    assert 0.75 < data["overall"]["mrr"] < 1
    assert data["none_rejected"] in ("0/1", "1/1")


def test_eval_retrieval_text_and_method(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    cli("sync")
    result = cli("eval", "retrieval", str(_queries(tmp_path / "q.jsonl")), "--method", "fts")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("overall\t4\t")
    assert "miss line 4: 'evaluate arithmetic math' expected slack got calculator" in result.stderr


def test_eval_bad_file_names_the_line(cli: Any, index_env: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "a", "expected": ["x"]}\n{"expected": []}\n', encoding="utf-8")
    result = cli("eval", "retrieval", str(path))
    assert result.exit_code == 2
    assert f"{path}:2" in result.stderr and "query" in result.stderr
    missing = cli("eval", "retrieval", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 4


def test_eval_misses_print_queries_verbatim(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    cli("sync")
    path = tmp_path / "q.jsonl"
    line = {"query": "evaluate [arithmetic] math [/i]", "expected": ["slack"]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = cli("eval", "retrieval", str(path), "--method", "fts")
    assert result.exit_code == 0, result.output
    assert "miss line 1: 'evaluate [arithmetic] math [/i]' expected slack" in result.stderr


def test_eval_given_a_folder_says_so(cli: Any, tmp_path: Path) -> None:
    result = cli("eval", "retrieval", str(tmp_path))
    assert result.exit_code == 4
    assert "is a folder, not a file" in result.stderr


def test_eval_reports_complete_at_5_for_two_need_queries(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    """complete@5 counts the queries that expect several plugins with all of them in the top
    5; full-text search finds no candidate without a shared word, so one of two is complete."""
    cli("sync")
    path = tmp_path / "q.jsonl"
    lines = [
        {"query": "slack message and countdown alarm", "expected": ["slack", "timer"]},
        {"query": "slack message", "expected": ["slack", "calculator"], "tags": ["odd"]},
        {"query": "countdown alarm", "expected": ["timer"]},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    data = payload(cli("eval", "retrieval", str(path), "--method", "fts", "--json"))
    assert data["overall"]["multi"] == 2
    assert data["overall"]["complete@5"] == 0.5
    assert data["by_tag"]["odd"]["complete@5"] == 0.0
    text = cli("eval", "retrieval", str(path), "--method", "fts").stdout.splitlines()
    assert text[0].split("\t")[-1] == "0.500 of 2"
    assert text[1].split("\t")[-1] == "0.000 of 1"
    single = tmp_path / "single.jsonl"
    single.write_text(json.dumps(lines[2]) + "\n", encoding="utf-8")
    assert payload(cli("eval", "retrieval", str(single), "--json"))["overall"]["complete@5"] is None


def test_an_expected_id_that_is_not_installed_is_warned_with_its_line(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    cli("sync")
    path = tmp_path / "q.jsonl"
    lines = [
        {"query": "17 times 23", "expected": ["calculater"]},
        {"query": "slack message", "expected": ["slack"]},
        {"query": "a haiku about rain", "expected": ["haiku"]},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = cli("eval", "retrieval", str(path), "--method", "fts", "--json")
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)["warnings"]
    assert warnings == [
        f"{path}:1: expected 'calculater' is no installed plugin (did you mean `calculator`?), "
        "so the query can only miss",
        f"{path}:3: expected 'haiku' is a skill, and eval retrieval ranks plugins, "
        "so the query can only miss",
    ]
    assert f"warning: {warnings[0]}" in result.stderr


def test_every_bad_line_is_named_with_its_fix(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"query": "", "expected": ["units"]}\n{"query": "hello there"}\n'
        '{"query": "hi", "expected": []}\n',
        encoding="utf-8",
    )
    result = cli("eval", "retrieval", str(path))
    assert result.exit_code == 2, result.output
    assert f"{path}: 2 bad lines" in result.stderr
    assert f"{path}:1: the `query` is empty" in result.stderr
    assert (
        f'{path}:2: no `expected`: list the plugin ids a right search finds, or "expected": []'
        in (result.stderr)
    )
    assert "search query is empty" not in result.stderr
    csv = tmp_path / "q.csv"
    csv.write_text("query,expected\n17 times 23,calculator\n", encoding="utf-8")
    result = cli("eval", "retrieval", str(csv))
    assert result.exit_code == 2
    assert f"{csv}:1: not valid JSON" in result.stderr
    assert 'hint: one JSON object per line: {"query": "...", "expected": ["plugin-id"]}' in (
        result.stderr
    )


@pytest.mark.parametrize("command", ["retrieval", "chat"])
@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b'{"query": "caf\xe9", "expected": []}\n', "not UTF-8 text"),
        (b"\xff\xfe{\x00}\x00\n", "binary"),
    ],
)
def test_a_file_that_is_not_utf8_text_is_named_not_a_traceback(
    cli: Any, tmp_path: Path, command: str, raw: bytes, said: str
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes(raw)
    result = cli("eval", command, str(path))
    assert result.exit_code == 2, result.output
    assert f"error: {path}: " in result.stderr and said in result.stderr
    assert "hint: save it as UTF-8 text; " in result.stderr


def test_a_utf8_file_with_a_byte_order_mark_is_read(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"query": "", "expected": []}\n')
    result = cli("eval", "retrieval", str(path))
    assert result.exit_code == 2
    assert f"{path}:1: the `query` is empty" in result.stderr  # the line parsed as JSON
