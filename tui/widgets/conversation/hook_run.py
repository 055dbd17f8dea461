"""A hook run in the conversation: one collapsed line (event, command, exit code, time);
expanded, what the hook printed."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Collapsible, Static

from agent import events as ev
from frontend.sanitize import sanitize
from frontend.wording import hook_line


def hook_details(event: ev.HookRan) -> str:
    """What the expanded block shows: the source file, stdout and stderr."""
    parts = [f"from {event.source}" if event.source else "", f"$ {event.command}"]
    if event.suppressed:  # the hook asked: only that it ran is shown
        parts.append("stdout hidden (suppressOutput)")
    elif event.stdout.strip():
        parts.append("stdout:\n" + event.stdout.rstrip())
    if event.stderr.strip():
        parts.append("stderr:\n" + event.stderr.rstrip())
    if not event.stdout.strip() and not event.stderr.strip() and event.output:
        parts.append(event.output)
    return sanitize("\n".join(p for p in parts if p))


class HookRunBlock(Collapsible):
    """One hook run, collapsed by default (its title is the line mode's line)."""

    DEFAULT_CSS = """
    HookRunBlock { border: none; padding: 0; margin: 0; background: transparent; }
    HookRunBlock.error CollapsibleTitle, HookRunBlock.blocked CollapsibleTitle { color: $warning; }
    HookRunBlock CollapsibleTitle { color: $text-muted; }
    HookRunBlock Contents { padding: 0 0 0 2; }
    """

    def __init__(self, event: ev.HookRan) -> None:
        self.event = event
        body = Static(Content(hook_details(event)), classes="hook-output")
        super().__init__(body, title=hook_line(event), collapsed=True, classes=event.outcome)
