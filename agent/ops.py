"""What a front end asks of the engine: frozen dataclasses, one closed union.

A front end never touches the history or the running task; it submits these to
``Session.submit`` and renders the events that come back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Decision = Literal["allow", "allow_always", "deny"]


@dataclass(frozen=True)
class SubmitPrompt:
    """A new prompt. While a turn runs, front ends send ``QueueCorrection`` instead.

    The other fields come from a custom command's front matter (agent/prompt/commands.py)
    and hold for this prompt's turn only (agent/session/command_prompt.py).
    """

    text: str
    allowed_tools: tuple[str, ...] = ()
    """Allow rules granted while this prompt's turn runs (``allowed-tools``)."""
    model: str | None = None
    """The model of this prompt's turn (``model``); None: the session's."""
    expand_shell: bool = False
    """Run each ``!`cmd` `` in ``text`` through the Bash permission rules first and put its
    output in its place; a refused or failing one aborts (nothing is sent)."""
    shown: str = ""
    """What the user typed when it is not ``text`` (``/review calc.py``, whose expanded
    body ``text`` is): the views show it as the prompt (``TurnStarted.shown``)."""


@dataclass(frozen=True)
class QueueCorrection:
    """Text typed while a turn runs; delivered after the current tool results."""

    text: str


@dataclass(frozen=True)
class TakeQueued:
    """Take queued correction ``index`` back (to edit it): it leaves the queue.

    ``index`` -1 means the newest. The removed text comes back in a ``QueueChanged`` event
    and as the return value of ``Session.submit``.
    """

    index: int = -1


@dataclass(frozen=True)
class Interrupt:
    """Esc: stop the running turn now. With a non-empty queue, send the queue at once."""


@dataclass(frozen=True)
class AnswerPermission:
    """The user's answer to a ``PermissionRequested`` event."""

    request_id: str
    decision: Decision
    reason: str = ""


@dataclass(frozen=True)
class AnswerQuestions:
    """The user's answers to a ``QuestionsAsked`` event: question text -> answer (the chosen
    labels joined by ", ", or the text typed for "Other"). Esc is ``Interrupt`` instead."""

    request_id: str
    answers: dict[str, str]


PlanMode = Literal["acceptEdits", "default"]


@dataclass(frozen=True)
class AnswerPlan:
    """The user's review of a ``PlanReviewRequested`` event: approve (and continue in
    ``mode``) or reject with ``feedback`` for the model."""

    request_id: str
    approved: bool
    mode: PlanMode = "default"
    feedback: str = ""


@dataclass(frozen=True)
class Compact:
    """Summarise the conversation and continue from the summary (``/compact [focus]``)."""

    focus: str = ""


@dataclass(frozen=True)
class SetLimits:
    """Cap the session: ``max_budget_usd`` for the whole session's spend, ``max_turns`` per
    prompt (``/budget``, ``/turns``). None leaves a limit as it is; 0 or less removes it."""

    max_turns: int | None = None
    max_budget_usd: float | None = None


@dataclass(frozen=True)
class RunShell:
    """``!command``: run it for the user; its output joins the conversation."""

    command: str


@dataclass(frozen=True)
class SetModel:
    """Switch the model for the next calls (``/model``)."""

    model: str


@dataclass(frozen=True)
class SetPermissionMode:
    """Switch the permission mode (Shift+Tab, ``/permissions``); answered by
    ``PermissionModeChanged``, or an ``Error`` for an unknown mode."""

    mode: str


@dataclass(frozen=True)
class Rename:
    """Give the session a title (``/rename``); answered by ``SessionRenamed``, or an ``Error``
    when the session is not saved or the title cannot be written."""

    title: str


RewindMode = Literal["both", "code", "conversation"]


@dataclass(frozen=True)
class Rewind:
    """Go back to the state before prompt ``number`` (1-based, as ``Session.checkpoints()``
    lists them), or, for a redo entry of that list, undo that rewind.

    ``mode``: restore code and conversation, code only, or conversation only. Files the user
    changed since eddy last touched them are left alone unless ``overwrite_conflicts``.
    """

    number: int
    mode: RewindMode = "both"
    overwrite_conflicts: bool = False


@dataclass(frozen=True)
class SetOutputStyle:
    """Switch the output style (``/output-style NAME``, agent/prompt/output_styles.py);
    answered by a ``Notice``, or an ``Error`` for an unknown style."""

    name: str


class SendToBackground:
    """Ctrl+B: the running foreground Bash command goes on as a background shell; its call
    returns at once with the shell's id."""


@dataclass(frozen=True)
class KillShell:
    """Kill background shell ``shell_id`` or stop the background agent of that id (``/bashes
    kill ID``, ``/tasks kill ID``); a ``Notice`` says how it went, an ``Error`` if there is no
    such running shell or agent."""

    shell_id: str


@dataclass(frozen=True)
class Shutdown:
    """Stop any running turn and release resources."""


Op = (
    SubmitPrompt
    | QueueCorrection
    | TakeQueued
    | Interrupt
    | AnswerPermission
    | AnswerQuestions
    | AnswerPlan
    | Compact
    | SetLimits
    | Rewind
    | RunShell
    | SetModel
    | SetPermissionMode
    | Rename
    | SetOutputStyle
    | SendToBackground
    | KillShell
    | Shutdown
)
