"""Rewind: the session's checkpoints as a front end lists them, and applying a rewind.

Every prompt is a checkpoint. ``CheckpointEntry.number`` counts the session's prompts from 1
(``--rewind 1`` goes back to the state before the first prompt); redo entries (undoing a
rewind) follow the prompts in the same list.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckpointEntry:
    """One line of the rewind list.

    Attributes:
        number: what ``ops.Rewind(number)`` takes.
        prompt: the prompt's text (for a redo entry: a description of the rewind it undoes).
        summary: the code changes since that prompt: "3 files +12 -4", "no code changes",
            "2 files not restorable".
        redo: whether this entry undoes an earlier rewind.
    """

    number: int
    prompt: str
    summary: str
    redo: bool = False
