"""Text from outside eddy made safe for a terminal: one implementation for every front end.

Command output, model text, file names, hook and MCP output may carry escape sequences. Written
to a terminal as they are, they move the cursor, clear the screen, retitle the window or (OSC
52) set the clipboard: terminal injection. ``sanitize`` keeps the text and, if asked, its SGR
colours (the TUI turns them into styles), and drops every other control sequence and
character. UI-free: no textual, rich, prompt_toolkit or pygments here.
"""

from __future__ import annotations

import re

_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI (SGR colours, cursor movement, erase), or cut short
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    # ^ OSC (titles, clipboard, hyperlinks), DCS, SOS, PM, APC: up to BEL or ST (or the line's
    #   end: text after an unterminated string stays visible)
    r"|\x1b[ -/]*[0-~]?"  # the other escapes (charset, keypad, reset ...) and a lone ESC
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Every C0 control but tab and newline, DEL and the C1 controls."""


def sanitize(text: str, *, keep_sgr: bool = False) -> str:
    """``text`` with no control sequence or character a terminal would act on.

    Tabs and newlines stay. A carriage return inside a line (a progress bar) keeps what was
    written last; a backspace rubs out the character before it (man pages' overstrike).

    Args:
        text: text eddy did not write.
        keep_sgr: keep SGR sequences (colours, bold): only for a front end that turns them
            into styles; every other sequence is dropped either way.

    Returns:
        The cleaned text (``text`` itself when it has nothing to clean).
    """
    if not _CONTROLS.search(text):
        return text
    text = text.replace("\r\n", "\n")

    def sequence(match: re.Match[str]) -> str:
        found = match.group()
        return found if keep_sgr and _SGR.fullmatch(found) else ""

    text = _SEQUENCE.sub(sequence, text)
    if "\r" in text or "\b" in text:
        text = "\n".join(_overwrite(line) for line in text.split("\n"))
    if keep_sgr:
        return "\x1b".join(_CONTROLS.sub("", part) for part in text.split("\x1b"))
    return _CONTROLS.sub("", text)


def _overwrite(line: str) -> str:
    """One line as a terminal leaves it after its carriage returns and backspaces (SGR
    sequences kept in place, taking no room)."""
    if "\r" in line:
        segments = line.split("\r")
        last = next((s for s in reversed(segments) if s), "")
        dropped = "".join(s for s in segments if s is not last)
        line = "".join(_SGR.findall(dropped)) + last  # the colours set on the way still hold
    if "\b" not in line:
        return line
    pieces: list[str] = []
    pos = 0
    for match in _SGR.finditer(line):
        pieces.extend(line[pos : match.start()])
        pieces.append(match.group())
        pos = match.end()
    pieces.extend(line[pos:])
    cells: list[str] = []
    for piece in pieces:
        if piece != "\b":
            cells.append(piece)
            continue
        for i in range(len(cells) - 1, -1, -1):  # rub out the last character, not a sequence
            if not cells[i].startswith("\x1b"):
                del cells[i]
                break
    return "".join(cells)
