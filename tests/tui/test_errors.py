"""Failures read as short lines, never tracebacks; a display bug does not end the session."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.messages import assistant
from agent.model.protocol import ModelError
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tui.widgets.conversation.message_line import MessageLine


def screen_text(app) -> str:
    return "\n".join(str(w.render()) for w in app.main.conversation.query("Static"))


async def test_a_tool_error_renders_without_a_traceback(workspace: Path) -> None:
    def crash(args, ctx):
        raise RuntimeError("disk on fire")

    model = ScriptedModel([assistant(tool_call("c1", "Probe", path="x")), "sorry"])
    app, events = make_app(workspace, model, [FnTool("Probe", crash, read_only=True)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "probe")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        block = app.main.conversation.tool_blocks["c1"]
        assert block.state == "failed" and block.is_error
        body = str(block.query_one(".tool-body").render())
        assert "disk on fire" in body
        assert "Traceback" not in screen_text(app)


async def test_an_api_error_is_a_readable_line(workspace: Path) -> None:
    error = ModelError("rate_limit", "You hit a rate limit; wait a moment and send a message.")
    app, events = make_app(workspace, ScriptedModel([error]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        errors = [line.text for line in app.query(MessageLine) if line.kind == "error"]
        assert errors == ["You hit a rate limit; wait a moment and send a message."]
        assert "Traceback" not in screen_text(app)
        assert app.main.status.working_since is None


async def test_a_rendering_bug_becomes_an_error_line(workspace: Path, monkeypatch) -> None:
    from tui.widgets.conversation.conversation import Conversation

    def broken(self, event):
        raise ValueError("bad widget")

    monkeypatch.setattr(Conversation, "_on_tool_call_started", broken)
    model = ScriptedModel([assistant(tool_call("c1", "Probe")), "after"])
    app, events = make_app(workspace, model, [FnTool("Probe", lambda a, c: "x", read_only=True)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "go")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "success"  # the session went on
        errors = [line.text for line in app.query(MessageLine) if line.kind == "error"]
        assert any("tool_call_started" in e and "bad widget" in e for e in errors)
        assert app.is_running
