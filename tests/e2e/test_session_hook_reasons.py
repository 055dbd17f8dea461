"""SessionStart's source and SessionEnd's reason say how a session began and ended, as Claude
Code's hooks reference lists them: /clear ends the session with ``clear`` and the new one starts
with ``clear`` (not ``startup``); quitting at the prompt (/exit, Ctrl+D) ends it with
``prompt_input_exit``. Both front ends, real hook scripts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic
from tests.fakes.scripted import ScriptedModel
from tests.helpers.plain import ENTER, until
from tests.helpers.plain_fixtures import harness, pipe  # noqa: F401 (fixtures)
from tests.helpers.tui import SIZE, make_app, type_and_send, wait_ready

LOGGER = """import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps([data["hook_event_name"], data.get("source") or data.get("reason")]))
    f.write("\\n")
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project whose SessionStart and SessionEnd hooks log (event, source or reason)."""
    ws = tmp_path / "ws"
    (ws / ".eddy").mkdir(parents=True)
    (ws / "log.py").write_text(LOGGER)
    command = f"{sys.executable} {ws / 'log.py'} {ws / 'hooks.log'}"
    group = [{"hooks": [{"type": "command", "command": command}]}]
    hooks = {"SessionStart": group, "SessionEnd": group}
    (ws / ".eddy" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return ws


def logged(ws: Path) -> list[list[str]]:
    path = ws / "hooks.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_the_tui_says_clear_on_clear_and_prompt_input_exit_on_ctrl_d(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel(["one", "two"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "first")
        await events.wait_for(ev.TurnFinished)
        first = app.session
        await type_and_send(pilot, "/clear")
        for _ in range(500):  # the new session is built in a worker
            if app.main.session is not None and app.session is not first:
                break
            await pilot.pause()
        assert logged(workspace) == [["SessionStart", "startup"], ["SessionEnd", "clear"]]
        await type_and_send(pilot, "second")
        await events.wait_for(ev.TurnFinished, 2)
        assert logged(workspace)[-1] == ["SessionStart", "clear"]
        app.main.prompt.load_text("")
        app.main.prompt.focus()
        await pilot.press("ctrl+d")
    assert logged(workspace)[-1] == ["SessionEnd", "prompt_input_exit"]
    assert len(logged(workspace)) == 4


async def test_line_mode_says_clear_on_clear_and_prompt_input_exit_on_exit(
    harness,  # noqa: F811 (the fixture)
    fake_api: FakeAnthropic,
    workspace: Path,
) -> None:
    h = harness()
    await h.start()
    h.type("first" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("/clear" + ENTER)
    await h.printed("New session: the conversation is empty.")
    await h.idle()
    assert logged(workspace) == [["SessionStart", "startup"], ["SessionEnd", "clear"]]
    h.type("second" + ENTER)
    await h.event(ev.TurnFinished, 2)
    await h.idle()
    assert logged(workspace)[-1] == ["SessionStart", "clear"]
    assert await h.exit("/exit" + ENTER) == 0
    assert logged(workspace)[-1] == ["SessionEnd", "prompt_input_exit"]
    assert len(fake_api.requests) == 2 and fake_api.violations == []


async def test_line_mode_ctrl_d_ends_the_session_with_prompt_input_exit(
    harness,  # noqa: F811 (the fixture)
    workspace: Path,
) -> None:
    h = harness()
    await h.start()
    assert await h.exit("\x04") == 0  # Ctrl+D on an empty prompt
    await until(lambda: logged(workspace), what="the SessionEnd hook")
    assert logged(workspace) == [["SessionEnd", "prompt_input_exit"]]
