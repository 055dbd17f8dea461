"""Text from outside reaches a terminal with its SGR colours at most: every other control
sequence and character is dropped (frontend/sanitize.py, shared by the TUI and line mode)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontend.sanitize import sanitize

CORPUS = [
    # (what, raw, shown with keep_sgr=False, shown with keep_sgr=True)
    ("clear screen and home", "a\x1b[2J\x1b[Hb", "ab", "ab"),
    ("cursor up, erase line", "one\x1b[3A\x1b[2Ktwo", "onetwo", "onetwo"),
    ("cursor position and save", "\x1b[10;20H\x1b7x\x1b8", "x", "x"),
    ("private mode: alt screen off", "\x1b[?1049lz", "z", "z"),
    ("OSC title with BEL", "\x1b]0;TITLE\x07after", "after", "after"),
    ("OSC title with ST", "\x1b]2;TITLE\x1b\\after", "after", "after"),
    ("OSC 52 clipboard", "\x1b]52;c;ZXZpbA==\x07ok", "ok", "ok"),
    ("OSC 8 hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link", "link"),
    ("unterminated OSC ends at the line", "\x1b]0;title\nnext", "\nnext", "\nnext"),
    ("DCS", "p\x1bPq#0;2;0;0;0#0~~\x1b\\q", "pq", "pq"),
    ("SOS, PM, APC", "\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\.", ".", "."),
    ("8-bit CSI", "\x9b2Jx", "x", "x"),
    ("8-bit OSC with ST", "\x9d0;title\x9cy", "y", "y"),
    ("8-bit DCS", "\x90data\x9cz", "z", "z"),
    ("other C1 controls", "a\x84b\x85c\x8dd\x9ae", "abcde", "abcde"),
    ("charset designation", "\x1b(0lqk\x1b(B", "lqk", "lqk"),
    ("keypad, reset", "\x1b=\x1b>\x1bcok", "ok", "ok"),
    ("lone ESC at the end", "end\x1b", "end", "end"),
    ("CSI cut short", "x\x1b[31", "x", "x"),
    ("BEL, VT, FF, DEL, NUL", "a\x07b\x0bc\x0cd\x7fe\x00f", "abcdef", "abcdef"),
    ("backspace overstrike", "_\bA b\bb", "A b", "A b"),
    ("carriage return progress", "10%\r50%\r100%\ndone", "100%\ndone", "100%\ndone"),
    ("trailing carriage return", "50%\r\n", "50%\n", "50%\n"),
    ("CRLF", "a\r\nb", "a\nb", "a\nb"),
    ("SGR colours", "\x1b[1;31mred\x1b[0m", "red", "\x1b[1;31mred\x1b[0m"),
    ("256 and true colour", "\x1b[38;5;208mo\x1b[38;2;1;2;3mt\x1b[m", "ot", None),
    ("tabs and newlines stay", "a\tb\nc", "a\tb\nc", "a\tb\nc"),
    ("nothing to clean", "plain text ✓ ünïcode", "plain text ✓ ünïcode", None),
]


@pytest.mark.parametrize(("what", "raw", "plain", "styled"), CORPUS, ids=[c[0] for c in CORPUS])
def test_every_control_sequence_is_dropped_and_sgr_kept_if_asked(what, raw, plain, styled):
    assert sanitize(raw) == plain
    assert sanitize(raw, keep_sgr=True) == (raw if styled is None else styled)


_LEFT_OVER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SGR_ONLY = re.compile(r"\x1b\[[0-9;:]*m")


@given(st.text(alphabet=st.sampled_from(list("ab[];?0123456789mHJ\\\x07\x1b\x9b\x9c\x9d\r\b\n"))))
def test_nothing_but_text_tabs_newlines_and_sgr_survives(raw):
    assert not _LEFT_OVER.search(sanitize(raw))
    kept = sanitize(raw, keep_sgr=True)
    assert not _LEFT_OVER.search(_SGR_ONLY.sub("", kept))
    assert sanitize(kept) == sanitize(raw)  # idempotent up to the colours
