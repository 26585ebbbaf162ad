"""A Rich renderable drawn without the spaces Rich pads each line with to the console's width.

Rich fills left-justified text (a Markdown answer's paragraphs) out to the full width, so an
answer copied from the terminal came with a tail of spaces on every line. Spaces with a
background colour (a code block's) are kept: they are what draws the background.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult


class Trimmed:
    """`inner` as it renders, each line without its trailing blank padding."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in console.render_lines(self.inner, options, pad=False):
            yield from trim_line(line)
            yield Segment.line()


def trim_line(line: list[Segment]) -> list[Segment]:
    """`line` without the plain spaces at its end."""
    trimmed = list(line)
    while trimmed:
        last = trimmed[-1]
        if last.control or (last.style is not None and last.style.bgcolor is not None):
            break
        text = last.text.rstrip(" ")
        if text:
            trimmed[-1] = Segment(text, last.style, last.control)
            break
        trimmed.pop()
    return trimmed
