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


async def test_a_frame_lets_the_work_ready_to_run_go_first() -> None:
    """After Enter the request is sent in a chain of loop steps; the prompt's frame went out
    between two of them and held the request back. A frame now waits for the chain."""
    order: list[str] = []
    loop = asyncio.get_running_loop()
    painted = asyncio.Event()

    def step(n: int) -> None:
        order.append(f"step {n}")
        if n < 5:
            loop.call_soon(step, n + 1)

    def paint() -> None:
        order.append("paint")
        painted.set()

    pacer = FramePacer(paint, PERIOD, yield_s=1.0)
    loop.call_soon(step, 1)
    pacer.resume()
    await asyncio.wait_for(painted.wait(), 30)
    assert order == ["step 1", "step 2", "step 3", "step 4", "step 5", "paint"]


async def test_a_busy_loop_still_gets_its_frame_within_the_yield() -> None:
    """Work that is always ready (an answer streaming at full speed) holds a frame back for
    ``yield_s`` at most: the first step that starts after it is the last before the paint
    (the clock is the loop's; no wall-clock bound)."""
    loop = asyncio.get_running_loop()
    yield_s = 0.02
    starts: list[float] = []
    painted_after: list[int] = []
    pacer = FramePacer(lambda: painted_after.append(len(starts)), PERIOD, yield_s=yield_s)
    stop = loop.time() + 30

    def busy() -> None:
        starts.append(loop.time())
        end = loop.time() + 0.001
        while loop.time() < end:
            pass
        if not painted_after and loop.time() < stop:
            loop.call_soon(busy)

    loop.call_soon(busy)
    await asyncio.sleep(0)
    asked = loop.time()
    pacer.resume()
    await until(lambda: bool(painted_after), what="the frame")
    ran = starts[: painted_after[0]]
    assert len([at for at in ran if at >= asked + yield_s]) <= 1
    assert ran[-1] >= asked  # it did wait for the busy work (not painted at once)


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
            await until(lambda: pacer.due is None, what="no frame pending")
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
