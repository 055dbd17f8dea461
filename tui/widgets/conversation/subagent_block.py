"""The live block under an Agent call: one line per subagent it started (current tool,
turns, cost, how it ended); a click expands it into the children's own lines."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from agent import events as ev
from frontend.subagents import SubagentTracker, subagent_line

LOG_LINES = 200
"""Lines of the children's transcript kept for the expanded view (the DOM stays bounded)."""


class SubagentBlock(Static):
    """The subagents of one Agent call (``call_id``), fed ``SubagentEvent`` s."""

    DEFAULT_CSS = """
    SubagentBlock { color: $text-muted; padding: 0 0 0 2; }
    """

    def __init__(self, call_id: str) -> None:
        super().__init__("")
        self.call_id = call_id
        self.tracker = SubagentTracker()
        self.log_lines: list[str] = []
        self.expanded = False

    def follow(self, event: ev.SubagentEvent) -> None:
        """Take one child event and repaint."""
        self.tracker.follow(event)
        line = subagent_line(event)
        if line is not None:
            self.log_lines.append(line)
            del self.log_lines[:-LOG_LINES]
        self.update(self.agents_content())

    def agents_content(self) -> Content:
        """The agents' lines, then (expanded) their transcript lines."""
        lines = [f"↳ {a.line()}" for a in self.tracker.agents.values()]
        if self.expanded:
            lines += [f"  {t}" for t in self.log_lines]
        elif self.log_lines:
            lines.append("  (click to show what the agents did)")
        return Content("\n".join(lines))

    def on_click(self) -> None:
        self.expanded = not self.expanded
        self.update(self.agents_content())
