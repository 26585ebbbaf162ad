"""Output, the one printer: JSON documents, tables for people or scripts, streamed answers."""

from __future__ import annotations

import ast
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from homeclaw_cli.errors import NotFoundError
from homeclaw_cli.surfaces.render import (
    Output,
    envelope_scope,
    error_kind,
    open_envelope,
    write_envelope,
)
from tests.conftest import REPO_ROOT


@dataclass
class _Result:
    name: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name}


def test_json_mode_fills_the_envelope_and_serialises_result_objects(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown: list[str] = []
    payload = [_Result("a"), {"path": Path("/tmp/x")}]
    with envelope_scope():
        open_envelope("thing list")
        out = Output(json_mode=True)
        out.result(payload, lambda: shown.append("human"))
        out.warning("careful")
        assert capsys.readouterr() == ("", "warning: careful\n")
        write_envelope(0)
        write_envelope(0)  # written once
    assert json.loads(capsys.readouterr().out) == {
        "homeclaw": 1,
        "command": "thing list",
        "ok": True,
        "data": [{"name": "a"}, {"path": "/tmp/x"}],
        "warnings": ["careful"],
    }
    assert shown == []


def test_a_failed_envelope_carries_the_error_and_its_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with envelope_scope():
        open_envelope("thing show")
        write_envelope(4, NotFoundError("no thing 'x'", hint="list them"))
    assert json.loads(capsys.readouterr().out) == {
        "homeclaw": 1,
        "command": "thing show",
        "ok": False,
        "error": {
            "message": "no thing 'x'",
            "hint": "list them",
            "exit_code": 4,
            "kind": "not_found",
        },
        "warnings": [],
    }


def test_without_json_nothing_is_written_and_no_envelope_outlives_its_scope(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with envelope_scope():
        write_envelope(0)
    with envelope_scope():
        open_envelope("left open")
    with envelope_scope():
        write_envelope(0)
    assert capsys.readouterr().out == ""
    with pytest.raises(RuntimeError, match="envelope"):
        Output(json_mode=True).json([])


def test_error_kinds_name_the_family_in_errors_py() -> None:
    from homeclaw_cli.catalog.skill_paths import SkillPathError
    from homeclaw_cli.errors import HomeclawError, PluginCallError

    assert error_kind(PluginCallError("x")) == "plugin_call"
    assert error_kind(SkillPathError("x")) == "usage"
    assert error_kind(HomeclawError("x")) == "error"


def test_without_json_the_human_view_prints(capsys: pytest.CaptureFixture[str]) -> None:
    out = Output()
    out.result(_Result("a"), lambda: out.text("for people"))
    assert capsys.readouterr().out == "for people\n"


def test_piped_tables_are_tab_separated_without_header(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Output().table(["ID", "NOTE"], [["a", None], ["b", "[red]x[/red]"]])
    assert capsys.readouterr().out == "a\t\nb\t[red]x[/red]\n"


def test_a_piped_cell_holding_lines_or_tabs_stays_on_its_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A reason of several lines (a SKILL.md with two problems) made rows `cut` misreads."""
    Output().table(["ID", "WHY"], [["a", "two problems:\n  - one\n  - two"], ["b", "x\ty"]])
    assert capsys.readouterr().out == "a\ttwo problems: - one - two\nb\tx y\n"


def test_tables_for_people_keep_the_header_off_a_terminal() -> None:
    console = Console(file=io.StringIO(), width=80, color_system=None)
    Output(console=console, for_people=True).table(["ID", "NOTE"], [["a", "[b]kept[/b]"]])
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "ID" in text and "NOTE" in text and "[b]kept[/b]" in text


def test_styled_lines_are_plain_text_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    out = Output()
    out.line(("tides", "bold cyan"), "  [not markup]")
    out.verdict(False, "broken (x)")
    assert capsys.readouterr().out == "tides  [not markup]\ninvalid broken (x)\n"


def test_stream_ends_the_answer_with_one_newline(capsys: pytest.CaptureFixture[str]) -> None:
    out = Output()
    with out.stream() as show:
        show("Hello, ")
        show("Ada")
    with out.stream():
        pass
    assert capsys.readouterr().out == "Hello, Ada\n"


def test_messages_go_to_stderr_and_quote_user_text(capsys: pytest.CaptureFixture[str]) -> None:
    out = Output()
    out.error("bad [x]", "try [y]", label="internal error")
    out.warning("careful [z]")
    out.info("[dim]literal[/dim]", style="dim")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "internal error: bad [x]",
        "hint: try [y]",
        "warning: careful [z]",
        "[dim]literal[/dim]",
    ]


def test_only_the_renderers_import_rich() -> None:
    # the one printer (and its unpadded Markdown), the REPL (and its spinner), the live step
    # log of install/update/register
    allowed = {
        "surfaces/render.py",
        "surfaces/trimmed.py",
        "surfaces/repl/chat_repl.py",
        "surfaces/repl/activity.py",
        "surfaces/cli/steps.py",
    }
    package = REPO_ROOT / "homeclaw_cli"
    importers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name == "rich" or name.startswith("rich.") for name in names):
                importers.add(path.relative_to(package).as_posix())
    assert importers <= allowed


def test_a_markdown_answer_keeps_a_code_blocks_background_but_no_padding() -> None:
    from rich.markdown import Markdown

    from homeclaw_cli.surfaces.trimmed import Trimmed

    console = Console(file=io.StringIO(), width=60, force_terminal=True, color_system="truecolor")
    console.print(Trimmed(Markdown("Some *text*.\n\n```\ncode\n```\n")))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines[0].endswith("text\x1b[0m.")
    code = next(line for line in lines if "code" in line)
    assert code.count(" ") > 40  # the code block's background is drawn to the width
