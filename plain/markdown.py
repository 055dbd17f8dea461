"""Assistant text as it streams: markdown rendered plainly, line by line.

Only complete lines are printed (a half line would end up under the prompt). With colours,
headings are bold, ``code`` cyan, bullets become "•", and fenced code is highlighted with
pygments once its block is closed; without colours the text stays as the model wrote it,
minus bold/italic markers (which a screen reader would read out).
"""

from __future__ import annotations

import re

from frontend.partial_markdown import close_partial
from frontend.sanitize import sanitize
from plain.style import Painter

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(?=\S)")
_QUOTE = re.compile(r"^\s*>\s?")
_RULE = re.compile(r"^\s*(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(
    r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"
)
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")

CODE_FLUSH_LINES = 200
"""A code block this long is printed before it is closed (the reader should not wait)."""


def highlight_code(code: str, language: str) -> list[str]:
    """``code`` highlighted for a 16-colour terminal (pygments), as lines."""
    from pygments import highlight
    from pygments.formatters import TerminalFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language, stripnl=False) if language else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return code.split("\n")
    out = highlight(code, lexer, TerminalFormatter())
    return out.rstrip("\n").split("\n")


def warm_up_highlighting() -> None:
    """Compile the lexers of the common languages now (their regular expressions compile on
    first use, 2-20 ms each): run in the warm-up thread, so a first code block prints at once."""
    from frontend.languages import COMMON_LANGUAGES as HIGHLIGHTED

    for language in HIGHLIGHTED:
        highlight_code("x = 1\n", language)


def inline(text: str, paint: Painter) -> str:
    """Render inline markdown (bold, italic, code spans, links) in one line."""
    parts = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        parts.append(_emphasis(text[last : m.start()], paint))
        parts.append(paint(m.group(2), "cyan") if paint.color else m.group(0))
        last = m.end()
    parts.append(_emphasis(text[last:], paint))
    return "".join(parts)


def _emphasis(text: str, paint: Painter) -> str:
    text = _LINK.sub(lambda m: f"{m.group(1)} ({paint(m.group(2), 'underline')})", text)
    text = _BOLD.sub(lambda m: paint(m.group(1) or m.group(2), "bold"), text)
    return _ITALIC.sub(lambda m: paint(m.group(1) or m.group(2), "italic"), text)


class MarkdownStream:
    """Feed text deltas; get back the complete lines to print.

    Args:
        paint: the painter (colours on or off).
    """

    def __init__(self, paint: Painter) -> None:
        self.paint = paint
        self._partial = ""
        self._fence: str | None = None
        self._language = ""
        self._code: list[str] = []

    @property
    def pending(self) -> bool:
        """Whether some text is held back (a half line or an open code block)."""
        return bool(self._partial or self._code)

    def feed(self, text: str) -> list[str]:
        """The lines completed by ``text``."""
        self._partial += sanitize(text)
        if "\n" not in self._partial:
            return []
        *lines, self._partial = self._partial.split("\n")
        out: list[str] = []
        for line in lines:
            out.extend(self._line(line))
        return out

    def finish(self, *, interrupted: bool = False) -> list[str]:
        """Everything held back (the end of a message): the half line, an unclosed block.

        Args:
            interrupted: the answer was cut short (Esc): close what it left open, as the TUI
                does (frontend/partial_markdown.py), so a half line shows ``**bold`` as bold
                and an open code block ends with its fence, not with raw markers.
        """
        partial, self._partial = self._partial, ""
        if interrupted and partial and self._fence is None:
            # only the half line is still unprinted; its closers are all that can matter now
            partial = close_partial(partial).rstrip("\n")
            if _FENCE.match(partial.split("\n")[0]) and "\n" in partial:
                # a fence opened on the half line and closed by close_partial
                return [self.paint(ln, "dim") for ln in partial.split("\n")]
        out = self._line(partial) if partial else []
        out.extend(self._flush_code())
        if interrupted and self._fence is not None:
            out.append(self.paint(self._fence, "dim"))  # the block ends here, visibly
        self._fence = None
        return out

    def _line(self, line: str) -> list[str]:
        paint = self.paint
        if self._fence is not None:
            stripped = line.strip()
            if stripped.startswith(self._fence) and not stripped.strip(self._fence[0]):
                out = self._flush_code()
                self._fence = None
                return [*out, paint(line, "dim")]
            self._code.append(line)
            return self._flush_code() if len(self._code) >= CODE_FLUSH_LINES else []
        fence = _FENCE.match(line)
        if fence:
            self._fence, self._language = fence.group(1), fence.group(2).lower()
            return [paint(line, "dim")]
        if not paint.color:
            return [_emphasis(line, paint)]
        heading = _HEADING.match(line)
        if heading:
            styles = ("bold", "underline") if len(heading.group(1)) <= 2 else ("bold",)
            return [paint(inline(heading.group(2), paint), *styles)]
        if _RULE.match(line):
            return [paint("─" * 40, "dim")]
        quote = _QUOTE.match(line)
        if quote:
            return [paint("│ ", "dim") + paint(inline(line[quote.end() :], paint), "italic")]
        line = _BULLET.sub(lambda m: f"{m.group(1)}• ", line)
        return [inline(line, paint)]

    def _flush_code(self) -> list[str]:
        code, self._code = self._code, []
        if not code:
            return []
        if not self.paint.color:
            return code
        try:
            return highlight_code("\n".join(code), self._language)
        except Exception:  # a lexer bug must not lose the code
            return code
