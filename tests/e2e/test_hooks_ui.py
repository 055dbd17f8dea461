"""A prompt a UserPromptSubmit hook blocks is not lost: the TUI and line mode show the reason
and put the prompt back in the input, to edit and send again; nothing reaches the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic
from tests.fakes.scripted import ScriptedModel
from tests.helpers.plain import ENTER, until
from tests.helpers.plain_fixtures import harness, pipe  # noqa: F401 (fixtures)
from tests.helpers.tui import make_app, type_and_send, wait_ready
from tui.widgets.conversation.message_line import MessageLine

GUARD = '#!/bin/bash\ngrep -q password && { echo "no secrets in prompts" >&2; exit 2; }\nexit 0\n'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".eddy").mkdir(parents=True)
    guard = ws / "guard.sh"
    guard.write_text(GUARD)
    guard.chmod(0o755)
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(guard)}]}]}
    (ws / ".eddy" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return ws


async def test_the_tui_gives_a_blocked_prompt_back(workspace: Path) -> None:
    model = ScriptedModel(["never"])
    app, events = make_app(workspace, model)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "my password is hunter2")
        await events.wait_for(ev.TurnFinished)
        await pilot.pause()
        assert app.main.prompt.text == "my password is hunter2"
        said = [line.text for line in app.query(MessageLine)]
        assert any("no secrets in prompts" in t for t in said)
        assert model.calls == 0


async def test_line_mode_gives_a_blocked_prompt_back(
    harness,  # noqa: F811 (the fixture)
    fake_api: FakeAnthropic,
) -> None:
    h = harness()
    await h.start()
    h.type("my password is hunter2" + ENTER)
    await h.printed("Prompt blocked by a UserPromptSubmit hook: no secrets in prompts")
    await h.idle()
    await until(lambda: h.app.input.buffer.text == "my password is hunter2", what="the prompt")
    assert fake_api.requests == []
    h.type("\x15/exit" + ENTER)  # Ctrl+U clears the line first
    assert await h.exit("") == 0
