"""Keys typed before the first frame land in the prompt, in order, and Enter sends it
(issue 37: typed 0.3 s after launch, the prompt stayed empty).

The app holds its first frame until the test opens it (``EDDY_TEST_HOLD_FIRST_FRAME``,
tui/typeahead.py) and says which keys it has kept meanwhile, so the keys are typed before
the first frame every time, not by timing luck: some before eddy reads the terminal at all
(typed with the command), the rest while the app runs without a prompt yet.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def wait_file(path: Path, condition: object, what: str, timeout: float = 30) -> None:
    """Poll ``path`` until ``condition(text)`` holds."""
    deadline = time.monotonic() + timeout
    while True:
        got = path.read_text() if path.exists() else None
        if got is not None and condition(got):  # type: ignore[operator]
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; {path.name}: {got!r}")
        time.sleep(0.02)


def test_keys_typed_before_the_first_frame_fill_the_prompt_and_enter_sends_it(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(Reply([text("Hello to you too.")]))
    gate = tmp_path / "first-frame"
    kept = Path(f"{gate}.keys")
    pane.start(eddy_command(fake_api, env={"EDDY_TEST_HOLD_FIRST_FRAME": str(gate)}), workspace)
    pane.type("hello ")  # with the command: read once eddy puts the terminal in raw mode
    wait_file(kept, lambda got: True, "the app to hold its first frame")
    pane.type("world")
    pane.keys("Enter")
    typed = ["h", "e", "l", "l", "o", "space", "w", "o", "r", "l", "d", "enter"]
    wait_file(kept, lambda got: got.split() == typed, "every key kept, in order")
    assert "›" not in pane.screen()  # no prompt on screen yet: the first frame is held

    gate.touch()
    screen = pane.wait(lambda s: "Hello to you too." in s, "the answer to the typed prompt")
    assert "hello world" in screen
    (request,) = fake_api.requests
    assert request["messages"][-1]["content"][-1]["text"] == "hello world"
    assert not fake_api.violations
