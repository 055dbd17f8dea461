"""When an answer's final frame is on screen, for the TUI benchmarks.

Textual paints in ``Screen._on_timer_update``. After the answer's last write the widget asks
for a layout (its height changed), which reaches the screen as a message; a paint forced at
once (``app.screen._on_timer_update()``, what these benchmarks did until session 12) runs
before that message and shows nothing new: the frame that shows the end of the answer comes
later. ``FinalFrame`` watches the screen's updates instead and notes the end of the first one
that, once every answer finished, drew lines of the answer laid out at its full height with
the conversation at its end: the wall clock and a CPU clock then.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


class FinalFrame:
    """Use as ``with FinalFrame(app) as frame: ...; wall, cpu = await frame.shown()``, entered
    before the app runs (a screen's update timer keeps the method it was made with).

    Patches two methods of Textual and eddy classes for the duration (a benchmark's own
    instrument, restored on exit)."""

    def __init__(self, app: Any, cpu: Callable[[], float] = time.process_time) -> None:
        self.app = app
        self._cpu = cpu
        self._drew = False
        self._at: tuple[float, float] | None = None
        self._shown = asyncio.Event()
        self._restore: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> FinalFrame:
        from textual.screen import Screen

        from tui.widgets.conversation.assistant_text import AssistantText

        frame = self
        render_line = AssistantText.render_line
        update = Screen._on_timer_update

        def drawing(widget: Any, y: int) -> Any:
            if widget.finished:
                frame._drew = True
            return render_line(widget, y)

        def updating(screen: Any) -> None:
            frame._drew = False
            update(screen)
            if frame._drew and frame._at is None and frame._complete():
                frame._at = (time.perf_counter(), frame._cpu())
                frame._shown.set()

        self._restore = [
            (AssistantText, "render_line", render_line),
            (Screen, "_on_timer_update", update),
        ]
        AssistantText.render_line = drawing  # type: ignore[method-assign]
        Screen._on_timer_update = updating  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in self._restore:
            setattr(owner, name, original)

    def _complete(self) -> bool:
        from textual.geometry import Size

        from tui.widgets.conversation.assistant_text import AssistantText

        conversation = self.app.main.conversation
        answers = list(conversation.query(AssistantText))
        if not answers or not all(a.finished for a in answers):
            return False
        last = answers[-1]
        width = last.size.width
        full = last.get_content_height(Size(0, 0), Size(0, 0), width)
        at_end = conversation.scroll_y >= conversation.max_scroll_y
        return width > 0 and last.size.height == full and at_end

    async def shown(self) -> tuple[float, float]:
        """The wall clock (perf_counter) and the CPU clock when the final frame was
        painted."""
        await self._shown.wait()
        assert self._at is not None
        return self._at
