"""Keys typed before the prompt exists are kept, in order, and land in it (issue 37).

Textual's driver reads the terminal from the moment it is in raw mode (keys typed while
Python was still importing sit in the terminal's buffer and are read then), but the app
forwards each key to the focused widget of the moment: before the main screen has mounted
and focused the prompt there is none, and the keys went to the bare screen, which drops
them. ``Typeahead`` keeps every key and paste the app receives until the first frame is
ready, and gives them back to be handled as if they had just been typed: letters land in the
prompt, Enter sends it (queued until the session exists, as any early prompt is), Esc and
Ctrl+C act as usual.

``hold_first_frame`` is for tests only: with ``EDDY_TEST_HOLD_FIRST_FRAME`` set to a path,
the first frame waits until that file exists, and meanwhile the keys kept so far are written
to ``PATH.keys``, one a line, so a test can type into a terminal before the first frame
without depending on timing luck.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from textual import events

HOLD_VARIABLE = "EDDY_TEST_HOLD_FIRST_FRAME"
HOLD_LIMIT = 60.0
"""Seconds a test's hold lasts at most: a test that never opens it does not hang the app."""


class Typeahead:
    """The keys and pastes received before the first frame, in order."""

    def __init__(self) -> None:
        self.kept: list[events.Key | events.Paste] = []
        self.open = True
        """Whether input is still kept (until ``release``)."""

    def keep(self, event: events.Event) -> bool:
        """Keep ``event`` if it is typed input and the prompt does not exist yet; True if
        kept (the app handles it later)."""
        if self.open and isinstance(event, events.Key | events.Paste):
            self.kept.append(event)
            return True
        return False

    def release(self) -> list[events.Key | events.Paste]:
        """Stop keeping input; returns what was kept, in the order it was typed."""
        self.open = False
        kept, self.kept = self.kept, []
        return kept


async def hold_first_frame(typeahead: Typeahead) -> None:
    """Tests only: wait until the file named by ``EDDY_TEST_HOLD_FIRST_FRAME`` exists (at
    most ``HOLD_LIMIT`` seconds), writing the keys kept meanwhile to ``PATH.keys``."""
    gate = os.environ.get(HOLD_VARIABLE)
    if not gate:
        return
    report = Path(gate + ".keys")
    deadline = time.monotonic() + HOLD_LIMIT
    while not Path(gate).exists() and time.monotonic() < deadline:
        names = [e.key if isinstance(e, events.Key) else "paste" for e in typeahead.kept]
        report.write_text("".join(f"{name}\n" for name in names))
        await asyncio.sleep(0.02)
