"""The permission question for one tool call: what will run, then yes / always / no + why.

Keyboard only: arrows or 1-3 pick, Enter answers; choosing 3 focuses a text field whose text
goes to the model with the refusal. Esc is handled by the app: it stops the turn.

Typing is never lost and never approves: a character typed while the question has the focus
(the user was writing something when it appeared) picks 3 and goes into the reason field,
so the Enter that follows refuses with that text as the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from frontend.sanitize import sanitize

PREVIEW_MAX_LINES = 30


def describe_call(name: str, args: dict[str, Any], summary: str) -> Content:
    """What will run, for tools without a diff preview: the command, or the input."""
    if name == "Bash":
        command = sanitize(str(args.get("command", "")))
        desc = sanitize(str(args.get("description", "") or ""))
        body = Content.styled(command, "bold")
        return body + Content.styled("\n" + desc, "$text-muted") if desc else body
    if summary:
        return Content(sanitize(summary))
    text = sanitize(json.dumps(args, indent=2, ensure_ascii=False))
    lines = text.splitlines()
    if len(lines) > PREVIEW_MAX_LINES:
        text = "\n".join(lines[:PREVIEW_MAX_LINES]) + f"\n… {len(lines) - PREVIEW_MAX_LINES} more"
    return Content(text)


class PermissionPrompt(Vertical, can_focus=True):
    """Asks whether one call may run; posts :class:`PermissionPrompt.Answered`.

    Args:
        request_id: the engine's request id (the answer names it).
        name: the tool name.
        args: the call's input.
        summary: the one-line summary.
        suggested_rule: the rule "don't ask again" would save.
        diff: ``(label, diff)`` for a file change, or None.
        saves: whether that rule is saved to the project's local settings (else it holds for
            this session only).
    """

    BINDINGS = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("1", "pick(0)", show=False),
        Binding("2", "pick(1)", show=False),
        Binding("3", "pick(2)", show=False),
        Binding("enter", "answer", "answer", show=False),
    ]

    selected: reactive[int] = reactive(0, init=False)

    class Answered(Message):
        """The user answered: ``decision`` is allow, allow_always or deny."""

        def __init__(self, prompt: PermissionPrompt, decision: str, reason: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.request_id = prompt.request_id
            self.decision = decision
            self.reason = reason

    def __init__(
        self,
        request_id: str,
        name: str,
        args: dict[str, Any],
        summary: str,
        suggested_rule: str | None,
        diff: tuple[str, str] | None = None,
        saves: bool = True,
        warning: str = "",
        agent: str = "",
        workspace: Path | None = None,
    ) -> None:
        super().__init__(classes="permission")
        self.workspace = workspace or Path.cwd()
        """Where custom commands are looked up (a command typed as the reason runs)."""
        self.warning = warning
        self.agent = agent
        """The subagent that asks (empty: the main agent)."""
        self.request_id = request_id
        self.tool_name = name
        self.args = args
        self.summary = summary
        self.rule = suggested_rule or name
        self.diff = diff
        self.scope = "in this project" if saves else "this session"
        self.answered = False
        self._took_reason = False
        self._options = [Static(classes="option") for _ in range(3)]
        self.reason_input = Input(
            placeholder="what should eddy do instead?", id="reason", select_on_focus=False
        )

    def compose(self) -> ComposeResult:
        title = f"{self.tool_name}: {self.summary}" if self.summary else self.tool_name
        title = sanitize(title)
        asker = f" (asked by the agent {sanitize(self.agent)})" if self.agent else ""
        yield Static(Content.styled(f"Allow {title}?{asker}", "bold"), classes="perm-title")
        if self.warning:
            yield Static(Content.styled(self.warning, "$warning"), classes="perm-warning")
        if self.diff is not None:
            from tui.widgets.conversation.diff_view import render_diff

            label, diff = sanitize(self.diff[0]), sanitize(self.diff[1])
            body = render_diff(diff, label, PREVIEW_MAX_LINES) if diff else Content("(no change)")
        else:
            body = describe_call(self.tool_name, self.args, self.summary)
        yield Static(body, classes="perm-preview")
        yield from self._options
        yield self.reason_input
        yield Static(
            Content.styled("↑↓ or 1-3 to choose · Enter to answer · Esc to stop", "$text-muted"),
            classes="perm-hint",
        )

    def on_mount(self) -> None:
        self._render_options()

    def watch_selected(self) -> None:
        self._render_options()
        if self.selected == 2:
            self.reason_input.focus()
        elif self.reason_input.has_focus:
            self.focus()

    def _render_options(self) -> None:
        labels = [
            "Yes",
            f"Yes, and don't ask again for {self.rule} {self.scope}",
            "No, and tell eddy what to do instead (type below)",
        ]
        for i, (widget, label) in enumerate(zip(self._options, labels, strict=True)):
            mark = "❯ " if i == self.selected else "  "
            style = "bold $text-primary" if i == self.selected else ""
            widget.update(Content.styled(f"{mark}{i + 1}. {label}", style))

    def on_key(self, event: events.Key) -> None:
        # a printable key that is not one of the question's own: the user is typing
        if self.reason_input.has_focus or self.answered:
            return
        char = event.character
        if char is None or not char.isprintable() or event.key in ("1", "2", "3"):
            return
        event.stop()
        event.prevent_default()
        self.selected = 2  # focuses the reason field
        self.reason_input.insert_text_at_cursor(char)

    @property
    def unused_text(self) -> str:
        """Text typed into the reason field that no answer took (the question was closed
        another way): the screen gives it back to the prompt."""
        return "" if self._took_reason else self.reason_input.value

    def action_move(self, step: int) -> None:
        self.selected = (self.selected + step) % 3

    def action_pick(self, index: int) -> None:
        self.selected = index
        if index != 2:
            self.action_answer()

    def action_answer(self) -> None:
        decision = ("allow", "allow_always", "deny")[self.selected]
        self._answer(decision, self.reason_input.value if decision == "deny" else "")

    class CommandTyped(Message):
        """The reason field got one of eddy's commands (``/exit``): it runs as the command,
        and the question stays open."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    @on(Input.Submitted, "#reason")
    def _reason_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        from frontend.commands import is_command

        if is_command(event.value, self.workspace):
            self.reason_input.value = ""
            self.post_message(self.CommandTyped(event.value.strip()))
            return
        self.selected = 2
        self._answer("deny", event.value)

    def _answer(self, decision: str, reason: str) -> None:
        if self.answered:
            return
        self.answered = True
        self._took_reason = bool(reason)
        self.post_message(self.Answered(self, decision, reason))
