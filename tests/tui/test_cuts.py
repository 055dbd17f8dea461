"""Where an answer is cut into pieces (tui/widgets/conversation/assistant_text.py ``Cuts``):
the same places as the rule read line by line, found without reading every line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.widgets.conversation import assistant_text as at
from tui.widgets.conversation.assistant_text import _cuttable, seal_point, split_blocks
from tui.widgets.conversation.markdown_content import FENCES


def rule_split(text: str, size: int) -> list[str]:
    """The rule, line by line: cut after a blank line outside a fence, at least ``size``
    characters after the last cut, before a line that starts a block, not at the end."""
    pieces: list[str] = []
    start, offset, fenced = 0, 0, False
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        offset += len(line) + 1
        if line.lstrip().startswith(FENCES):
            fenced = not fenced
        elif (
            not fenced
            and not line.strip()
            and offset - start >= size
            and _cuttable(lines[i + 1])
            and offset < len(text)
        ):
            pieces.append(text[start:offset])
            start = offset
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def rule_seal(text: str) -> int:
    """The rule, line by line: the last such cut, not after the first line."""
    cut, fenced, offset = 0, False, 0
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        offset += len(line) + 1
        if line.lstrip().startswith(FENCES):
            fenced = not fenced
        elif not fenced and not line.strip() and i > 0 and _cuttable(lines[i + 1]):
            cut = offset
    return cut


PARTS = ["\n", "\n\n", "\n\n\n", " ", "\t", "\r", "\x0c", "\u00a0", "a", "b c", "```", "~~~",
         " ```py", "- ", "* ", "1. ", "2)", "  x", "|", " \n", "\n ```\n", "## h"]  # fmt: skip
texts = st.lists(st.sampled_from(PARTS), max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(texts, st.integers(min_value=0, max_value=12))
def test_the_cuts_are_the_rules(text: str, size: int) -> None:
    assert split_blocks(text, size) == rule_split(text, size)
    assert seal_point(text) == rule_seal(text)


@settings(max_examples=1000, deadline=None)
@given(texts)
def test_the_view_is_cut_where_the_rule_allows_and_keeps_every_character(text: str) -> None:
    pieces = at.split_for_view(text)
    assert "".join(pieces) == text
    allowed, offset = set(), 0
    for piece in rule_split(text, 0):  # every cut the rule allows
        offset += len(piece)
        allowed.add(offset)
    offset = 0
    for piece in pieces[:-1]:
        offset += len(piece)
        assert offset in allowed


def test_a_long_answer_is_cut_as_the_rule_cuts_it() -> None:
    text = "".join(
        f"## Section {i}\n\nStep `{i}` checks the **bounds**.\n\n- parse {i}\n- emit {i}\n\n"
        f"```python\ndef step_{i}(x):\n\n    return x * {i}\n```\n\n   \n\n"
        for i in range(300)
    )
    for size in (1, at.VIEW_PIECE_CHARS, at.PIECE_CHARS):
        assert split_blocks(text, size) == rule_split(text, size)
    assert seal_point(text) == rule_seal(text) > 0
