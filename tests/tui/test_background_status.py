"""The TUI's status line says what runs in the background (``BackgroundChanged``; the
counting itself: tests/frontend/test_background_count.py)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev


async def test_the_tuis_status_line_shows_it(workspace: Path) -> None:
    from tests.fakes.scripted import ScriptedModel
    from tests.helpers.tui import SIZE, make_app, settle, wait_ready

    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        app.main.router.handle(ev.BackgroundChanged(1, 0, 2))
        await settle(app, pilot)
        assert "2 agents in background" in str(app.main.status.render())
