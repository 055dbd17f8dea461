"""The TUI over the real anthropic SDK and real tools, against the fake Messages API server
(real HTTP, real SSE): streaming, a correction typed while a real Bash command runs, Esc
mid-stream; the server validates every request it receives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.tui import SIZE, Events, make_args, settle, type_and_send, wait_ready
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.tool_call import ToolCallBlock
from tui.widgets.conversation.user_prompt import UserPrompt


@pytest.fixture
def real_app(
    workspace: Path, fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, Events]:
    """An EddyApp as `eddy` builds it: the SDK model from the environment, the real tools."""
    from tui.app import EddyApp

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    events = Events()
    args = make_args(workspace, "--permission-mode", "bypassPermissions")
    return EddyApp(args, frozen_clock=True, event_hook=events), events


def messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return request["messages"]


async def test_correction_during_a_real_shell_command_reaches_the_next_request(
    workspace: Path, fake_api: FakeAnthropic, real_app: tuple[Any, Events]
) -> None:
    wait = "while [ ! -f go ]; do sleep 0.02; done; echo ready"
    fake_api.push(
        Reply(
            [text("Let me **check** first."), tool_use("t1", "Bash", {"command": wait})],
            stop_reason="tool_use",
        ),
        Reply([text("Switched to `pytest -x`.")]),
    )
    app, events = real_app
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "fix the failing test")
        await events.wait_for(ev.ToolCallRunning)
        await type_and_send(pilot, "use pytest -x")
        await events.wait_for(ev.QueueChanged)
        assert app.main.status.queued == 1
        (workspace / "go").write_text("")  # the command can finish now
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "success"
        (block,) = app.query(ToolCallBlock)
        assert block.state == "done"
        answers = [a.text for a in app.query(AssistantText)]
        assert answers == ["Let me **check** first.", "Switched to `pytest -x`."]
        # the correction is shown where the model read it: after the tool, before the answer
        prompts = [p.text for p in app.query(UserPrompt)]
        assert prompts == ["fix the failing test", "use pytest -x"]
    assert fake_api.violations == [] and len(fake_api.requests) == 2
    last = messages(fake_api.requests[1])[-1]
    assert last["role"] == "user"
    kinds = [b["type"] for b in last["content"]]
    assert kinds == ["tool_result", "text"]
    assert "ready" in str(last["content"][0]["content"])
    assert "use pytest -x" in last["content"][1]["text"]


async def test_esc_mid_stream_over_the_sdk_leaves_a_history_the_server_accepts(
    workspace: Path, fake_api: FakeAnthropic, real_app: tuple[Any, Events]
) -> None:
    long = "The first answer keeps going and going. " * 200
    fake_api.push(Reply([text(long)], delay=0.01), Reply([text("Second answer.")]))
    app, events = real_app
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "first")
        await events.wait_until(lambda: len(events.of(ev.TextDelta)) >= 5)
        await pilot.press("escape")
        finished = await events.wait_for(ev.TurnFinished)
        assert finished.subtype == "interrupted"
        await settle(app, pilot)
        (partial,) = app.query(AssistantText)
        assert partial.interrupted and partial.text.startswith("The first answer")
        assert len(partial.text) < len(long)
        assert app.focused is app.main.prompt
        await type_and_send(pilot, "second")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert [a.text for a in app.query(AssistantText)][-1] == "Second answer."
    assert fake_api.violations == [] and len(fake_api.requests) == 2
    last = messages(fake_api.requests[1])[-1]
    assert last["role"] == "user"
    assert "second" in str(last["content"])
