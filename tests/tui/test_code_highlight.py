"""Code blocks are highlighted as Textual highlights them, with one lexer per language made
once (Textual looked the lexer up at every block: a long answer asked for hundreds)."""

from __future__ import annotations

import pytest
from textual.highlight import highlight

from tui.widgets.conversation.code_highlight import highlight_code, lexer_for

CODE = "def step(x):\n\tif x < 0:\n        return None  # negative\n    return x * 2\n"


@pytest.mark.parametrize("language", ["python", "json", "diff", "no-such-language"])
def test_the_same_text_and_styles_as_textuals_highlight(language: str) -> None:
    ours, textuals = highlight_code(CODE, language), highlight(CODE, language=language)
    assert ours.plain == textuals.plain and ours.spans == textuals.spans


def test_each_languages_lexer_is_made_once() -> None:
    from tui.widgets.conversation.markdown_content import markdown_to_content

    lexer_for.cache_clear()
    text = "".join(f"```python\nx = {i}\n```\n\n```rust\nlet y = {i};\n```\n\n" for i in range(50))
    markdown_to_content(text)
    info = lexer_for.cache_info()
    assert info.misses == 2 and info.hits == 98  # two languages, a hundred blocks
