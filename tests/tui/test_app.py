"""The app around the conversation: no key, the demo, themes, slash commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, Events, make_app, make_args, settle, type_and_send, wait_ready
from tui.app import EddyApp
from tui.settings import settings_path
from tui.widgets.conversation.message_line import MessageLine


def lines(app, kind: str) -> list[str]:
    return [line.text for line in app.query(MessageLine) if line.kind == kind]


async def test_without_a_key_the_app_opens_and_explains(workspace: Path) -> None:
    app = EddyApp(make_args(workspace), frozen_clock=True)
    async with app.run_test(size=SIZE) as pilot:

        def key_messages() -> list[str]:
            return [text for text in lines(app, "error") if "ANTHROPIC_API_KEY" in text]

        for _ in range(20):
            if key_messages():
                break
            await pilot.pause()
        (message,) = key_messages()
        assert "ANTHROPIC_BASE_URL" in message and "eddy --demo" in message
        await type_and_send(pilot, "hello?")
        await pilot.pause()
        assert len(key_messages()) == 2  # said again, nothing sent
        assert app.session is not None and not app.session.busy


async def test_the_demo_runs_a_scripted_session_in_a_scratch_copy(workspace: Path) -> None:
    from frontend.demo import DemoModel

    events = Events()
    model = DemoModel(delay=0, latency=0)
    app = EddyApp(make_args(workspace, "--demo"), model=model, event_hook=events)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        scratch = Path(app.args.cwd)
        assert scratch != workspace and (scratch / "stats.py").exists()
        assert app.main.status.label == "scripted demo"
        assert any("SCRIPTED DEMO" in text for text in lines(app, "banner"))
        await type_and_send(pilot, "fix the failing test")
        answered: set[str] = set()
        while not events.of(ev.TurnFinished):
            await events.wait_until(
                lambda: (
                    events.of(ev.TurnFinished)
                    or {e.request_id for e in events.of(ev.PermissionRequested)} - answered
                )
            )
            for request in events.of(ev.PermissionRequested):
                if request.request_id not in answered:
                    answered.add(request.request_id)
                    await pilot.pause()
                    await pilot.press("1")
        await settle(app, pilot)
        assert events.of(ev.TurnFinished)[0].subtype == "success"
        assert "Edit" in {e.name for e in events.of(ev.PermissionRequested)}
    assert "/ len(values)\n" in (scratch / "stats.py").read_text()
    assert (workspace / "stats.py").exists() is False


async def test_theme_command_switches_and_persists(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert app.theme == "eddy-dark"
        await type_and_send(pilot, "/theme eddy-light")
        await pilot.pause()
        assert app.theme == "eddy-light"
        await type_and_send(pilot, "/theme nope")
        await pilot.pause()
        assert any("No theme 'nope'" in text for text in lines(app, "error"))
    assert json.loads(settings_path().read_text())["theme"] == "eddy-light"
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert app.theme == "eddy-light"


async def test_no_color_uses_the_monochrome_theme(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text('{"theme": "eddy-light"}')
    monkeypatch.setenv("NO_COLOR", "1")
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert app.no_color and app.theme == "eddy-high-contrast"
    assert json.loads(settings_path().read_text())["theme"] == "eddy-light"


async def test_help_and_exit_commands(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/help")
        await pilot.pause()
        assert any("Esc stops" in text for text in lines(app, "hint"))
        assert not events.of(ev.TurnStarted)  # commands never reach the model
        await type_and_send(pilot, "/exit")
        await pilot.pause()
    assert app.return_code == 0


def probe_app(workspace: Path) -> tuple[Any, Any]:
    """An app whose model calls a tool printing 30 rows, then answers."""
    from agent.messages import assistant
    from tests.fakes.scripted import tool_call
    from tests.fakes.tools import FnTool

    output = "\n".join(f"row {i}" for i in range(30))
    tool = FnTool("Probe", lambda a, c: output, read_only=True)
    return make_app(workspace, ScriptedModel([assistant(tool_call("p", "Probe")), "ok"]), [tool])


async def probed(app: Any, events: Any, pilot: Any) -> tuple[Any, Any]:
    """Run the probe turn; its tool block and the block's body."""
    await wait_ready(app, pilot)
    await type_and_send(pilot, "probe")
    await events.wait_for(ev.TurnFinished)
    await settle(app, pilot)
    block = app.main.conversation.tool_blocks["p"]
    return block, block.query_one(".tool-body")


async def test_ctrl_o_expands_tool_output(workspace: Path) -> None:
    app, events = probe_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        block, body = await probed(app, events, pilot)
        assert "row 29" not in str(body.render()) and "+26 lines" in str(body.render())
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "row 29" in str(body.render())


async def test_clicking_a_tool_block_expands_and_collapses_it(workspace: Path) -> None:
    app, events = probe_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        block, body = await probed(app, events, pilot)
        assert "row 29" not in str(body.render())
        await pilot.click(block, offset=(2, 0))
        await pilot.pause()
        assert block.expanded and "row 29" in str(body.render())
        app.main.conversation.scroll_to_widget(block, top=True, animate=False)
        await pilot.pause()
        await pilot.click(block, offset=(2, 0))
        await pilot.pause()
        assert not block.expanded and "row 29" not in str(body.render())
        assert app.focused is app.main.prompt  # a click does not take the prompt's focus


def _cells(strips: list[Strip]) -> list[list[tuple[str, str]]]:
    return [[(ch, str(seg.style)) for seg in strip for ch in seg.text] for strip in strips]


@pytest.mark.parametrize("no_color", [False, True])
async def test_the_conversations_own_lines_are_drawn_as_textual_draws_them(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    """The conversation draws its own blank lines itself (one strip, the app's line filters
    applied): cell by cell what Textual's styles cache draws, and under NO_COLOR no colour."""
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        conversation = app.main.conversation
        crop = Region(0, 0, *conversation.size)
        ours = conversation.render_lines(crop)
        assert len(ours) == conversation.size.height > 0
        assert _cells(ours) == _cells(Widget.render_lines(conversation, crop))
        colours = {c for line in ours for s in line if s.style for c in (s.style.bgcolor,)}
        assert all(c is not None and c.is_default for c in colours) == no_color, colours
