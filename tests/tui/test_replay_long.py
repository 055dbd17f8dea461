"""Resuming a long session: the newest messages show at once, earlier ones on demand.

The sessions are real transcripts (agent.store.transcript) resumed by the app as ``eddy --continue``
builds it (tui.app over frontend.session_open), with a ScriptedModel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent.messages import Message, ToolResultBlock, ToolUseBlock, assistant, user
from frontend.history_events import REPLAY_MESSAGES, tail_start
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, rendered, resumed_app, save_session, wait_ready
from tui.app import EddyApp
from tui.replay import EARLIER_MESSAGES, EarlierMessages, ReplayedBlock
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.tool_call import ToolCallBlock
from tui.widgets.conversation.user_prompt import UserPrompt

TURNS = 60
"""Each turn: a prompt, two tool calls with results, an answer (6 messages)."""


def long_history(turns: int = TURNS) -> list[Message]:
    history: list[Message] = []
    for n in range(turns):
        history.append(user(f"prompt {n}"))
        for k in range(2):
            call = f"t{n}_{k}"
            history.append(assistant(f"step {n}.{k}", ToolUseBlock(call, "Read", {"path": "x"})))
            history.append(user(ToolResultBlock(call, f"output {n}.{k}\n" * 50)))
        history.append(assistant(f"answer {n}"))
    return history


def prompts(app: EddyApp) -> list[str]:
    return [p.text for p in app.main.conversation.query(UserPrompt)]


def on_screen(app: EddyApp, widget: Any) -> bool:
    """``widget`` is (at least partly) inside the conversation's visible area."""
    return widget.region.intersection(app.main.conversation.region).area > 0


def test_tail_of_one_long_prompt_is_not_empty() -> None:
    """One prompt, then hundreds of tool turns: the newest still show (from an answer)."""
    history = [user("refactor")]
    for i in range(100):
        history.append(assistant(f"step {i}", ToolUseBlock(f"t{i}", "Read", {"path": "x"})))
        history.append(user(ToolResultBlock(f"t{i}", "out")))
    history.append(assistant("Done."))
    shown = history[tail_start(history) :]
    assert shown and shown[-1] == history[-1]
    assert shown[0].role == "assistant" and len(shown) <= REPLAY_MESSAGES


def test_tail_starts_at_a_prompt_when_there_is_one() -> None:
    history = long_history(10)
    start = tail_start(history, REPLAY_MESSAGES)
    assert history[start] == user(f"prompt {10 - REPLAY_MESSAGES // 6}")
    assert tail_start(history, 1000) == 0 and tail_start([], 5) == 0


@pytest.mark.slow
async def test_long_resume_shows_the_newest_and_reaches_the_oldest(workspace: Path) -> None:
    history = long_history()
    save_session(workspace, history)
    model = ScriptedModel(["Picked up where we left off."])
    app, events = resumed_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await rendered(app, pilot)
        conversation = app.main.conversation
        # the newest messages are rendered, the last answer is on screen
        assert prompts(app)[-1] == f"prompt {TURNS - 1}"
        answers = list(conversation.query(AssistantText))
        assert answers[-1].finished and on_screen(app, answers[-1])
        assert answers[-1].text == f"answer {TURNS - 1}"
        assert len(prompts(app)) < TURNS // 2  # the rest is not in the DOM yet
        earlier = conversation.query_one(EarlierMessages)
        shown = len(history) - len(earlier.messages)
        assert 0 < shown <= REPLAY_MESSAGES
        # the prompt accepts input while the long session is shown
        assert app.main.prompt.has_focus
        await pilot.press(*"go on")
        assert app.main.prompt.text == "go on"
        # scrolling to the top renders the previous chunk, keeping the place
        first_before = prompts(app)[0]
        conversation.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert conversation.query(ReplayedBlock)
        assert prompts(app).index(first_before) > 0
        assert conversation.scroll_y > 0  # the view did not jump to the new, older blocks
        # Enter on the line renders more, until nothing is left; all in order, no repeats
        for _ in range(TURNS):
            if not conversation.query(EarlierMessages):
                break
            line = conversation.query_one(EarlierMessages)
            line.focus()
            await pilot.press("enter")
            await pilot.pause()
        assert not conversation.query(EarlierMessages)
        assert prompts(app) == [f"prompt {n}" for n in range(TURNS)]
        tools = [b.call_id for b in conversation.query(ToolCallBlock)]
        assert tools == [f"t{n}_{k}" for n in range(TURNS) for k in range(2)]
        # and the prompt still sends: the model gets the whole history
        app.main.prompt.focus()
        await pilot.press("enter")
        await events.wait_for(ev.TurnFinished)
        await rendered(app, pilot)
        assert prompts(app)[-1] == "go on"
    sent = model.requests[-1].messages
    assert sent[: len(history)] == history


async def test_a_short_session_has_no_earlier_line(workspace: Path) -> None:
    save_session(workspace, long_history(2))
    app, _ = resumed_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await rendered(app, pilot)
        assert prompts(app) == ["prompt 0", "prompt 1"]
        assert not app.main.conversation.query(EarlierMessages)


@pytest.mark.slow
async def test_a_click_on_the_earlier_line_renders_more(workspace: Path) -> None:
    history = [m for n in range(120) for m in (user(f"prompt {n}"), assistant(f"answer {n}"))]
    save_session(workspace, history)
    app, _ = resumed_app(workspace, ScriptedModel([]))
    async with app.run_test(size=(100, 120)) as pilot:  # tall: the line is on screen
        await wait_ready(app, pilot)
        await rendered(app, pilot)
        conversation = app.main.conversation
        line = conversation.query_one(EarlierMessages)
        assert len(line.messages) == 216 == len(history) - REPLAY_MESSAGES
        assert "216 earlier messages" in str(line.render())
        await pilot.click(EarlierMessages)
        await pilot.pause()
        assert len(line.messages) == 216 - EARLIER_MESSAGES
        assert f"{216 - EARLIER_MESSAGES} earlier messages" in str(line.render())
        assert on_screen(app, line)  # the view stays where the user clicked
        for _ in range(10):
            if not conversation.query(EarlierMessages):
                break
            await pilot.click(EarlierMessages)
            await pilot.pause()
        assert not conversation.query(EarlierMessages)
        assert prompts(app) == [f"prompt {n}" for n in range(120)]
