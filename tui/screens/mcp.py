"""The ``/mcp`` menu: the session's MCP servers, one server's tools, and what can be done to it.

As Claude Code's ``/mcp``: a list of the servers with their state (connected, starting,
failed with its reason, needs authentication, waits for approval, disabled); Enter on one
shows where it runs, its tools, its prompts and resources counted, and its actions
(reconnect, authenticate for an HTTP or SSE server, disable or enable for this project).
Esc steps back to the list, and closes the menu from the list.

The words and the actions are ``agent/mcp/command.py``'s (the text ``/mcp`` of line mode and
ACP says the same); the actions are the manager's methods. The list follows the servers'
states while it is open (a start finishing, a server dying).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent.mcp.command import actions, run_action, server_detail, state_label
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from agent.mcp.manager import McpManager

REFRESH_S = 0.5
"""How often the open menu re-reads the servers' states."""


class McpScreen(Dialog[None]):
    """The servers of ``manager``; Enter opens one, Esc steps back or closes.

    Args:
        manager: the session's MCP servers.
    """

    DEFAULT_CSS = """
    McpScreen > #mcp-dialog {
        & > #mcp-detail { margin-top: 1; }
        & > OptionList { margin-top: 1; }
        & > #mcp-message { margin-top: 1; color: $text-muted; }
        & > #mcp-message.error { color: $error; }
        & > #mcp-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "back", show=False)]

    def __init__(self, manager: McpManager) -> None:
        super().__init__()
        self.manager = manager
        self.server: str | None = None
        """The server whose actions are shown (None: the list of servers)."""
        self.busy = False
        """An action runs: the keys wait for it (a login may take minutes)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp-dialog", classes="dialog"):
            yield Static("MCP servers", id="mcp-title", classes="dialog-title")
            yield Static("", id="mcp-detail")
            yield OptionList(id="mcp-options")
            yield Static("", id="mcp-message")
            yield Static("", id="mcp-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        self.show_servers()
        self.set_interval(REFRESH_S, self.refresh_states)

    # -- the two views --------------------------------------------------------------------
    def show_servers(self, highlight: str | None = None) -> None:
        """The list of servers, each with its state."""
        self.server = None
        self.query_one("#mcp-title", Static).update("MCP servers")
        self.query_one("#mcp-detail", Static).display = False
        names = list(self.manager.connections)
        options = self.query_one("#mcp-options", OptionList)
        options.set_options(Option(self._server_line(n), id=n) for n in names)
        options.highlighted = names.index(highlight) if highlight in names else 0
        options.focus()
        self.query_one("#mcp-keys", Static).update(
            "↑/↓ choose · Enter show its tools and actions · Esc close"
        )

    def show_server(self, name: str) -> None:
        """One server: where it runs, its state, tools, and its actions."""
        self.server = name
        conn = self.manager.connections[name]
        self.query_one("#mcp-title", Static).update(f"MCP server {name}")
        detail = self.query_one("#mcp-detail", Static)
        detail.update(server_detail(conn))
        detail.display = True
        options = self.query_one("#mcp-options", OptionList)
        options.set_options(Option(label, id=key) for key, label in actions(self.manager, name))
        options.highlighted = 0
        options.focus()
        self.query_one("#mcp-keys", Static).update("↑/↓ choose · Enter do it · Esc back")

    def _server_line(self, name: str) -> str:
        conn = self.manager.connections[name]
        tools = f" · {len(conn.tools)} tools" if conn.state == "connected" else ""
        return f"{name}  {state_label(conn)}{tools}"

    def refresh_states(self) -> None:
        """Show the servers' current states (they change on the MCP thread)."""
        if self.busy:
            return
        if self.server is None:
            options = self.query_one("#mcp-options", OptionList)
            for name in self.manager.connections:
                options.replace_option_prompt(name, self._server_line(name))
        else:
            detail = server_detail(self.manager.connections[self.server])
            self.query_one("#mcp-detail", Static).update(detail)

    # -- keys -----------------------------------------------------------------------------
    @on(OptionList.OptionSelected, "#mcp-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.busy or event.option.id is None:
            return
        if self.server is None:
            self.show_server(event.option.id)
        else:
            self.perform(self.server, event.option.id)

    @work(exclusive=True, group="mcp-action")
    async def perform(self, name: str, action: str) -> None:
        """Run ``action`` on server ``name``, say how it went, and show the server again."""
        self.busy = True
        message = self.query_one("#mcp-message", Static)
        message.remove_class("error")
        message.update(f"{name}: {action}…")
        try:
            said = await run_action(self.manager, name, action)
        finally:
            self.busy = False
        message.update("\n".join(text for text, _kind in said))
        message.set_class(any(kind == "error" for _text, kind in said), "error")
        if self.is_attached and self.server == name:
            self.show_server(name)

    def action_back(self) -> None:
        if self.server is not None and not self.busy:
            self.show_servers(highlight=self.server)
        elif self.server is None:
            self.dismiss(None)
