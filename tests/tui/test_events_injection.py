"""The conversation renders a list of engine events with no engine running."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agent import events as ev
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.thinking import Thinking
from tui.widgets.conversation.tool_call import ToolCallBlock
from tui.widgets.conversation.user_prompt import UserPrompt

DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
TODOS = (
    {"content": "Read", "status": "completed", "activeForm": "Reading"},
    {"content": "Fix", "status": "in_progress", "activeForm": "Fixing"},
)

EVENTS: list[ev.Event] = [
    ev.TurnStarted(1, "fix x"),
    ev.ModelCallStarted(1, 1, 0),
    ev.ThinkingDelta(1, "Let me think about x."),
    ev.TextDelta(1, "I'll fix "),
    ev.TextDelta(1, "**x**."),
    ev.AssistantMessage(1, {"role": "assistant", "content": []}, "tool_use"),
    ev.ToolCallStarted(1, "t1", "Edit", {"file_path": "x.py"}, "x.py"),
    ev.ToolCallStarted(1, "t2", "Bash", {"command": "pytest"}, "pytest"),
    ev.ToolCallStarted(1, "t3", "TodoWrite", {}, "2 tasks"),
    ev.ToolCallRunning(1, "t1"),
    ev.ToolCallFinished(
        1,
        "t1",
        "Edit",
        "done",
        "Updated x.py",
        False,
        {
            "kind": "diff",
            "path": "/w/x.py",
            "diff": DIFF,
            "added": 1,
            "removed": 1,
            "created": False,
        },
    ),
    ev.ToolCallRunning(1, "t2"),
    ev.ToolOutputDelta(1, "t2", "collected 3 items\n"),
    ev.ToolCallFinished(1, "t2", "Bash", "failed", "1 failed", True),
    ev.ToolCallFinished(
        1, "t3", "TodoWrite", "done", "ok", False, {"kind": "todos", "todos": list(TODOS)}
    ),
    ev.CorrectionsDelivered(1, ("also update the docs",)),
    ev.Notice(1, "The response was cut off at max_tokens."),
    ev.Error(1, "The API is overloaded; wait a moment and send a message to retry.", "overloaded"),
    ev.TurnFinished(1, "error_during_execution", 1, 2, 0.1, 0.1, 1000),
]


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


async def test_events_render_without_an_engine() -> None:
    app = Harness()
    async with app.run_test(size=(100, 40)) as pilot:
        conversation = app.query_one(Conversation)
        for event in EVENTS:
            conversation.apply(event)
        await pilot.pause()
        for _ in range(50):
            if all(b.finished for b in app.query(AssistantText)):
                break
            await pilot.pause()
        kinds = [type(c).__name__ for c in conversation.children]
        assert kinds == [
            "UserPrompt",
            "Thinking",
            "AssistantText",
            "ToolCallBlock",
            "ToolCallBlock",
            "ToolCallBlock",
            "UserPrompt",
            "MessageLine",
            "MessageLine",
        ]
        assert app.query_one(Thinking).done
        assert app.query_one(AssistantText).text == "I'll fix **x**."
        edit, bash, todo = app.query(ToolCallBlock)
        assert edit.state == "done" and "+a = 2" in str(edit.query_one(".tool-body").render())
        assert bash.state == "failed" and bash.output == "collected 3 items\n"
        assert "1 failed" in str(bash.query_one(".tool-body").render())
        todo_text = str(todo.query_one(".tool-body").render())
        assert "☒ Read" in todo_text and "◼ Fixing" in todo_text
        correction = list(app.query(UserPrompt))[-1]
        assert correction.has_class("correction") and correction.text == "also update the docs"
        lines = [(m.kind, m.text) for m in app.query(MessageLine)]
        assert lines[0][0] == "notice" and lines[1][0] == "error"


async def test_interrupted_events_mark_the_partial_answer() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        conversation = app.query_one(Conversation)
        for event in [
            ev.TurnStarted(1, "go"),
            ev.TextDelta(1, "half an ans"),
            ev.Interrupted(1),
            ev.TurnFinished(1, "interrupted", 0, 1, 0.0, 0.0, 5),
        ]:
            conversation.apply(event)
        await pilot.pause()
        assert app.query_one(AssistantText).interrupted
        assert [m.kind for m in app.query(MessageLine)] == ["interrupted"]


async def test_the_dom_stays_bounded_in_long_sessions() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        conversation = app.query_one(Conversation)
        conversation.max_blocks = 30
        for turn in range(1, 41):
            conversation.apply(ev.TurnStarted(turn, f"prompt {turn}"))
            conversation.apply(ev.ToolCallStarted(turn, f"t{turn}", "Read", {}, "a.py"))
            conversation.apply(ev.ToolCallFinished(turn, f"t{turn}", "Read", "done", "x", False))
        await pilot.pause()
        assert len(conversation.children) <= 31
        assert len(conversation.tool_blocks) <= 30
        first = conversation.children[0]
        assert isinstance(first, MessageLine) and "earlier blocks" in first.text
        assert [p.text for p in app.query(UserPrompt)][-1] == "prompt 40"


async def test_a_background_report_is_a_line_and_the_turn_it_starts_echoes_no_prompt() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        conversation = app.query_one(Conversation)
        summary = 'Background command "npm test" failed with exit code 1'
        for event in [
            ev.TurnStarted(1, "run the tests in the background"),
            ev.TurnFinished(1, "success", 1, 1, 0.0, 0.0, 5),
            ev.BackgroundReported(1, "bash_1", "shell", "failed", summary, "/tmp/x.txt"),
            ev.TurnStarted(2, summary, origin="background"),
            ev.TextDelta(2, "The tests failed."),
        ]:
            conversation.apply(event)
        await pilot.pause()
        assert [p.text for p in app.query(UserPrompt)] == ["run the tests in the background"]
        assert [(m.kind, m.text) for m in app.query(MessageLine)] == [("error", f"● {summary}")]
