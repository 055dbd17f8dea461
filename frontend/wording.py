"""Words every front end uses the same way: a first line cut to a width, the compaction line,
why a turn ended.

Widths are terminal cells (East Asian wide characters take two, combining marks none), so the
TUI and the line mode cut a line at the same place.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from agent import events as ev
from frontend.sanitize import sanitize
from tools.textfile import plural


def cell_width(text: str) -> int:
    """The cells ``text`` takes in a terminal."""
    return sum(_cells(ch) for ch in text)


def _cells(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def first_line(text: str, width: int = 160) -> str:
    """The first non-blank line of ``text`` (control sequences removed), cut to ``width``
    cells with an ellipsis."""
    line = next((x.strip() for x in sanitize(text).splitlines() if x.strip()), "")
    if cell_width(line) <= width:
        return line
    out, used = [], 0
    for ch in line:
        cells = _cells(ch)
        if used + cells > width - 1:
            break
        out.append(ch)
        used += cells
    return "".join(out) + "…"


def compaction_line(event: ev.Compacted) -> str:
    """What the conversation shows where it was compacted."""
    how = "automatically" if event.automatic else "as asked"
    return (
        f"Conversation compacted {how}: {event.dropped_messages} messages summarised, "
        f"{event.kept_messages} kept."
    )


def hook_acts(event: ev.HookRan) -> bool:
    """Whether the views show a hook run: one that blocked, failed, was cancelled or decided
    (allow, deny, ask, block). A hook that passed is not shown, in the TUI as in line mode, as
    Claude Code does (the transcript, stream-json and eddy-events still carry every run)."""
    return event.outcome != "success" or event.decision is not None


def background_line(event: ev.BackgroundReported) -> str:
    """``● Agent "x" finished``: background work ended (Claude Code's words; the model reads
    its report after the running turn's results, or in a turn of its own)."""
    return f"● {sanitize(event.summary)}"


def hook_line(event: ev.HookRan) -> str:
    """One line for a hook run: ``hook PreToolUse ./check.sh: exit 2, blocked (12 ms): why``."""
    status = "no exit" if event.exit_code is None else f"exit {event.exit_code}"
    outcome = "" if event.outcome == "success" else f", {event.outcome}"
    decision = f", {event.decision}" if event.decision and event.outcome == "success" else ""
    head = f"hook {event.hook_event} {first_line(sanitize(event.command), 60)}"
    line = f"{head}: {status}{outcome}{decision} ({event.duration_ms} ms)"
    if event.output:
        line += f": {first_line(sanitize(event.output), 100)}"
    return line


def turn_end(subtype: str, limits: Any) -> str | None:
    """What to do after a turn ended where the user must act: at the budget or the turn cap, how
    to raise it and go on. Why it ended is said once, by the engine's event (the ``Notice`` of
    a cap with its figures, ``Interrupted``, ``Error``); None for the ends that need no advice.

    Args:
        subtype: the TurnFinished subtype.
        limits: the session's limits, or None.
    """
    if subtype == "error_max_budget_usd":
        cap = limits.max_budget_usd if limits is not None else None
        what = f"the ${cap:.2f} budget" if cap is not None else "the budget"
        return (
            f"To go on past {what} of this session, raise it with /budget AMOUNT (/budget 0 "
            "removes the cap), then send a message."
        )
    if subtype == "error_max_turns":
        turns = limits.max_turns if limits is not None else None
        what = plural(turns, "tool turn") if turns is not None else "the turn cap"
        return (
            f"To go on past {what} for this prompt, raise the cap with /turns N (/turns 0 "
            "removes it), then send a message."
        )
    return None


def rewind_undoes(entries: Sequence[Any], number: int, *, limit: int = 8) -> list[str]:
    """What rewinding to before prompt ``number`` undoes: a heading, then that prompt and every
    later one (the code and the conversation go back to before it, so their changes go too),
    one line each with its code summary; at most ``limit`` of them, then "… and N more".

    Args:
        entries: ``Session.checkpoints()`` (CheckpointEntry: number, prompt, summary, redo);
            redo entries are not prompts and are left out.
        number: the chosen prompt.
    """
    undone = [e for e in entries if not e.redo and e.number >= number]
    lines = [
        f"  {e.number}. {first_line(e.prompt, 60) or '(empty prompt)'} · {e.summary}"
        for e in undone
    ]
    if len(lines) > limit:
        lines = [*lines[: limit - 1], f"  … and {len(lines) - limit + 1} more"]
    return [f"This undoes {plural(len(undone), 'prompt')} and their changes:", *lines]
