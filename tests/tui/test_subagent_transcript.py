"""The whole transcript of a subagent, from the block under its Agent call: Enter on the
focused block (or a double-click on the agent's line) opens a read-only screen of the child's
saved transcript, re-read while the child runs; Esc or q closes it. The real app and loop, a
scripted model answering each agent (every request checked against the pairing invariant)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from agent.messages import assistant
from tests.fakes.scripted import tool_call
from tests.helpers.events import Events
from tests.helpers.subagent_events import one_child_events
from tests.helpers.subagents import TreeModel
from tests.helpers.tui import SIZE, make_args, settle, type_and_send, wait_ready
from tests.helpers.wait import until
from tui.screens.subagent_transcript import SubagentTranscriptScreen
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.subagent_block import SubagentBlock
from tui.widgets.conversation.tool_call import ToolCallBlock

CALL = tool_call("p1", "Agent", description="callers", prompt="find the callers",
                 subagent_type="Explore")  # fmt: skip


def tree_model(hold: asyncio.Event | None = None) -> TreeModel:
    """main -> Agent(Explore) -> child Read a.py -> "x is in a.py" (held before its answer)."""
    answers = {"find the callers": [assistant("Looking.", tool_call("c1", "Read",
                                                                    file_path="a.py")),
                                    "x is in a.py"]}  # fmt: skip
    calls = 0

    async def hold_second() -> None:
        nonlocal calls
        calls += 1
        if hold is not None and calls == 2:  # the child's answer waits for the test
            await hold.wait()

    return TreeModel(
        {"go": [assistant(CALL), "found it"], **answers},
        cost=0.01,
        hold={"find the callers": hold_second},
    )


def saved_app(workspace: Path, model: TreeModel, *extra: str) -> Any:
    """The app over ``model`` with its session built as for ``eddy`` (every tool, Agent
    included, and recorded in a transcript, so the children are too)."""
    from tui.app import EddyApp

    args = make_args(workspace, "--permission-mode", "bypassPermissions", *extra)
    return EddyApp(args, model=model, frozen_clock=True, event_hook=Events())


def screen_text(screen: SubagentTranscriptScreen) -> str:
    return "\n".join(screen.lines)


async def test_enter_on_the_block_opens_the_childs_whole_transcript_and_esc_closes_it(
    workspace: Path,
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    model = tree_model()
    app = saved_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        await settle(app, pilot)
        block = app.query_one(SubagentBlock)
        (live,) = block.tracker.agents.values()
        assert live.outcome == "success"
        block.focus()
        await pilot.press("enter")
        screen = await until(lambda: isinstance(app.screen, SubagentTranscriptScreen)
                             and app.screen)  # fmt: skip
        assert screen.ended and not screen.following  # finished: not re-read
        text = screen_text(screen)
        assert text.startswith(f"Explore agent {live.agent_id}")
        for shown in ("› find the callers", "Looking.", "✓ Read  a.py", "x = 1", "x is in a.py"):
            assert shown in text
        assert screen.lines[-1].startswith("— success · 1 turn · $0.0200")
        # the child's call is drawn as the main view draws the parent's (issue 37: two styles)
        (agent_call,) = app.query(ToolCallBlock)
        header = agent_call.query_one(".tool-header", Static).render()
        drawn = screen.query_one("#subagent-transcript-body", Static).render()
        (child_call,) = [line for line in drawn.split("\n") if line.plain == "✓ Read  a.py"]
        assert header.plain.startswith("✓ Agent  ")
        assert [str(span.style) for span in child_call.spans][:2] == [
            str(span.style) for span in header.spans
        ][:2]  # the same mark's style, the name in bold
        assert "x is in a.py" not in str(block.render())  # the inline lines stay folded
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, SubagentTranscriptScreen))
        await pilot.press("enter")  # the block kept the focus: opens again; q closes
        await until(lambda: isinstance(app.screen, SubagentTranscriptScreen))
        await pilot.press("q")
        await until(lambda: not isinstance(app.screen, SubagentTranscriptScreen))
    assert model.by_prompt.keys() == {"go", "find the callers"}  # each request was valid


async def test_a_click_still_toggles_the_lines_and_a_double_click_opens_the_transcript(
    workspace: Path,
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    app = saved_app(workspace, tree_model())
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        await settle(app, pilot)
        block = app.query_one(SubagentBlock)
        await pilot.click(SubagentBlock)
        assert block.expanded and "x is in a.py" in str(block.render())
        await pilot.click(SubagentBlock)
        assert not block.expanded
        await pilot.click(SubagentBlock, times=2)  # on the agent's line (the first row)
        screen = await until(lambda: isinstance(app.screen, SubagentTranscriptScreen)
                             and app.screen)  # fmt: skip
        assert not block.expanded  # the pair's first click was taken back
        assert "✓ Read  a.py" in screen.lines


async def test_the_screen_follows_a_running_child_until_its_end_is_recorded(
    workspace: Path,
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    hold = asyncio.Event()
    app = saved_app(workspace, tree_model(hold))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        block = await until(lambda: app.query(SubagentBlock).first() if app.query(SubagentBlock)
                            else None)  # fmt: skip
        await until(lambda: any(a.activity == "thinking" and a.turns == 1
                                for a in block.tracker.agents.values()))  # fmt: skip
        block.focus()
        await pilot.press("enter")
        screen = await until(lambda: isinstance(app.screen, SubagentTranscriptScreen)
                             and app.screen)  # fmt: skip
        assert not screen.ended and screen.watching  # running: re-read as it goes
        assert "✓ Read  a.py" in screen.lines and "x is in a.py" not in screen.lines
        assert "running" in str(screen._title.render())
        hold.set()  # the child answers and ends
        await until(lambda: screen.ended, what=lambda: screen_text(screen))
        assert "x is in a.py" in screen.lines and not screen.following
        assert screen.lines[-1].startswith("— success")
        await settle(app, pilot)


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


async def test_an_unsaved_session_says_so_instead_of_opening_a_screen(tmp_path: Path) -> None:
    events = await one_child_events(tmp_path)  # a session without a transcript
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.query_one(Conversation)
        for event in events:
            conversation.apply(event)
        await pilot.pause()
        block = app.query_one(SubagentBlock)
        block.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, SubagentTranscriptScreen)
        assert any("not saved" in n.message for n in app._notifications)


async def test_a_click_on_the_block_leaves_the_focus_in_the_prompt(workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    app = saved_app(workspace, tree_model())
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        await settle(app, pilot)
        await pilot.click(SubagentBlock)
        assert app.query_one(SubagentBlock).expanded
        assert app.focused is app.main.prompt  # what the user types next goes there


async def test_slash_agents_lists_the_sessions_subagents_and_opens_one_by_id(
    workspace: Path,
) -> None:
    """The keyboard's way in: /agents lists this session's subagents, /agents ID opens one's
    transcript (a wrong id says which ids there are)."""
    from tui.widgets.conversation.message_line import MessageLine

    (workspace / "a.py").write_text("x = 1\n")
    app = saved_app(workspace, tree_model())
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        await settle(app, pilot)
        (live,) = app.query_one(SubagentBlock).tracker.agents.values()
        app.main.dispatch("/agents")
        await settle(app, pilot)
        said = "\n".join(line.text for line in app.query(MessageLine))
        assert "This session's subagents (1):" in said
        assert (
            f"  Explore {live.agent_id[:6]}: find the callers · 1 turn · $0.0200 · success" in said
        )
        app.main.dispatch("/agents zzz")
        await settle(app, pilot)
        said = "\n".join(line.text for line in app.query(MessageLine))
        wrong = f"No subagent of this session has an id starting 'zzz' (ids: {live.agent_id[:6]})"
        assert wrong in said
        app.main.dispatch(f"/agents {live.agent_id[:4]}")
        screen = await until(lambda: isinstance(app.screen, SubagentTranscriptScreen)
                             and app.screen)  # fmt: skip
        await until(lambda: screen.lines)
        assert "› find the callers" in screen_text(screen) and "x is in a.py" in screen_text(screen)
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, SubagentTranscriptScreen))


async def test_a_line_appended_to_a_running_childs_file_shows_without_a_timer_tick(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The screen is told of the write by the kernel (the follow screen's inotify watch),
    not by a timer: with polling pushed out of reach, the appended end still shows."""
    from agent.store.children import child_transcripts
    from tests.helpers.recorded_children import session_with_child
    from tui.screens import follow

    monkeypatch.setattr(follow, "POLL_SECONDS", 3600.0)  # a poll would never come in time
    (path,) = child_transcripts(await session_with_child(tmp_path))
    *running, end = path.read_text().splitlines(keepends=True)
    assert '"subagent_end"' in end
    path.write_text("".join(running))  # the child as it was before its end was recorded
    app = App[None]()
    async with app.run_test(size=SIZE) as pilot:
        screen = SubagentTranscriptScreen(path, "Explore")
        await app.push_screen(screen)
        await pilot.pause()
        assert not screen.ended and screen.watching
        assert not any(line.startswith("— success") for line in screen.lines)
        screen.updated.clear()
        with path.open("a") as f:
            f.write(end)
        await asyncio.wait_for(screen.updated.wait(), 10)  # the watch's event, no tick
        assert screen.ended and screen.lines[-1].startswith("— success")
        assert not screen.following  # the end is recorded: no more watching
