"""A snapshot taken in the background lets the session's own thread have the GIL.

The first snapshot of a big tree runs in a thread while the session goes on (a tool the model
called, a stream). Python code holds the GIL until it waits or the switch interval (5 ms)
ends, and the session's thread gives it up at each of its own system calls: a Grep that stats
its 100 matches waited up to 5 ms at each (in a 50,000-file tree, a first Grep took 1.5x as
long while the snapshot ran). The scan lets go between directories at least every
``YIELD_S``; this checks that it does, on a clock that it reads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.checkpoints import scan as scan_mod
from agent.checkpoints import tracker as tracker_mod
from agent.checkpoints.engine import CheckpointStore


class SlowDirectories:
    """``time`` for the scan: each reading of the clock is ``step`` later; sleeps counted."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self.lets_go: list[float] = []

    def monotonic(self) -> float:
        self.now += self.step
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds == 0
        self.lets_go.append(self.now)

    def time_ns(self) -> int:
        return time.time_ns()


@pytest.mark.parametrize("step", [scan_mod.YIELD_S / 3, scan_mod.YIELD_S * 2])
def test_a_scan_lets_go_between_directories_at_least_every_yield_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: float
) -> None:
    ws = tmp_path / "ws"
    dirs = 60
    for i in range(dirs):
        (ws / f"d{i}").mkdir(parents=True)
        (ws / f"d{i}" / "f.txt").write_text("x")
    clock = SlowDirectories(step)
    monkeypatch.setattr(scan_mod, "time", clock)
    finished = threading.Event()
    background = tracker_mod._quietly

    def quietly(work: Callable[[], None]) -> None:  # the snapshot's thread, then a signal
        background(work)
        finished.set()

    monkeypatch.setattr(tracker_mod, "_quietly", quietly)
    store = CheckpointStore(ws, tmp_path / "store")
    try:
        store.prepare_in_background()
        assert finished.wait(60)
    finally:
        store.close()
    assert store.tracker.live
    gaps = [b - a for a, b in zip(clock.lets_go, clock.lets_go[1:], strict=False)]
    # each directory (and the root) lets go once a YIELD_S has passed: never a directory late
    assert len(clock.lets_go) >= 0.8 * (dirs + 1) * min(1.0, step / scan_mod.YIELD_S)
    assert gaps and max(gaps) <= scan_mod.YIELD_S + step


def test_a_scan_someone_waits_for_keeps_the_gil(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first command waits for the first snapshot (or the session takes it at once):
    letting go would only slow the thread everyone waits for."""
    ws = tmp_path / "ws"
    for i in range(30):
        (ws / f"d{i}").mkdir(parents=True)
    clock = SlowDirectories(scan_mod.YIELD_S * 2)
    monkeypatch.setattr(scan_mod, "time", clock)
    store = CheckpointStore(ws, tmp_path / "store")
    try:
        store.tracker.prepare()
    finally:
        store.close()
    assert store.tracker.live and clock.lets_go == []


def test_the_background_snapshot_runs_niced(tmp_path: Path) -> None:
    """Its thread alone (Linux schedules threads one by one): eddy's own thread is not."""
    import os

    seen: list[int] = []
    done = threading.Event()

    def work() -> None:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        done.set()

    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    ws = tmp_path / "ws"
    ws.mkdir()
    store = CheckpointStore(ws, tmp_path / "store")
    try:
        store.tracker._in_background(work)
        assert done.wait(30)
    finally:
        store.close()
    assert seen == [min(19, mine + tracker_mod.BACKGROUND_NICE)]
    assert seen[0] > mine or mine == 19  # lower than eddy's own thread
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
