"""Text from outside eddy (command output) as Content: its SGR colours become styles, every
other control sequence is dropped (frontend/sanitize.py), so it can never drive the terminal."""

from __future__ import annotations

from textual.content import Content

from frontend.sanitize import sanitize


def ansi_content(text: str) -> Content:
    """``text`` as Content, its colours and bold kept as styles and nothing else of its
    escape sequences (no cursor movement, screen clearing or window titles)."""
    clean = sanitize(text, keep_sgr=True)
    if "\x1b" not in clean:
        return Content(clean)
    from rich.text import Text  # only for coloured output

    return Content.from_rich_text(Text.from_ansi(clean, end=""))
