"""Text deltas the engine emits without letting the loop run reach the answer as one write,
and never after the event that followed them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, rendered, wait_ready
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.tool_call import ToolCallBlock


async def test_deltas_of_one_read_are_one_write_and_stay_before_the_next_event(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[str] = []
    append = AssistantText.append
    monkeypatch.setattr(
        AssistantText, "append", lambda self, d: (writes.append(d), append(self, d))
    )
    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        for part in ("I'll ", "fix ", "**x**."):  # as parsed from one network read
            app._emit(ev.TextDelta(1, part))
        assert writes == []  # not yet: more may come before the loop runs
        app._emit(ev.ToolCallStarted(1, "t1", "Bash", {"command": "ls"}, "ls"))
        assert writes == ["I'll fix **x**."]  # flushed before the tool call is shown
        app._emit(ev.TextDelta(1, "Done"))
        await pilot.pause()
        assert writes == ["I'll fix **x**.", "Done"]  # the loop ran: shown
        blocks = [
            type(w).__name__
            for w in app.main.conversation.children
            if isinstance(w, AssistantText | ToolCallBlock)
        ]
        assert blocks == ["AssistantText", "ToolCallBlock", "AssistantText"]
        app._emit(ev.AssistantMessage(1, {"role": "assistant", "content": []}, "end_turn"))
        await rendered(app, pilot)
        first = app.main.conversation.query(AssistantText).first()
        assert first.text == "I'll fix **x**."
        assert app.main.status.turn_tokens == len("I'll fix **x**.Done") // 4


async def test_a_failure_to_show_batched_text_is_said_not_raised(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self, delta: str) -> None:  # type: ignore[no-untyped-def]
        raise ValueError("boom")

    monkeypatch.setattr(AssistantText, "append", broken)
    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        app._emit(ev.TextDelta(1, "Hello"))  # shown later, outside the app's emit
        await pilot.pause()
        await pilot.pause()
        said = [line.text for line in app.query(MessageLine) if line.kind == "error"]
        assert any("Could not display a text_delta event (ValueError: boom)" in t for t in said)
