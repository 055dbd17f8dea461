"""AskUserQuestion and ExitPlanMode as every front end shows them: choices numbered as in the
TUI's dialogs, "Other" last, the answer text the engine receives, the plan review's choices."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

OTHER_LABEL = "Other"
OTHER_HINT = "type your own answer"


@dataclass(frozen=True)
class Choice:
    """One numbered choice of a question (``other`` is the free-text one)."""

    number: int
    label: str
    description: str
    other: bool = False


def choices(question: dict[str, Any]) -> list[Choice]:
    """The question's options numbered from 1, then "Other"."""
    out = [
        Choice(i, str(o.get("label", "")), str(o.get("description", "")))
        for i, o in enumerate(question.get("options") or [], 1)
    ]
    out.append(Choice(len(out) + 1, OTHER_LABEL, OTHER_HINT, other=True))
    return out


def header(question: dict[str, Any]) -> str:
    """The question's chip (its header, at most 12 characters as Claude Code shows it)."""
    text = " ".join(str(question.get("header", "")).split())
    return text if len(text) <= 12 else text[:11] + "…"


def parse_picks(text: str, count: int, multi: bool) -> list[int] | None:
    """The choice numbers typed ("2", "1,3", "1 3"); None when ``text`` is not such an answer
    (not numbers, out of range, several for a single-choice question)."""
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if not parts or not all(p.isdigit() for p in parts):
        return None
    picks = sorted({int(p) for p in parts})
    if any(not 1 <= p <= count for p in picks) or (len(picks) > 1 and not multi):
        return None
    return picks


def answer_for(question: dict[str, Any], picks: list[int], other_text: str = "") -> str:
    """The answer the engine receives: the chosen labels joined by ", " (the "Other" choice
    is the text the user typed)."""
    labels = []
    for choice in choices(question):
        if choice.number in picks:
            labels.append(other_text.strip() if choice.other else choice.label)
    return ", ".join(label for label in labels if label)


PLAN_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Yes, and auto-accept edits", "acceptEdits"),
    ("Yes, and ask before each edit", "default"),
    ("No, keep planning", None),
)
"""The plan review's choices and the mode each continues in (None: reject)."""
FEEDBACK_PROMPT = "What should change in the plan? (the model reads it; Enter skips)"
