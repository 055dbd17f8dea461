"""Keys typed before the prompt exists are kept in order and land in it; Enter sends the
prompt once the session can take it (issue 37). The first frame is held by the test-only
hook (tui/typeahead.py) while the keys arrive, as the terminal's reader thread delivers
them; tests/e2e/test_typeahead_tmux.py does the same in a real terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual import events

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, wait_ready
from tui.typeahead import HOLD_VARIABLE, Typeahead


async def type_while_held(app: Any, gate: Path, keys: list[tuple[str, str | None]]) -> None:
    """Once the app holds its first frame, deliver ``keys`` as its reader thread does, wait
    until it has kept them all, then let the first frame be drawn."""
    kept = Path(f"{gate}.keys")
    async with asyncio.timeout(60):  # a deadline, not a speed: the hold itself lasts 60 s
        while not kept.exists():
            await asyncio.sleep(0.01)
        for name, char in keys:
            event = events.Key(name, char)
            event.set_sender(app)
            app._driver.send_message(event)
        while len(kept.read_text().split()) < len(keys):
            await asyncio.sleep(0.01)
    assert not app.main.prompt.text  # nothing reached the prompt while it was held
    gate.touch()


async def test_keys_typed_before_the_first_frame_land_in_order_and_enter_sends(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv(HOLD_VARIABLE, str(gate))
    app, recorded = make_app(workspace, ScriptedModel(["Hi."]))
    keys = [(c, c) for c in "fix"] + [("space", " ")] + [(c, c) for c in "it"] + [("enter", "\r")]
    typing = asyncio.get_running_loop().create_task(type_while_held(app, gate, keys))
    async with app.run_test(size=SIZE) as pilot:
        await typing
        await wait_ready(app, pilot)
        await recorded.wait_for(ev.TurnFinished)
        (started,) = recorded.of(ev.TurnStarted)
        assert started.prompt == "fix it"
        assert app.main.prompt.text == ""


async def test_keys_before_the_first_frame_without_enter_stay_in_the_prompt(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv(HOLD_VARIABLE, str(gate))
    app, recorded = make_app(workspace, ScriptedModel([]))
    keys = [(c, c) for c in "abc"] + [("backspace", None), ("d", "d")]
    typing = asyncio.get_running_loop().create_task(type_while_held(app, gate, keys))
    async with app.run_test(size=SIZE) as pilot:
        await typing
        await wait_ready(app, pilot)
        await pilot.pause()
        assert app.main.prompt.text == "abd"  # in order: the backspace after the c
        assert not recorded.of(ev.TurnStarted)
        app.main.prompt.insert("e")  # typing after the first frame goes on from there
        assert app.main.prompt.text == "abde"


def test_typeahead_keeps_typed_input_until_released_and_nothing_after() -> None:
    typeahead = Typeahead()
    key, paste = events.Key("a", "a"), events.Paste("pasted")
    assert typeahead.keep(key) and typeahead.keep(paste)
    assert not typeahead.keep(events.Resize.from_dimensions((80, 24), None))
    assert typeahead.release() == [key, paste]
    assert not typeahead.keep(events.Key("b", "b"))  # the prompt exists: straight to it
    assert typeahead.release() == []
