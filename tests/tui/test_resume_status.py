"""The status line right after a resume: context use and session cost before any new call;
the budget cap counts the same total the status line shows (issue 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.messages import assistant, user
from agent.model.anthropic import AnthropicModel
from agent.model.pricing import Usage, context_window
from agent.model.protocol import ModelResponse
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.transcript import Transcript
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.tui import SIZE, Events, make_args, settle, type_and_send, wait_ready
from tui.app import EddyApp
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.prompt.status_line import human_tokens

MODEL = "claude-sonnet-5-5"


def real_app(workspace: Path, model: Any, *extra: str) -> tuple[EddyApp, Events]:
    """The app as ``eddy`` builds it (saved sessions, default tools) over ``model``."""
    events = Events()
    app = EddyApp(make_args(workspace, *extra), model=model, frozen_clock=True, event_hook=events)
    return app, events


def status_text(app: EddyApp) -> str:
    return str(app.main.status.render())


def ctx_part(tokens: int) -> str:
    window = context_window(MODEL)
    return f"ctx {human_tokens(tokens)}/{human_tokens(window)} ({100 * tokens / window:.0f}%)"


async def recorded_session(fake: FakeAnthropic, workspace: Path) -> tuple[str, int]:
    """A saved session recorded over the real SDK and the fake server: its id and the last
    call's context (prompt + output, from the server's own usage figures)."""
    fake.push(
        Reply([text("Looking."), tool_use("toolu_1", "Look", {"q": "a"})], "tool_use"),
        Reply([text("Found it.")]),
    )
    tool = FnTool("Look", lambda a, c: "data " * 300, read_only=True)
    model = AnthropicModel(MODEL, api_key="t", base_url=fake.base_url)
    config = SessionConfig(workspace=workspace, model=MODEL, system="Be brief. " * 400)
    session = Session(config, model, [tool], lambda e: None)
    transcript = Transcript.create(workspace, model=MODEL)
    session.attach_transcript(transcript)
    session.submit(ops.SubmitPrompt("look around"))
    await session.wait_idle()
    await session.close()
    transcript.close()
    u = fake.usage_log[-1]
    tokens = sum(
        u[k]
        for k in (
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        )
    )
    assert tokens == session.context_tokens > 1000
    return transcript.session_id, tokens


async def test_status_shows_context_right_after_resume(
    fake_api: FakeAnthropic, workspace: Path
) -> None:
    session_id, tokens = await recorded_session(fake_api, workspace)
    model = ScriptedModel([])
    app, _ = real_app(workspace, model, "--resume", session_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await pilot.pause()
        assert app.session.config.session_id == session_id
        assert app.main.status.context_tokens == tokens
        assert ctx_part(tokens) in status_text(app)
        assert model.calls == 0  # no call was needed to know it


async def test_status_shows_context_after_slash_resume(
    fake_api: FakeAnthropic, workspace: Path
) -> None:
    session_id, tokens = await recorded_session(fake_api, workspace)
    app, _ = real_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert "ctx " not in status_text(app)  # a new session: nothing known yet
        await type_and_send(pilot, f"/resume {session_id}")
        for _ in range(200):
            session = app.session
            if session is not None and session.config.session_id == session_id:
                break
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session.config.session_id == session_id
        assert ctx_part(tokens) in status_text(app)


def spent_session(workspace: Path, spent: float) -> str:
    with Transcript.create(workspace, model=MODEL) as t:
        t.record_history([user("start")], prompt="start")
        t.usage(Usage(1000, 100).to_dict(), spent)
        t.record_history([user("start"), assistant("Started.")])
        return t.session_id


async def test_budget_counts_the_total_the_status_line_shows(workspace: Path) -> None:
    n = 0

    def script(history: Any) -> ModelResponse:
        nonlocal n
        n += 1
        if n > 5:
            return ModelResponse(assistant("done"), "end_turn", Usage(10, 1), 0.15)
        return ModelResponse(assistant(tool_call(f"c{n}", "Look")), "tool_use", Usage(10, 1), 0.15)

    model = ScriptedModel(script)
    app, events = real_app(workspace, model, "--resume", spent_session(workspace, 0.80))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/budget 1.00")
        await pilot.pause()
        assert "$0.8000 of $1.00 budget" in status_text(app)
        await type_and_send(pilot, "probe")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "error_max_budget_usd"
        assert model.calls == 2  # stopped once the total passed $1.00, not at $1.80
        assert "$1.1000 of $1.00 budget" in status_text(app)
        notices = [line.text for line in app.query(MessageLine) if line.kind == "notice"]
        assert "Stopped: this session has spent $1.1000 of its $1.0000 budget." in notices
        await type_and_send(pilot, "/budget")
        await pilot.pause()
        said = [line.text for line in app.query(MessageLine)][-1]
        assert said.startswith("Budget: $1.1000 spent of $1.00 (this session).")
        await type_and_send(pilot, "/budget 2")
        await pilot.pause()
        await type_and_send(pilot, "go on")
        second = await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert second.subtype == "success"
        assert "$1.7000 of $2.00 budget" in status_text(app)


async def test_compaction_notice_has_its_own_style(workspace: Path) -> None:
    app, _ = real_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        conversation = app.main.conversation
        conversation.add_line("a hint", "hint")
        conversation.add_line("a notice", "notice")
        conversation.apply(ev.Compacted(0, "summary", 12, 4, automatic=True))
        await pilot.pause()
        lines = {line.text: line for line in app.query(MessageLine)}
        compaction = lines["Conversation compacted automatically: 12 messages summarised, 4 kept."]
        assert compaction.has_class("compaction")
        hint, notice = lines["a hint"], lines["a notice"]
        assert compaction.styles.color != hint.styles.color
        assert compaction.styles.color != notice.styles.color
        assert compaction.styles.border_left != hint.styles.border_left
        assert compaction.styles.text_style.bold and not hint.styles.text_style.bold
