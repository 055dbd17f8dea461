"""Small things a Claude Code user expects (issue 25): /theme by short names, eddy's
commands in the command palette."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, wait_ready
from tui.widgets.conversation.message_line import MessageLine


def lines(app, kind: str | None = None) -> list[str]:
    return [m.text for m in app.query(MessageLine) if kind is None or m.kind == kind]


async def test_theme_takes_the_short_names_and_lists_eddys_first(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert app.run_command("/theme light")
        assert app.theme == "eddy-light"
        assert "Theme set to light." in lines(app)
        app.run_command("/theme")
        assert any(t.startswith("Theme: light. eddy's themes: dark, light") for t in lines(app))
        app.run_command("/theme nord")  # Textual's own still work by their names
        assert app.theme == "nord"
        app.run_command("/theme nope")
        assert any("eddy's: dark, light" in t for t in lines(app, "error"))


async def test_the_command_palette_lists_and_runs_eddys_commands(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles[:3] == ["/help", "/clear", "/compact"]
        assert "/cost" in titles and "Quit" in " ".join(titles)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"/cost")
        for _ in range(50):  # the palette searches in a worker
            await pilot.pause()
            if app.screen.query("CommandList Option, CommandList"):
                break
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main
        assert any(t.startswith("Total cost:") for t in lines(app))


async def test_a_palette_command_that_needs_an_argument_is_typed_for_it(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        (rename,) = [c for c in app.get_system_commands(app.screen) if c.title == "/rename"]
        rename.callback()
        await pilot.pause()
        assert app.main.prompt.text == "/rename "
