"""The status line is built when painted, once for all the changes made since the last frame,
and drawn as Textual draws it (tui/widgets/prompt/status_line.py)."""

from __future__ import annotations

from typing import Any

import pytest
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.geometry import Region

from tui.widgets.prompt.status_line import StatusLine


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(lambda: 0.0, frozen=True, id="status")


async def test_changes_in_one_step_build_the_lines_once() -> None:
    app = Harness()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        status = app.query_one(StatusLine)
        built: list[str] = []
        build = status._build_line

        def building() -> Any:
            line = build()
            built.append(line.plain)
            return line

        status._build_line = building  # type: ignore[method-assign]
        status.model = "claude-opus-4"
        status.refresh_line()
        status.start_work()  # a second line: a layout, from the attributes alone
        status.turn_tokens = 1234
        status.refresh_line()
        for _ in range(3):
            await pilot.pause()
        assert len(built) == 1  # one build, at the frame
        assert status.size.height == 2
        assert "1.2k tok" in built[0] and "claude-opus-4" in built[0]
        status.stop_work()
        for _ in range(3):
            await pilot.pause()
        assert len(built) == 2 and status.size.height == 1
        assert "tok" not in str(status.render())


async def test_a_multi_line_activity_or_title_keeps_the_height_worked_out() -> None:
    """The height is decided from the attributes before the lines are built: text with a
    newline in it (a multi-line ``!`` command's activity, a title) stays on its line."""
    app = Harness()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        status = app.query_one(StatusLine)
        status.label = "two\nlines"
        status.start_work()
        status.activity = "running !printf a\nprintf b"
        status.refresh_line()
        for _ in range(3):
            await pilot.pause()
        lines = status.render().plain.split("\n")
        assert len(lines) == 2 == status.size.height
        assert "running !printf a printf b" in lines[0] and "two lines" in lines[1]


def _cells(strips: list[Any]) -> list[list[tuple[str, str]]]:
    return [[(ch, str(seg.style)) for seg in strip for ch in seg.text] for strip in strips]


class Styled(App[None]):
    CSS = "#status { padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }"  # app.tcss

    def compose(self) -> ComposeResult:
        yield StatusLine(lambda: 0.0, frozen=True, id="status")


@pytest.mark.parametrize("no_color", [False, True])
async def test_its_lines_are_drawn_as_textual_draws_them(
    monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    """Drawn by tui/widgets/plain_lines.py: cell by cell Textual's drawing (its padding,
    colours, NO_COLOR's filter); a line too long for the width is Textual's (an ellipsis)."""
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = Styled()
    async with app.run_test(size=(100, 10)) as pilot:
        status = app.query_one(StatusLine)
        status.model, status.cost, status.queued = "claude-opus-4", 0.25, 2
        status.start_work()
        status.turn_tokens = 1234
        status.refresh_line()
        await pilot.pause()
        for width in (100, 30):
            await pilot.resize_terminal(width, 10)
            await pilot.pause()
            region = Region(0, 0, *status.outer_size)
            assert region.height == 2
            ours = status.render_lines(region)
            textual = StylesCache().render_widget(status, region)
            assert _cells(ours) == _cells(textual)
            assert ours[0].cell_length == width
            assert ("…" in ours[1].text) == (width == 30)  # too long: Textual's ellipsis
