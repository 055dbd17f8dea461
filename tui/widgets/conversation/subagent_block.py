"""The live block under an Agent call: one line per subagent it started (current tool,
turns, cost, how it ended); a click expands it into the children's own lines.

Each agent's whole transcript opens in ``SubagentTranscriptScreen`` on a double-click on the
agent's line (the first click of the pair toggles the lines as any click does, the second
puts them back, so a double-click only opens). A click leaves the focus in the prompt, as
everywhere in the conversation; a block given the focus opens the transcript of the agent
picked with ↑/↓ on Enter."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from agent import events as ev
from frontend.subagents import SubagentTracker, subagent_line

if TYPE_CHECKING:
    from textual import events

LOG_LINES = 200
"""Lines of the children's transcript kept for the expanded view (the DOM stays bounded)."""


class SubagentBlock(Static, can_focus=True):
    """The subagents of one Agent call (``call_id``), fed ``SubagentEvent`` s."""

    DEFAULT_CSS = """
    SubagentBlock { color: $text-muted; padding: 0 0 0 2; }
    SubagentBlock:focus { background: $boost; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_transcript", "whole transcript", show=False),
        Binding("up", "select(-1)", show=False),
        Binding("down", "select(1)", show=False),
    ]

    def focus_on_click(self) -> bool:
        """What the user types next goes to the prompt (see ``Conversation``)."""
        return False

    def __init__(self, call_id: str) -> None:
        super().__init__("")
        self.call_id = call_id
        self.tracker = SubagentTracker()
        self.log_lines: list[str] = []
        self.expanded = False
        self.selected = 0
        """The agent Enter opens (an index into ``tracker.agents``)."""
        self._pressed_row = -1

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
        agents = list(self.tracker.agents.values())
        parts: list[Content | str] = []
        for n, agent in enumerate(agents):
            line = f"↳ {agent.line()}"
            chosen = self.has_focus and n == self.selected
            parts += [Content.styled(line, "reverse") if chosen else line, "\n"]
        if self.expanded:
            parts += [f"  {t}\n" for t in self.log_lines]
        elif self.log_lines:
            parts.append("  (click: what the agents did · double-click an agent: all of it)\n")
        return Content.assemble(*parts).rstrip("\n") if parts else Content("")

    def on_click(self, event: events.Click) -> None:
        self.expanded = not self.expanded
        if event.chain == 1:
            # the first click of a pair may fold or unfold the lines and move the block
            # under the pointer: the pair means the row the first click hit
            self._pressed_row = event.y
        agents = list(self.tracker.agents)
        row = self._pressed_row  # the agents' lines come first, one row each
        if event.chain == 2 and 0 <= row < len(agents):
            self.selected = row
            self.action_open_transcript()
        self.update(self.agents_content())

    def on_focus(self) -> None:
        self.update(self.agents_content())

    def on_blur(self) -> None:
        self.update(self.agents_content())

    def action_select(self, step: int) -> None:
        count = len(self.tracker.agents)
        if count:
            self.selected = max(0, min(count - 1, self.selected + step))
            self.update(self.agents_content())

    def action_open_transcript(self) -> None:
        """Open the selected agent's whole transcript (a note when the session is unsaved)."""
        from frontend.subagent_transcripts import agent_title
        from tui.screens.subagent_transcript import open_transcript, running_child_path

        agents = list(self.tracker.agents.values())
        if not agents:
            return
        agent = agents[min(self.selected, len(agents) - 1)]
        path = running_child_path(self.app, agent.agent_id)
        if path is None:
            self.notify("This session is not saved, so the agent's transcript is not either.")
            return
        open_transcript(self.app, path, agent_title(agent.agent_type, agent.agent_id))
