"""One layout pass per change of the conversation, not two.

Textual (8.x) ends each layout pass of a screen by giving every widget the size and virtual
size the pass computed; the virtual size is a reactive declared with ``layout=True``, so each
widget whose size changed asks for another pass over the whole screen at the next frame. That
second pass is how Textual settles sizes that depend on an arrangement made before them. The
widgets here depend on none:

- A widget of text (an answer, a prompt's block, the status line) has no children; the pass
  that placed it read its height from its own text at the width it gave it (its styles are
  applied when it is registered, before any pass), so the pass that mounted it, widened it or
  grew it already made it right. An answer streamed at 300 tokens/s grows at nearly every
  write (144 passes where 104 changes asked for one); a prompt sent cost a second frame (the
  block mounted, the status line a line taller).
- The conversation stacks blocks of ``height: auto`` whose heights depend on its width alone.
  At the same width and container size it only scrolls further (its anchor to the end reads
  the container size, unchanged). When only its height changes (the status line grows a line
  as a turn starts) while it is anchored to its end, Textual's compositor placed it with the
  container size of the pass before (``Widget.container_size`` is updated only after the
  pass), one line short of the end; a second pass and frame moved the new prompt into view.
  ``LaidOut.arrange`` gives the anchor this pass's height instead, and the first frame shows
  the end. Shorter than its area, the anchored conversation gets a negative offset from the
  compositor (its blocks at the bottom); Textual clamped it to 0 after the pass and a pass
  that only scrolled set it back, a frame that changed nothing: ``validate_scroll_y`` keeps
  it.

``LaidOut`` skips the second pass in exactly those cases (it reads the size Textual recorded
at the previous pass) and keeps Textual's bookkeeping otherwise (the repaint of a widget whose
size changed, the scrollbars: a scrollbar that comes or goes asks for its own pass, and a
shown scrollbar whose height changed still asks for one, which changes nothing on screen).
Among a class's bases it comes right after the Textual class
(``class Conversation(VerticalScroll, LaidOut)``): Textual's CSS follows the first base only,
so a first base that is not the Textual class would drop that class's default styles.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget


class LaidOut(Widget):
    """A base, right after the Textual class, of a widget that grows with its content, and of
    the conversation that holds them (see the module note)."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        again = layout and not self._settled(size, container_size)
        return super()._size_updated(size, virtual_size, container_size, layout=again)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Arrange the children in ``size`` (the container's region less its scrollbars);
        an anchored container records this pass's height first, which the compositor reads
        to keep it at its end."""
        if self.is_scrollable and self._anchored and not self._anchor_released:
            height = size.height + self.scrollbar_size_horizontal
            if height != self._container_size.height:
                self._container_size = Size(self._container_size.width, height)
        return super().arrange(size, optimal=optimal)

    def validate_scroll_y(self, value: float) -> float:
        """Textual's clamp to the scrollable range, except for the offset the compositor gives
        an anchored container shorter than its content area: negative, its children at the
        bottom. Clamped to 0 after each pass, it was set back by another pass (a frame at
        every turn's start in a new session) that changed nothing on screen."""
        if value < 0 and self.is_scrollable and self._anchored and not self._anchor_released:
            return value if self.max_scroll_y == 0 else 0
        return super().validate_scroll_y(value)

    def _settled(self, size: Size, container_size: Size) -> bool:
        """Whether the pass that gave ``size`` needs no second one for this widget."""
        if not self.is_scrollable:
            return True  # its text sets its height, at the width this pass gave it
        before = self._size
        if self._container_size != container_size:
            return False  # a new width (or a height the anchor did not see): settle again
        if before == size:
            return True  # it only scrolls further
        return before.width == size.width and self._anchored and not self._anchor_released
