"""A model call's answer block is mounted ahead of its text (tui/widgets/conversation/
conversation.py): empty, it takes no line; the text fills it without a mount in the middle of
the stream; blocks added meanwhile go above it; unused, it is removed."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from agent import events as ev
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.thinking import Thinking
from tui.widgets.conversation.tool_call import ToolCallBlock


class Harness(App[None]):
    CSS = "AssistantText { margin: 1 0 0 0; }"  # as app.tcss: a blank line above an answer

    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


async def settle(pilot: Any) -> None:
    for _ in range(3):
        await pilot.pause()


def kinds(conversation: Conversation) -> list[str]:
    return [type(child).__name__ for child in conversation.children]


async def started(pilot: Any) -> tuple[Conversation, AssistantText]:
    """A conversation longer than the screen, and a model call just started."""
    conversation = pilot.app.query_one(Conversation)
    for i in range(30):
        conversation.add_line(f"before {i}", "notice")
    await settle(pilot)
    height = conversation.virtual_size.height
    conversation.apply(ev.ModelCallStarted(1, 0, 0))
    await settle(pilot)
    (ahead,) = conversation.query(AssistantText)
    assert conversation.virtual_size.height == height  # it takes no line: no margin either
    return conversation, ahead


async def test_the_answer_is_mounted_ahead_and_takes_no_line_until_written() -> None:
    app = Harness()
    async with app.run_test(size=(60, 20)) as pilot:
        conversation, ahead = await started(pilot)
        assert kinds(conversation)[-2:] == ["MessageLine", "AssistantText"]
        assert ahead.outer_size.height == 0
        height = conversation.virtual_size.height
        mounted: list[Any] = []
        conversation.mount = lambda *a, **k: mounted.append(a)  # type: ignore[method-assign]
        conversation.apply(ev.TextDelta(1, "The answer."))
        assert conversation.text_block is ahead and not mounted  # filled, nothing mounted
        del conversation.mount
        conversation.apply(ev.AssistantMessage(1, {"role": "assistant", "content": []}, None))
        await settle(pilot)
        assert ahead.finished and ahead.text == "The answer."
        assert ahead.styles.margin.top == 1  # the stylesheet's margin, once written
        assert conversation.virtual_size.height == height + 2  # a blank line, the text


async def test_blocks_added_meanwhile_go_above_it() -> None:
    app = Harness()
    async with app.run_test(size=(60, 20)) as pilot:
        conversation, ahead = await started(pilot)
        conversation.apply(ev.Notice(1, "retrying in 2 s"))
        conversation.apply(ev.ThinkingDelta(1, "Let me think."))
        conversation.apply(ev.TextDelta(1, "The answer."))
        await settle(pilot)
        shown = ["MessageLine", "MessageLine", "Thinking", "AssistantText"]
        assert kinds(conversation)[-4:] == shown
        assert conversation.query_one(Thinking).done  # the text ended the thinking
        assert conversation.text_block is ahead


async def test_an_unused_answer_block_is_removed() -> None:
    """A call that only asks for a tool, or a turn that ends without text: no empty answer
    is left behind; the next call mounts one again."""
    app = Harness()
    async with app.run_test(size=(60, 20)) as pilot:
        conversation, _ = await started(pilot)
        conversation.apply(ev.ToolCallStarted(1, "c1", "Bash", {"command": "ls"}, "ls"))
        await settle(pilot)
        assert kinds(conversation)[-2:] == ["MessageLine", "ToolCallBlock"]
        assert conversation.query_one(ToolCallBlock).call_id == "c1"
        conversation.apply(ev.ModelCallStarted(1, 1, 0))
        conversation.apply(ev.Interrupted(1))
        await settle(pilot)
        assert not conversation.query(AssistantText)
        assert isinstance(conversation.children[-1], MessageLine)  # "Interrupted · ..."


async def test_making_an_answer_block_applies_no_styles_before_its_mount() -> None:
    """Its classes are given when it is made: a class added afterwards applied the stylesheet
    to it at once, and again at its mount (0.4 ms before the request left)."""
    app = Harness()
    async with app.run_test(size=(60, 20)):
        applied: list[Any] = []
        apply = app.stylesheet.apply

        def applying(node: Any, *args: Any, **kwargs: Any) -> Any:
            applied.append(node)
            return apply(node, *args, **kwargs)

        app.stylesheet.apply = applying  # type: ignore[method-assign]
        answer = AssistantText(ahead=True)
        assert not applied
        assert answer.has_class("answer") and answer.has_class("frozen-markdown")
