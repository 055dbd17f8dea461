"""The resume picker lists a session's subagents under it; choosing one shows its transcript
read-only above the picker (a child is not resumable), choosing the session resumes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.store.listing import list_sessions, sessions_dir
from tests.helpers.recorded_children import session_with_child
from tests.helpers.wait import until
from tests.tui.test_resume_screen import NONE, Host
from tui.screens.resume import ResumeScreen
from tui.screens.subagent_transcript import SubagentTranscriptScreen

SIZE = (110, 30)


async def picker_with_a_child(tmp_path: Path) -> tuple[Any, str]:
    """A Host over the picker of a real session with one Explore child; its session id."""
    ws = tmp_path / "ws"
    await session_with_child(tmp_path, directory=sessions_dir(ws))
    (info,) = list_sessions(ws)
    assert info.subagents == 1
    return Host(ResumeScreen([info])), info.session_id


async def test_a_sessions_children_are_listed_under_it(tmp_path: Path) -> None:
    app, session_id = await picker_with_a_child(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        options = app.modal._options
        assert options.option_count == 2
        assert options.get_option_at_index(0).id == session_id
        child = str(options.get_option_at_index(1).prompt)
        assert child.startswith("    ↳ Explore ")
        assert child.endswith(": find the callers · 1 turn · $0.0200 · success")
        keys = str(app.modal.query_one("#resume-keys").render())
        assert "on a subagent: its transcript" in keys


async def test_choosing_a_child_shows_its_transcript_and_the_picker_stays(
    tmp_path: Path,
) -> None:
    app, session_id = await picker_with_a_child(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        screen = await until(lambda: isinstance(app.screen, SubagentTranscriptScreen)
                             and app.screen)  # fmt: skip
        assert "✓ Read  a.py" in screen.lines and "x is in a.py" in screen.lines
        assert app.result is NONE  # nothing resumed
        await pilot.press("escape")
        await until(lambda: app.screen is app.modal)  # back in the picker
        assert app.result is NONE
        await pilot.press("up", "enter")
        await pilot.pause()
    assert app.result == session_id  # the session itself resumes as before
