"""terminal_safe: plugin, skill and model text reaches the terminal without control sequences."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from homeclaw_cli.surfaces.render import Output
from homeclaw_cli.surfaces.terminal_safe import SafeStream, terminal_safe


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("\x1b[31mRED\x1b[0m text", "RED text"),  # CSI colours
        ("a\x1b[2J\x1b[1;1Hb", "ab"),  # CSI clear screen, cursor move
        ("\x1b]0;pwned title\x07 text", " text"),  # OSC ended by BEL
        ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC hyperlink ended by ST
        ("\x1bP+q\x1b\\x", "x"),  # DCS
        ("\x9b31mC1\x9b0m", "C1"),  # C1 CSI
        ("\x9d0;title\x9c after", " after"),  # C1 OSC ended by C1 ST
        ("ding\x07", "ding"),  # BEL
        ("abc\x08\x08\x08xyz", "abcxyz"),  # backspace
        ("fake\rreal", "fakereal"),  # a lone carriage return
        ("one\r\ntwo\n\tthree", "one\ntwo\n\tthree"),  # CRLF becomes LF; tabs stay
        ("\x1bc\x1b7\x1b(Bok", "ok"),  # other ESC sequences: reset, save cursor, charset
        ("\x00nul\x7fdel\x85nel", "nuldelnel"),  # NUL, DEL, C1 NEL
        ("open \x1b]0;never ended\nnext line", "open \nnext line"),  # an open OSC ends at \n
        ("trailing \x1b", "trailing "),
        ("Grüße 東京 🌦️ — “quoted” [bold]x[/bold]", "Grüße 東京 🌦️ — “quoted” [bold]x[/bold]"),
    ],
)
def test_terminal_safe_drops_sequences_and_controls_but_keeps_text(raw: str, safe: str) -> None:
    assert terminal_safe(raw) == safe


def test_a_sequence_split_across_streamed_pieces_is_held_until_whole() -> None:
    stream = SafeStream()
    pieces = ["it is \x1b[3", "1mred\x1b", "[0m and \x1b]0;ti", "tle\x07done\r", "\n"]
    written = [stream.feed(piece) for piece in pieces]
    written.append(stream.end())
    assert "".join(written) == "it is red and done\n"
    assert all("\x1b" not in w and "[" not in w for w in written)


def _output(*, terminal: bool) -> tuple[Output, io.StringIO]:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, force_terminal=terminal, color_system="truecolor")
    return Output(console=console, for_people=terminal), buffer


@pytest.mark.parametrize("terminal", [False, True])
def test_output_text_and_streams_strip_the_payload_only(terminal: bool) -> None:
    out, buffer = _output(terminal=terminal)
    out.text("\x1b[31mRED\x1b[0m \x1b]0;pwned\x07 text")
    with out.stream() as show:
        show("streamed \x1b]0;")
        show("x\x07answer")
    out.line(("ok", "green"), " \x1b[2Jplugin")
    printed = buffer.getvalue()
    assert "\x07" not in printed and "]0;" not in printed and "[2J" not in printed
    assert "RED  text\nstreamed answer\n" in printed
    assert "plugin" in printed
    # homeclaw's own styling still reaches a terminal
    assert ("\x1b[32mok" in printed) is terminal


def test_the_live_markdown_answer_is_cleaned_before_rich_renders_it() -> None:
    out, buffer = _output(terminal=True)
    with out.stream(markdown=True) as show:
        show("**bold** \x1b]0;pwned\x07 and \x1b[5mblink\x1b[0m")
    printed = buffer.getvalue()
    assert "pwned" not in printed and "\x07" not in printed and "\x1b[5m" not in printed
    assert "bold" in printed and "blink" in printed
