"""One layout pass per change of a streaming answer, not two.

Textual (8.x) ends each layout pass of a screen by giving every widget the size and virtual
size the pass computed; the virtual size is a reactive declared with ``layout=True``, so each
widget whose size changed asks for another pass over the whole screen at the next frame. That
second pass is how Textual settles sizes that depend on an arrangement made before them (a
widget just mounted, a new width), so it stays for those. An answer that grows while it
streams is not one of them: at the same width its height comes from its own text alone, and
the conversation around it, at the same size and container size, only scrolls further (its
anchor to the end reads the container size, unchanged). In a conversation of 150 blocks a
pass costs ~25 ms on a 2-core machine, and an answer streamed at 300 tokens/s grows at
nearly every write: 144 passes where 104 changes asked for one.

``LaidOut`` skips the second pass in exactly those two cases (it reads the size Textual
recorded at the previous pass) and keeps Textual's bookkeeping otherwise (the repaint of a
widget whose size changed, the scrollbars). It is the LAST base of a widget class
(``class Conversation(VerticalScroll, LaidOut)``): Textual's CSS follows the first base only,
so a first base that is not the Textual class would drop that class's default styles.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


class LaidOut(Widget):
    """The last base of a widget that grows with its content (see the module note)."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        again = layout and not self._settled(size, container_size)
        return super()._size_updated(size, virtual_size, container_size, layout=again)

    def _settled(self, size: Size, container_size: Size) -> bool:
        """Whether the pass that gave ``size`` needs no second one for this widget."""
        before = self._size
        if self.is_scrollable:  # a container whose content grew or shrank, and nothing else
            return before == size and self._container_size == container_size
        return before.width == size.width and before.height > 0  # its text sets its height
