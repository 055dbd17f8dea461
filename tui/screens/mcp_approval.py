"""The start-up question about a project's new MCP servers (agent/mcp/ask.py).

Pushed after the session is ready (the first frame is never held up by it): the servers'
names, the risk, then "use this and all future MCP servers in this project", "use these",
"continue without". 1/2/3 or Enter choose; Esc continues without them for this run only
(nothing remembered: the question comes again next time). Dismisses with the choice or None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent.mcp.ask import RISK, options, title
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult


class McpApprovalScreen(Dialog[str | None]):
    """Ask whether the project's servers ``names`` may start."""

    DEFAULT_CSS = """
    McpApprovalScreen > #mcp-approval-dialog {
        & > #mcp-approval-risk { margin-top: 1; color: $text-warning; }
        & > #mcp-approval-options { margin-top: 1; }
        & > #mcp-approval-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "continue without", show=False),
        Binding("1", "pick(0)", show=False),
        Binding("2", "pick(1)", show=False),
        Binding("3", "pick(2)", show=False),
    ]

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names
        self.choices = options(names)

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp-approval-dialog", classes="dialog"):
            yield Static(title(self.names), id="mcp-approval-title", classes="dialog-title")
            yield Static(RISK, id="mcp-approval-risk")
            yield OptionList(
                *(
                    Option(f"{i}. {label}", id=key)
                    for i, (key, label) in enumerate(self.choices, 1)
                ),
                id="mcp-approval-options",
            )
            yield Static(
                "↑/↓ or 1-3 choose · Enter confirm · Esc continue without (ask again next time)",
                id="mcp-approval-keys",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        options_list = self.query_one(OptionList)
        options_list.highlighted = 0
        options_list.focus()

    @on(OptionList.OptionSelected, "#mcp-approval-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick(event.option_index)

    def action_pick(self, index: int) -> None:
        self.dismiss(self.choices[index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
