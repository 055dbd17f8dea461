"""The bottom toolbar: model, permission mode, context use, session cost, what is going on."""

from __future__ import annotations

from frontend.status import StatusModel


def money(usd: float) -> str:
    """``$0.0123`` below a dollar, ``$12.34`` above."""
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


class Status(StatusModel):
    """The toolbar: the shared status model (frontend/status.py), drawn as one line, and
    below it the ``statusLine`` script's lines (with their SGR colours)."""

    script_lines: list[str] = []

    def line(self, busy: bool) -> str:
        """The toolbar text."""
        parts = [self.label] if self.label else []
        parts += [self.model, self.mode]
        percent = self.context_percent
        if percent is not None:
            parts.append(f"context {percent}%")
        parts.append(money(self.cost))
        if self.mcp:
            parts.append(self.mcp)
        if self.background:
            parts.append(self.background)
        if self.queued:
            parts.append(f"{self.queued} queued (↑ takes back)")
        if busy:
            parts.append(f"{self.activity or 'working'} · Esc stops · Enter queues")
        return "\n".join([" · ".join(parts), *self.script_lines])
