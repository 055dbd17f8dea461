"""Code highlighted as Textual highlights it, with one pygments lexer per language.

``textual.highlight.highlight`` looks the lexer up by name at every call
(``get_lexer_by_name``: about 0.5 ms, more than highlighting a short block), and an answer
has a code block every few lines: a 20,000-token answer asked for about 300 lexers. Lexers
keep no state between ``get_tokens`` calls, so each language's is made once and kept.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from textual.content import Content, Span
from textual.highlight import HighlightTheme

TAB_SIZE = 8
"""As Textual's ``highlight``."""


@lru_cache(maxsize=64)
def lexer_for(language: str) -> Any:
    """The lexer of ``language`` (plain text for a name pygments does not know), made once."""
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=TAB_SIZE)


def highlight_code(code: str, language: str) -> Content:
    """``code`` highlighted as ``textual.highlight.highlight(code, language=language)``
    does it (the same theme, spans and base style)."""
    code = "\n".join(code.splitlines())
    spans: list[Span] = []
    styles = HighlightTheme.STYLES
    start = 0
    for token_type, token in lexer_for(language).get_tokens(code):
        end = start + len(token)
        kind: Any = token_type
        while kind is not None:
            style = styles.get(kind)
            if style:
                spans.append(Span(start, end, style))
                break
            kind = kind.parent
        start = end
    return Content(code, spans=spans).stylize_before("$text")
