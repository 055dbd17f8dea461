"""The TUI shows the API's web searches of a response (issue 22), live and on replay."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agent import events as ev
from tests.agent.test_web_search import CALL, CITED, FOUND
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.message_line import MessageLine


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


async def test_a_search_shows_its_query_and_first_results() -> None:
    app = Harness()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        for event in [
            ev.TurnStarted(1, "search"),
            ev.TextDelta(1, "Use Markdown.get_stream."),
            ev.AssistantMessage(1, {"role": "assistant", "content": [CALL, FOUND, CITED]}, None),
            ev.TurnFinished(1, "success", 0, 1, 0.0, 0.0, 5),
        ]:
            conversation.apply(event)
        await pilot.pause()
        (line,) = [m for m in app.query(MessageLine) if "Web search" in m.text]
    assert line.text.startswith('⌕ Web search "textual markdown stream": 7 results')
    assert "  Markdown 0 - Textual (textual.textualize.io)" in line.text
    assert "… 2 more" in line.text
