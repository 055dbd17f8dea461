"""AskUserQuestion's dialog: the model's questions one at a time, numbered choices, "Other".

A single-choice question is answered by picking an option (Enter, or its number); a
multi-select one toggles options and ends with "Submit"; "Other" opens a line for free text.
After the last question the dialog dismisses with the answers (question -> answer). Esc stops
the turn: it dismisses with None, and the engine's interrupt gives the call its result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from frontend.ask import answer_for, choices, header
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult

DONE = "done"


class QuestionsScreen(Dialog[dict[str, str] | None]):
    """Ask ``questions`` (the tool's input); dismiss with the answers, or None for Esc."""

    DEFAULT_CSS = """
    QuestionsScreen > #ask-dialog {
        & > #ask-question { margin-top: 1; }
        & > #ask-options { margin-top: 1; }
        & > #ask-other { display: none; margin-top: 1; }
        & > #ask-other.shown { display: block; }
        & > #ask-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "stop the turn", show=False),
        *(Binding(str(n), f"pick({n})", show=False) for n in range(1, 6)),
    ]

    def __init__(self, request_id: str, questions: tuple[dict[str, Any], ...]) -> None:
        super().__init__()
        self.request_id = request_id
        self.questions = list(questions)
        self.index = 0
        self.answers: dict[str, str] = {}
        self.picked: set[int] = set()
        self.withdrawn = False
        """The engine ended the wait (the turn stopped): the answer goes nowhere."""

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-dialog", classes="dialog"):
            yield Static("", id="ask-title", classes="dialog-title")
            yield Static("", id="ask-question")
            yield OptionList(id="ask-options")
            yield Input(placeholder="Your answer, then Enter", id="ask-other")
            yield Static("", id="ask-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        self._show()

    @property
    def question(self) -> dict[str, Any]:
        return self.questions[self.index]

    @property
    def multi(self) -> bool:
        return bool(self.question.get("multiSelect"))

    def _show(self, highlight: int = 0) -> None:
        q = self.question
        count = f" ({self.index + 1} of {len(self.questions)})" if len(self.questions) > 1 else ""
        self.query_one("#ask-title", Static).update(Text(f"[{header(q)}]{count}"))
        self.query_one("#ask-question", Static).update(Text(str(q.get("question", ""))))
        options = self.query_one("#ask-options", OptionList)
        options.clear_options()
        for c in choices(q):
            mark = ("[x] " if c.number in self.picked else "[ ] ") if self.multi else ""
            prompt = Text(f"{mark}{c.number}. {c.label}", style="bold")
            if c.description:
                prompt.append(f"\n     {c.description}", style="dim")
            options.add_option(Option(prompt, id=str(c.number)))
        if self.multi:
            options.add_option(Option(Text("Submit", style="bold"), id=DONE))
        options.highlighted = highlight
        other = self.query_one("#ask-other", Input)
        other.remove_class("shown")
        other.value = ""
        last = len(choices(q))
        keys = (
            f"↑/↓ or 1-{last} toggle · Submit to answer"
            if self.multi
            else f"↑/↓ or 1-{last} choose"
        )
        self.query_one("#ask-keys", Static).update(f"{keys} · Esc stops the turn")
        options.focus()

    def action_pick(self, number: int) -> None:
        listed = choices(self.question)
        if 1 <= number <= len(listed):
            self._choose(str(number))

    @on(OptionList.OptionSelected, "#ask-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option.id or "")

    def _choose(self, option_id: str) -> None:
        listed = choices(self.question)
        if option_id == DONE:
            if self.picked:
                self._answer(answer_for(self.question, sorted(self.picked)))
            return
        number = int(option_id)
        if listed[number - 1].other:
            other = self.query_one("#ask-other", Input)
            other.add_class("shown")
            other.focus()
            return
        if self.multi:
            self.picked ^= {number}
            self._show(highlight=number - 1)
            return
        self._answer(answer_for(self.question, [number]))

    @on(Input.Submitted, "#ask-other")
    def _other(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            return
        other = choices(self.question)[-1].number
        self._answer(answer_for(self.question, [*sorted(self.picked), other], text))

    def _answer(self, answer: str) -> None:
        self.answers[str(self.question["question"])] = answer
        self.index += 1
        self.picked = set()
        if self.index == len(self.questions):
            self.dismiss(self.answers)
        else:
            self._show()

    def action_stop(self) -> None:
        self.dismiss(None)
