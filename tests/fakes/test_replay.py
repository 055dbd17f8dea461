"""A recorded eddy-events log replayed into the line renderer and the TUI, with no engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic
from tests.fakes.record import ANSWER, FIXED, SAMPLE, anonymised, record
from tests.fakes.replay import ReplayApp, load, parse, plain_lines, replay

LINES = [
    "› add is broken, fix it",
    "Reading calc.py.",
    "▸ Read(calc.py)",
    "  ✓ Read(calc.py) done: 2 lines",
    "It subtracts; fixing.",
    "▸ Edit(calc.py)",
    "  ✓ Edit(calc.py) done: +1 -1",
    "    --- a/calc.py",
    "    +++ b/calc.py",
    "    @@ -1,2 +1,2 @@",
    "     def add(a, b):",
    "    -    return a - b",
    "    +    return a + b",
    "Fixed: `add` now returns a + b.",
    "",
]
"""What ``eddy --plain`` prints for the sample (markdown emphasis drawn without colour)."""


def test_the_sample_decodes_to_events_and_a_result() -> None:
    recording = load(SAMPLE)
    types = [e.type for e in recording.events]
    assert types[0] == "turn_started" and types[-1] == "turn_finished"
    assert types.count("tool_call_started") == types.count("tool_call_finished") == 2
    assert recording.result is not None and recording.result["subtype"] == "success"
    assert recording.result["result"] == ANSWER


def test_the_sample_replays_into_line_mode() -> None:
    assert plain_lines(load(SAMPLE).events) == LINES


async def test_the_sample_replays_into_the_tui() -> None:
    from tui.widgets.conversation.assistant_text import AssistantText
    from tui.widgets.conversation.tool_call import ToolCallBlock
    from tui.widgets.conversation.user_prompt import UserPrompt

    app = ReplayApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await replay(app, pilot, load(SAMPLE).events)
        conversation = app.main.conversation
        kinds = [type(c).__name__ for c in conversation.children]
        assert kinds == [
            "UserPrompt",
            "AssistantText",
            "ToolCallBlock",
            "AssistantText",
            "ToolCallBlock",
            "AssistantText",
        ]
        assert app.query_one(UserPrompt).text == "add is broken, fix it"
        answers = [a.text for a in app.query(AssistantText)]
        assert answers == ["Reading calc.py.", "It subtracts; fixing.", ANSWER]
        read, edit = app.query(ToolCallBlock)
        assert (read.call_id, read.state) == ("toolu_1", "done")
        assert (edit.call_id, edit.state) == ("toolu_2", "done")
        assert "+    return a + b" in str(edit.query_one(".tool-body").render())
        # the status line followed the usage events: the turn's cost and the context size
        assert app.main.status.cost == pytest.approx(0.0120777)
        assert app.main.status.context_tokens == 3849


def test_a_bad_line_is_named() -> None:
    good = '{"type": "queue_changed", "queue": ["a"]}'
    assert parse(good + "\n\n").events == (ev.QueueChanged(("a",)),)
    with pytest.raises(ValueError, match="line 2: not an event"):
        parse(good + '\n{"type": "no_such_event"}\n')
    with pytest.raises(ValueError, match="line 1"):
        parse("not json\n")


@pytest.mark.slow
def test_a_live_recording_replays_like_the_sample(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    """Record the sample's run again (the real ``eddy -p`` against the fake API): it shows the
    same in line mode as the committed sample, so the sample is what eddy prints today."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    live = parse(anonymised(record(fake_api, workspace), workspace))
    assert (workspace / "calc.py").read_text() == FIXED
    assert len(fake_api.requests) == 3
    assert plain_lines(live.events) == LINES
    sample = load(SAMPLE)
    assert [e.type for e in live.events] == [e.type for e in sample.events]
