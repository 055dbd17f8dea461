"""ExitPlanMode's dialog: the model's plan, then approve (and the mode eddy goes on in) or
reject with feedback for the model. Esc stops the turn (dismisses with None)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from frontend.ask import FEEDBACK_PROMPT, PLAN_CHOICES
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult

Review = tuple[bool, str, str]
"""(approved, the mode to go on in, feedback)."""


class PlanReviewScreen(Dialog[Review | None]):
    """Show ``plan``; dismiss with the review, or None for Esc."""

    DEFAULT_CSS = """
    PlanReviewScreen > #plan-dialog {
        & > #plan-body { height: auto; max-height: 20; margin-top: 1; }
        & > #plan-options { margin-top: 1; }
        & > #plan-feedback { display: none; margin-top: 1; }
        & > #plan-feedback.shown { display: block; }
        & > #plan-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "stop the turn", show=False),
        *(Binding(str(n), f"pick({n})", show=False) for n in range(1, len(PLAN_CHOICES) + 1)),
    ]

    def __init__(self, request_id: str, plan: str) -> None:
        super().__init__()
        self.request_id = request_id
        self.plan = plan
        self.withdrawn = False
        """The engine ended the wait (the turn stopped): the answer goes nowhere."""

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-dialog", classes="dialog"):
            yield Static("Ready to code? Here is the plan:", classes="dialog-title")
            with VerticalScroll(id="plan-body"):
                yield Markdown(self.plan)
            yield OptionList(
                *(
                    Option(Text(f"{i}. {label}"), id=str(i))
                    for i, (label, _mode) in enumerate(PLAN_CHOICES, 1)
                ),
                id="plan-options",
            )
            yield Input(placeholder=FEEDBACK_PROMPT, id="plan-feedback")
            yield Static(
                "↑/↓ or 1-3 choose · Enter confirm · Esc stops the turn",
                id="plan-keys",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def action_pick(self, number: int) -> None:
        self._choose(number)

    @on(OptionList.OptionSelected, "#plan-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(int(event.option.id or "1"))

    def _choose(self, number: int) -> None:
        mode = PLAN_CHOICES[number - 1][1]
        if mode is not None:
            self.dismiss((True, mode, ""))
            return
        feedback = self.query_one("#plan-feedback", Input)
        feedback.add_class("shown")
        feedback.focus()

    @on(Input.Submitted, "#plan-feedback")
    def _feedback(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss((False, "plan", event.value.strip()))

    def action_stop(self) -> None:
        self.dismiss(None)
