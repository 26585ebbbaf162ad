"""Text from plugins, skills and the model made safe to write to a terminal.

A plugin's answer (news, weather: text from anywhere) could carry escape sequences that
recolour, retitle or rewrite the user's terminal, or worse. `terminal_safe` drops them: CSI
(`ESC [ ... final`, C1 `0x9b`), string sequences (OSC, DCS, SOS, PM, APC: `ESC ]` ... up to
BEL or ST), the other ESC sequences, and every other C0/C1 control character but `\\n` and `\\t`
(`\\r\\n` becomes `\\n`; a lone `\\r` goes). Printable text, any script or emoji, is kept.
Only the payload is cleaned, before Rich styles it: homeclaw's own colours are untouched.
"""

from __future__ import annotations

import re

# A string sequence runs to BEL or ST; one left open ends at the line's end (so a stray
# `ESC ]` cannot swallow the rest of an answer), which is also where the removal stops.
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c\n]*"
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*"
_OTHER = r"\x1b[ -/]*"
_SEQUENCE = re.compile(rf"{_STRING}(?:\x07|\x1b\\|\x9c)?|{_CSI}[@-~]?|{_OTHER}[0-~]?")
# A sequence cut off at the end of a streamed piece: held back until the next piece.
_OPEN_AT_END = re.compile(rf"(?:{_STRING}|{_CSI}|{_OTHER})\Z")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """`text` without escape sequences and control characters, but for newlines and tabs."""
    return _CONTROL.sub("", _SEQUENCE.sub("", text.replace("\r\n", "\n")))


class SafeStream:
    """`terminal_safe` for text streamed in pieces: a sequence split between two pieces is
    held back until it is whole, so neither half reaches the terminal."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        """What of `piece` (after anything held) can be written now, made safe."""
        text = self._held + piece
        open_tail = _OPEN_AT_END.search(text)
        cut = open_tail.start() if open_tail else len(text)
        self._held = text[cut:]
        return terminal_safe(text[:cut])

    def end(self) -> str:
        """Whatever is still held, made safe (an unfinished sequence is dropped)."""
        held, self._held = self._held, ""
        return terminal_safe(held)
