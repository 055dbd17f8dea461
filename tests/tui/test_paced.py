"""A screen paints a change on the loop's next turn, not on Textual's 1/60 s grid, and keeps
to 60 frames a second on average (tui/screens/paced.py)."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.helpers.wait import until
from tui.screens.dialog import Dialog
from tui.screens.main import MainScreen
from tui.screens.paced import BURST, FramePacer, PacedScreen

PERIOD = 1 / 60


def test_a_burst_goes_at_once_then_frames_wait_for_the_credit() -> None:
    pacer = FramePacer(lambda: None, PERIOD, burst=3)
    assert pacer.wait(100.0) == 0 and pacer.credit(100.0) == 3  # after a quiet spell: at once
    for _ in range(3):
        pacer.painted(100.0)
    assert pacer.wait(100.0) == PERIOD  # three at once: the fourth waits a period
    assert abs(pacer.wait(100.0 + PERIOD / 4) - PERIOD * 3 / 4) < 1e-9
    assert pacer.wait(100.0 + PERIOD) < 1e-9
    pacer.painted(100.0 + PERIOD)
    assert abs(pacer.wait(100.0 + PERIOD) - PERIOD) < 1e-9  # the credit spent again
    assert pacer.wait(100.0 + 10) == 0  # long after: a whole burst again, no more
    for _ in range(3):
        pacer.painted(110.0)
    assert abs(pacer.wait(110.0) - PERIOD) < 1e-9


def test_sixty_frames_a_second_at_most_on_average() -> None:
    pacer = FramePacer(lambda: None, PERIOD, burst=3)
    now, painted = 0.0, 0
    while now < 1.0:  # a change asked for as soon as each frame is painted
        now += pacer.wait(now)
        pacer.painted(now)
        painted += 1
    assert painted <= 60 + 3 + 1


class Board(PacedScreen):
    def compose(self) -> ComposeResult:
        yield Static("zero", id="text")


class Harness(App[None]):
    def get_default_screen(self) -> Board:
        return Board()


async def test_changes_in_a_row_are_each_painted_at_once() -> None:
    """Textual's timer painted the first change after a quiet spell at once and the next
    one to two periods later; here each of the first ``BURST`` is due when it is asked for
    (whatever the load: the credit, not the clock, decides), and each is painted."""
    app = Harness()
    async with app.run_test(size=(40, 5)) as pilot:
        screen = app.screen
        assert isinstance(screen, Board)
        pacer = screen.frames
        loop = asyncio.get_running_loop()
        # a quiet spell after the start-up's frames: the whole credit back
        await until(lambda: pacer.credit(loop.time()) >= BURST, what="the credit back")
        asked: list[tuple[float, float | None]] = []
        resume = pacer.resume

        def resuming() -> None:
            was_due = pacer.due
            resume()
            if was_due is None:
                asked.append((loop.time(), pacer.due))

        pacer.resume = resuming  # type: ignore[method-assign]
        painted: list[str] = []
        paint = screen._on_timer_update

        def painting() -> None:
            paint()
            painted.append(str(screen.query_one("#text", Static).render()))

        screen._on_timer_update = painting  # type: ignore[method-assign]
        for n in ("one", "two", "three")[:BURST]:
            screen.query_one("#text", Static).update(n)
            while not painted or painted[-1] != n:
                await pilot.pause()
        assert len(asked) >= BURST
        for at, due in asked[:BURST]:
            assert due is not None and due <= at  # asked for, due at once


def test_eddys_screens_are_paced() -> None:
    assert issubclass(MainScreen, PacedScreen)
    assert issubclass(Dialog, PacedScreen)
    assert "Screen" in MainScreen._css_type_names  # Textual's CSS still follows its base
    assert "ModalScreen" in Dialog._css_type_names
