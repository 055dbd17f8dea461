"""Close the markdown an interrupted answer left open, so it renders as what was said.

An answer cut short mid-stream often ends inside a construct: a code fence with no closing
line (everything after it, and the interruption, would render as code), ``**bold`` or an
inline `` `code`` whose closing marker never came (shown raw, asterisks and all), or a marker
that was just opened. ``close_partial`` returns the text with those closed, for display only:
the history keeps exactly what the model sent.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"`+")
_CLOSED_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_BULLET = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+", re.M)
_INTRAWORD_UNDERSCORE = re.compile(r"(?<=\w)_+(?=\w)")
_DANGLING = re.compile(r"(?:(?<=[ \t])|^)(\*{1,3}|_{1,3}|`+)[ \t]*\Z")
"""A marker opened at the very end (after a space, or alone on the line): nothing follows it."""


def _open_fence(text: str) -> str | None:
    """The fence (``` or ~~~, as long as it opened) of a code block left open, or None."""
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if match is None:
            continue
        marker = match.group(1)
        if fence is None:
            fence = marker
        elif (
            marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip(marker[0] + " ")
        ):
            fence = None
    return fence


def close_partial(text: str) -> str:
    """``text`` with what an interrupted stream left open closed: a code fence, then in the
    last paragraph unbalanced inline code, ``**``/``__`` and ``*``/``_`` (innermost first);
    a marker dangling at the very end is dropped instead. Complete text comes back as it is.
    """
    fence = _open_fence(text)
    if fence is not None:
        return text.rstrip("\n") + "\n" + fence + "\n"
    dangling = _DANGLING.search(text)
    if dangling is not None:
        text = text[: dangling.start(1)].rstrip()
    paragraph = re.split(r"\n\s*\n", text)[-1]
    closers = ""
    # inline code first: markers inside it are not markup
    paragraph = _CLOSED_CODE.sub("", paragraph)
    unclosed = _INLINE_CODE.search(paragraph)
    if unclosed is not None:
        closers += unclosed.group(0)
        paragraph = paragraph[: unclosed.start()]
    body = _BULLET.sub("", paragraph)
    body = _INTRAWORD_UNDERSCORE.sub("", body)  # snake_case is not emphasis
    for strong, single in (("**", "*"), ("__", "_")):
        if body.replace(strong, "").count(single) % 2:
            closers += single
        if body.count(strong) % 2:
            closers += strong
    return text + closers
