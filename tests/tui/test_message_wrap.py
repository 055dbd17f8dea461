"""A long message line wraps under its own text, not at the margin (issue 37: ``/agents``
wrapped its agents' descriptions to column 1)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import make_app, type_and_send, wait_ready
from tui.widgets.conversation.message_line import MessageLine


def shown(line: MessageLine) -> list[str]:
    return [line.render_line(y).text.rstrip() for y in range(line.size.height)]


async def test_agents_descriptions_wrap_under_the_description_column(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=(80, 40)) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/agents")
        while not any("Agents (" in line.text for line in app.query(MessageLine)):
            await pilot.pause()
        await pilot.pause()
        (listing,) = [line for line in app.query(MessageLine) if "Agents (" in line.text]
        lines = shown(listing)
    column = lines[1].index("General-purpose agent")  # the description column
    assert len(lines) > len(listing.text.splitlines())  # some descriptions did wrap
    for line in lines[1:]:  # an agent's name at column 2, or text under the descriptions
        assert line.startswith("  ") and (line[2] != " " or not line[:column].strip()), line
    description = "General-purpose agent for researching complex questions, searching for code"
    assert description in " ".join(line.strip() for line in lines[1:3])


class Lines(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MessageLine("word " * 30, "notice")
            yield MessageLine("short", "notice")


async def test_a_long_notice_wraps_under_its_text_and_takes_the_height_it_needs() -> None:
    app = Lines()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        notice, short = app.query(MessageLine)
        lines = shown(notice)
        assert lines[0].startswith("• word") and len(lines) == notice.size.height >= 4
        assert all(line.startswith("  word") for line in lines[1:])
        assert short.region.y == notice.region.bottom  # nothing of it hidden by the next
