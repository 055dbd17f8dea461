"""The conversation: user prompts, streaming answers, thinking, tool calls, notes.

It renders engine events (``apply``), so it can be driven by a real session or by a list of
events in a test. It follows the stream (anchored to the bottom) until the user scrolls up,
and keeps the DOM bounded by pruning the oldest blocks in long sessions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.style import Style as RichStyle
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from agent import events as ev
from frontend.server_blocks import server_tool_lines
from frontend.wording import background_line, compaction_line
from tui.widgets.conversation.message_line import LineKind, MessageLine
from tui.widgets.conversation.thinking import Thinking
from tui.widgets.conversation.user_prompt import UserPrompt
from tui.widgets.laid_out import LaidOut

if TYPE_CHECKING:
    from tui.widgets.conversation.assistant_text import AssistantText
    from tui.widgets.conversation.subagent_block import SubagentBlock
    from tui.widgets.conversation.tool_call import ToolCallBlock

MAX_BLOCKS = 160
"""Blocks kept in the DOM; older ones are pruned (the transcript keeps everything)."""


class Conversation(VerticalScroll, LaidOut):
    """The scrolling transcript.

    Args:
        clock: the app's clock (tool call timers).
        max_blocks: prune beyond this many blocks.
    """

    def focus_on_click(self) -> bool:
        """A click (expanding a tool block, selecting text) leaves the focus in the prompt:
        what the user types next must not land in the conversation."""
        return False

    def __init__(
        self, clock: Callable[[], float], *, max_blocks: int = MAX_BLOCKS, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._clock = clock
        self.max_blocks = max_blocks
        self.tool_blocks: dict[str, ToolCallBlock] = {}
        self.subagent_blocks: dict[str, SubagentBlock] = {}
        """The live block of each Agent call's subagents, by the call's id."""
        self.text_block: AssistantText | None = None
        self._ahead: AssistantText | None = None
        """The answer block mounted ahead of a model call's text, empty (no line, no
        margin): the text fills it without a mount in the middle of the stream (a layout of
        the whole screen, and a frame, while the stream runs at full speed); mounted as the
        call starts, its layout and frame come while the loop waits for the answer. Blocks
        added meanwhile go above it; unused by the call's end, it is removed."""
        self.thinking_block: Thinking | None = None
        self.pruned = 0
        self._pruned_line: MessageLine | None = None
        self._echo: UserPrompt | None = None
        """A prompt shown before the engine started its turn (the session or the SDK client
        was still being made): the turn's start takes it over instead of showing it again."""

    def on_mount(self) -> None:
        self.anchor()

    def render_lines(self, crop: Region) -> list[Strip]:
        """Its own lines (under the blocks; padding, no border, no content of its own) are
        blank: one strip of its background through the app's line filters (NO_COLOR's), for
        every line, as Textual draws a blank line. Textual's styles cache drew each line
        alone, 0.7-0.9 ms a frame at every layout (a prompt sent, a block mounted, an
        answer's end); its ``BLANK`` flag skips that but the filters too."""
        _, background = self.background_colors
        strip = Strip.blank(crop.width, RichStyle.from_color(bgcolor=background.rich_color))
        for line_filter in self.get_line_filters():
            strip = strip.apply_filter(line_filter, background)
        return [strip] * crop.height

    # -- adding blocks --------------------------------------------------------------------
    def add_block(self, widget: Widget) -> None:
        """Mount ``widget`` at the bottom (above an answer mounted ahead), pruning old blocks
        past the limit."""
        if self._ahead is not None:
            self.mount(widget, before=self._ahead)
        else:
            self.mount(widget)
        overflow = len(self.children) - self.max_blocks
        if overflow > 0:
            self._prune(overflow)

    def add_line(self, text: str, kind: LineKind = "notice") -> MessageLine:
        line = MessageLine(text, kind)
        self.add_block(line)
        return line

    def add_user(self, text: str, *, correction: bool = False) -> None:
        self.add_block(UserPrompt(text, correction=correction))

    def echo_user(self, text: str) -> None:
        """Show a prompt at once, before its turn starts (see ``_echo``)."""
        if self._echo is None:
            self._echo = UserPrompt(text)
            self.add_block(self._echo)

    def _prune(self, count: int) -> None:
        old = [c for c in self.children if c is not self._pruned_line][:count]
        for widget in old:
            call_id = getattr(widget, "call_id", None)
            if call_id is not None:
                self.tool_blocks.pop(call_id, None)
                self.subagent_blocks.pop(call_id, None)
        self.pruned += len(old)
        self.remove_children(old)
        text = f"… {self.pruned} earlier blocks are not shown (the session keeps them)"
        if self._pruned_line is None:
            self._pruned_line = MessageLine(text, "hint")
            self.mount(self._pruned_line, before=0)
        else:
            self._pruned_line.update(text)

    # -- engine events --------------------------------------------------------------------
    def apply(self, event: ev.Event) -> None:
        """Render one engine event (events about other parts of the screen are ignored)."""
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:
            handler(event)

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        self._end_message()
        if event.origin == "background":  # no one typed it: its reports' lines were shown
            self.anchor()
            return
        echo, self._echo = self._echo, None
        prompt = event.shown or event.prompt  # a custom command as typed, not its body
        if echo is None or echo.text != prompt or not echo.is_attached:
            if echo is not None and echo.is_attached:
                echo.remove()
            self.add_user(prompt)
        self.anchor()

    def _on_model_call_started(self, event: ev.ModelCallStarted) -> None:
        self._end_message(keep_ahead=True)
        if self._ahead is None:
            from tui.widgets.conversation.assistant_text import AssistantText

            ahead = AssistantText(ahead=True)
            self.add_block(ahead)
            self._ahead = ahead

    def _on_thinking_delta(self, event: ev.ThinkingDelta) -> None:
        if self.thinking_block is None:
            self.thinking_block = Thinking()
            self.add_block(self.thinking_block)
        self.thinking_block.add(event.text)

    def _on_text_delta(self, event: ev.TextDelta) -> None:
        self.add_text(event.text)

    def add_text(self, text: str) -> None:
        """A fragment of the model's answer (the newest answer block grows, or one starts)."""
        if self.text_block is not None and self.thinking_block is None:
            self.text_block.append(text)
            return
        if self.thinking_block is not None:
            self.thinking_block.finish()
            self.thinking_block = None
        if self.text_block is None and self._ahead is not None:
            self.text_block, self._ahead = self._ahead, None
        elif self.text_block is None:
            from tui.widgets.conversation.assistant_text import (
                AssistantText,  # markdown-it, pygments: after the first frame
            )

            self.text_block = AssistantText()
            self.add_block(self.text_block)
        self.text_block.append(text)

    def _on_assistant_message(self, event: ev.AssistantMessage) -> None:
        self._end_message()
        for head, lines in server_tool_lines(event.message.get("content") or []):
            self.add_line("\n".join([f"⌕ {head}", *(f"  {line}" for line in lines)]), "notice")

    def _on_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        from tui.widgets.conversation.tool_call import (
            ToolCallBlock,  # pygments: not before the first frame
        )

        self._end_message()
        block = ToolCallBlock(event.call_id, event.name, event.summary, self._clock)
        self.tool_blocks[event.call_id] = block
        self.add_block(block)

    def _on_permission_requested(self, event: ev.PermissionRequested) -> None:
        block = self.tool_blocks.get(event.call_id)
        if block is not None:
            block.set_asking()

    def _on_tool_call_running(self, event: ev.ToolCallRunning) -> None:
        block = self.tool_blocks.get(event.call_id)
        if block is not None:
            block.set_running()

    def _on_tool_output_delta(self, event: ev.ToolOutputDelta) -> None:
        block = self.tool_blocks.get(event.call_id)
        if block is not None:
            block.add_output(event.text)

    def _on_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        block = self.tool_blocks.get(event.call_id)
        if block is None:
            from tui.widgets.conversation.tool_call import ToolCallBlock

            block = ToolCallBlock(event.call_id, event.name, "", self._clock)
            self.tool_blocks[event.call_id] = block
            self.add_block(block)
        block.finish(event.status, event.content, event.is_error, event.display)

    def _on_subagent_event(self, event: ev.SubagentEvent) -> None:
        from tui.widgets.conversation.subagent_block import SubagentBlock

        block = self.subagent_blocks.get(event.call_id)
        if block is None:
            block = SubagentBlock(event.call_id)
            self.subagent_blocks[event.call_id] = block
            anchor = self.tool_blocks.get(event.call_id)
            if anchor is not None and anchor.is_attached:
                self.mount(block, after=anchor)
            else:
                self.add_block(block)
        block.follow(event)

    def _on_corrections_delivered(self, event: ev.CorrectionsDelivered) -> None:
        for text in event.texts:
            self.add_user(text, correction=True)

    def _on_hook_ran(self, event: ev.HookRan) -> None:
        from frontend.wording import hook_acts
        from tui.widgets.conversation.hook_run import HookRunBlock

        if not hook_acts(event):
            return
        self._end_message()
        self.add_block(HookRunBlock(event))

    def _on_notice(self, event: ev.Notice) -> None:
        self.add_line(event.text, "notice")

    def _on_background_reported(self, event: ev.BackgroundReported) -> None:
        self._end_message()  # between two answers' texts, as Claude Code shows it
        self.add_line(background_line(event), "error" if event.status == "failed" else "notice")

    def _on_error(self, event: ev.Error) -> None:
        self.add_line(event.message, "error")

    def _on_interrupted(self, event: ev.Interrupted) -> None:
        self._end_message(interrupted=True)
        self.add_line("Interrupted · tell eddy what to do instead", "interrupted")

    def _on_compacted(self, event: ev.Compacted) -> None:
        # a boundary in the conversation, not advice: its own style (.compaction in app.tcss)
        line = self.add_line(compaction_line(event), "notice")
        line.add_class("compaction")

    def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        self._end_message()

    def _end_message(self, *, interrupted: bool = False, keep_ahead: bool = False) -> None:
        if self._ahead is not None and not keep_ahead:
            self._ahead.remove()
            self._ahead = None
        if self.thinking_block is not None:
            self.thinking_block.finish()
            self.thinking_block = None
        if self.text_block is not None:
            self.text_block.finish(interrupted=interrupted)
            self.text_block = None

    def set_expanded(self, expanded: bool) -> None:
        """Expand or collapse every tool result shown."""
        for block in self.tool_blocks.values():
            block.expanded = expanded
