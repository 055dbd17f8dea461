"""The line mode's /resume listing: the sessions, numbered, each with its subagents under it
(numbered ``3.1``, ``3.2``, ...); a session's number resumes it, a subagent's number prints
that child's whole transcript (children are read-only: they cannot be resumed).

``/resume 3.1`` prints the transcript at once (numbered as the listing would be now).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from frontend.subagent_transcripts import (
    ChildSummary,
    child_summaries,
    hidden_children,
    transcript_lines,
)
from frontend.wording import first_line

if TYPE_CHECKING:
    from pathlib import Path

    from agent.store.listing import SessionInfo

SHOWN = 20
"""Sessions listed at most (the newest)."""
CHILD_NUMBER = re.compile(r"\s*(\d+)\.(\d+)\s*")
"""A subagent's number in the listing: ``3.1`` is session 3's first subagent."""


@dataclass
class Listing:
    """What /resume listed: the sessions shown, and each one's subagents.

    Attributes:
        sessions: the sessions, numbered from 1 in this order.
        children: the subagents of each session (same order; empty when it had none).
    """

    sessions: list[SessionInfo]
    children: list[list[ChildSummary]]

    @classmethod
    def of(cls, sessions: Sequence[SessionInfo]) -> Listing:
        """The newest ``SHOWN`` of ``sessions`` (newest first) with their subagents read."""
        shown = list(sessions[:SHOWN])
        return cls(shown, [child_summaries(s.path) if s.subagents else [] for s in shown])

    def lines(self) -> list[str]:
        """The listing as it is printed."""
        lines = ["Sessions of this project (newest first):"]
        for n, (s, children) in enumerate(zip(self.sessions, self.children, strict=True), 1):
            agents = f" · {s.subagents} subagents" if s.subagents else ""
            lines.append(
                f"  {n:>2}. {first_line(s.title or s.first_prompt or '', 60)}  · {s.session_id}"
                f"{agents}"
            )
            for m, child in enumerate(children, 1):
                lines.append(f"      {n}.{m} ↳ {first_line(child.line(), 120)}")
            hidden = hidden_children(s.path) if s.subagents else 0
            if hidden:
                lines.append(f"      ↳ … {hidden} older subagents not listed")
        return lines

    def has_children(self) -> bool:
        """Whether any session listed has a subagent (the question mentions ``3.1`` then)."""
        return any(self.children)

    def child(self, text: str) -> ChildSummary | str | None:
        """The subagent ``text`` numbers (``3.1``); a sentence when there is no such one;
        None when ``text`` is not a subagent's number at all."""
        match = CHILD_NUMBER.fullmatch(text)
        if match is None:
            return None
        n, m = int(match.group(1)), int(match.group(2))
        if not 1 <= n <= len(self.sessions):
            return f"There is no session {n} in the listing."
        children = self.children[n - 1]
        if not 1 <= m <= len(children):
            have = "none" if not children else f"{n}.1" if len(children) == 1 else ""
            have = have or f"{n}.1 to {n}.{len(children)}"
            return f"Session {n} has no subagent {n}.{m} (its subagents: {have})."
        return children[m - 1]


def child_text(child: ChildSummary) -> str:
    """A subagent's whole transcript as printed, between two rules."""
    return transcript_text(child.path)


def transcript_text(path: Path, title: str = "") -> str:
    """The transcript at ``path`` as line mode prints it, between two rules."""
    rule = "─" * 60
    head = f"{rule} {title}" if title else rule
    body = transcript_lines(path)
    return "\n".join([head, *body, f"{rule} (read-only: a subagent cannot be resumed)"])
