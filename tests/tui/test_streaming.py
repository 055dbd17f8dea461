"""A turn streams into the conversation: prompt, markdown answer, status line."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.user_prompt import UserPrompt

ANSWER = "# Plan\n\nFirst **read** the code.\n\n```python\nprint('hi')\n```\n\n- one\n- two\n"


async def test_a_turn_streams_and_renders(workspace: Path) -> None:
    model = ScriptedModel([ANSWER], chunk=5, cost_per_call=0.25)
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "explain")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        deltas = events.of(ev.TextDelta)
        assert len(deltas) > 10  # it really streamed in pieces
        prompts = app.query(UserPrompt)
        assert [p.text for p in prompts] == ["explain"]
        (answer,) = app.query(AssistantText)
        assert answer.text == ANSWER and answer.finished
        assert not answer.children  # one widget: no widget per markdown block
        shown = answer.render().plain.split("\n")
        assert shown == [
            *("Plan", "", "First read the code.", ""),
            *("  print('hi')", "", "• one", "• two"),
        ]
        status = app.main.status
        assert status.working_since is None
        assert status.cost == 0.25 and status.context_window > 0
        assert "$0.2500" in str(status.render())
        assert app.focused is app.main.prompt
        assert app.main.prompt.text == ""


async def test_status_shows_work_in_progress_while_streaming(workspace: Path) -> None:
    from tests.helpers.tui import StreamThenStall

    model = StreamThenStall("Reading the code now, " * 20, ScriptedModel(["done"]))
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        await model.streaming.wait()
        await pilot.pause()
        status = app.main.status
        assert status.working_since is not None
        assert status.activity == "responding" and status.turn_tokens > 50
        status.refresh_line()
        assert "esc to stop" in str(status.render())
        await pilot.press("escape")
        await events.wait_for(ev.TurnFinished)
        await pilot.pause()
        assert status.working_since is None


async def test_initial_prompt_from_the_command_line_is_sent(workspace: Path) -> None:
    model = ScriptedModel(["hello back"])
    app, events = make_app(workspace, model, None, "hello there")
    async with app.run_test(size=SIZE) as pilot:
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert [p.text for p in app.query(UserPrompt)] == ["hello there"]
        assert app.query_one(AssistantText).text == "hello back"
