"""Line mode numbers the rewind choices as the TUI's dialog orders them (issue 25)."""

from __future__ import annotations

from plain.questions import rewind_mode
from tui.screens.rewind import MODES


def test_rewind_options_are_numbered_as_in_the_tui() -> None:
    assert [rewind_mode(str(n)) for n in (1, 2, 3)] == [mode for _, mode in MODES[:3]]
    assert rewind_mode("") == "both" and rewind_mode("code") == "code"
