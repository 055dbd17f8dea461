"""Lines drawn the way Textual draws them, without the work whose result they do not use.

Textual draws a widget's line in two steps: the widget's content (``Visual.to_strips``: each
segment's style carries the offset that mouse selection reads), then its styles cache (the
padding, border, outline, tint, hatch and opacity rules read for every line, two strips made
per line, the app's line filters). For text that is not selectable yet, or never is, and a
widget that nothing but padding and its background surrounds, both steps come down to a
little: ``PlainLines.quick_strip`` draws a line of content without the offsets,
``draw_plain`` pads the lines with the background and applies the filters. Each is equal,
cell by cell, to Textual's drawing (tests/tui/test_frozen_markdown.py,
tests/tui/test_status_line.py); anything else is left to Textual. ``PlainLines`` is a base of
the widgets that draw this way, right after their Textual class.

An answer streamed at full speed is drawn in its final frame (its last screenful: the
offsets were 40% of a line's drawing, the styles cache another 1.1 ms of a 6 ms frame), and
the status line at every frame of a turn (its two lines: 0.4-0.5 ms through Textual).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.segment import Segment
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class PlainLines(Widget):
    """A base, right after the Textual class, of a widget that draws some of its lines the
    short way (see the module note)."""

    def quick_strip(self, line: Content, width: int, style: Any) -> Strip | None:
        """``line`` drawn as ``Visual.to_strips`` draws a line that fits in ``width`` with
        Textual's default text rules, without the selection offsets in its segments' styles;
        None when it does not fit or holds a tab (Textual's own drawing then)."""
        if line.cell_length > width or "\t" in line.plain:
            return None
        rules = self.styles
        if rules.text_align not in ("left", "start") or rules.line_pad:
            return None
        segments = [
            Segment(text, (style + text_style).rich_style)
            for text, text_style in line.render(style, end="", parse_style=self._get_style)
        ]
        return Strip(segments, line.cell_length)

    def drawn_plain(self) -> bool:
        """Whether nothing but its background and a padding at its sides surrounds or covers
        its lines, and no text of it is selected (``draw_plain`` then draws them)."""
        styles = self.styles
        top, _, bottom, _ = styles.padding
        return (
            self.text_selection is None
            and not top
            and not bottom
            and not any(edge for edge, _ in styles.border)
            and not any(edge for edge, _ in styles.outline)
            and not styles.tint.a
            and self.opacity == 1.0
            and styles.text_opacity == 1.0
            and (not styles.has_rule("hatch") or styles.hatch == "none")
            and self._border_title is None
            and self._border_subtitle is None
        )

    def draw_plain(self, crop: Region, line: Callable[[int], Strip]) -> list[Strip]:
        """The lines in ``crop``, as the styles cache draws them when ``drawn_plain()``: the
        content line ``line(y)`` padded to the content's width and with the side padding, in
        the background, then the app's line filters."""
        base, background = self.background_colors
        inner = self._styles_cache.get_inner_outer(base, background)[0].rich_style
        _, right, _, left = self.styles.padding
        width, content = self.outer_size.width, self.size.width
        filters = self.get_line_filters()
        strips = []
        for y in crop.line_range:
            strip = line(y).adjust_cell_length(content, inner)
            if left or right:  # as Textual's line_pad
                segments = [Segment(" " * left, inner)] if left else []
                segments += strip
                if right:
                    segments.append(Segment(" " * right, inner))
                strip = Strip(segments, width)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip)
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips
