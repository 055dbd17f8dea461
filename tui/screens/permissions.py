"""The permission rules dialog (/permissions): view, add and remove rules, keyboard only.

Three lists (allow, ask, deny; ←/→ switches) show every rule with the file it comes from.
``a`` (or Enter on "Add a new rule…") asks for the rule text, checks it with the rule parser
and then asks which settings file gets it; ``d`` or Delete removes the highlighted rule from
its file. Rules given on the command line are shown but cannot be removed. Esc steps back,
and closes the dialog from the lists.

``agent/settings/rule_editor.py`` does the writing and keeps the running session's policy in
step; the text forms of /permissions use it too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rich.cells import cell_len, set_cell_size
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent.permissions.policy import Rule
from agent.settings.edit import SCOPES, RuleEntry, display_path, scope_path
from agent.settings.files import RULE_LISTS
from agent.settings.rule_editor import Kind, PermissionEditor
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult

RULE_WIDTH = 48
"""Rules longer than this are cut in the list (the file holds them whole)."""


class PermissionsScreen(Dialog[list[str]]):
    """The rules, by list, with their files; dismisses with the changes it made (messages).

    Args:
        editor: writes the files and updates the session's policy.
    """

    DEFAULT_CSS = """
    PermissionsScreen > #perm-dialog {
        & > #perm-tabs { margin-top: 1; }
        & > OptionList { margin-top: 1; }
        & > #perm-input { margin-top: 1; border: none; height: 1; padding: 0 1; }
        & > #perm-message { margin-top: 1; color: $text-muted; }
        & > #perm-message.error { color: $error; }
        & > #perm-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", show=False),
        Binding("left", "switch(-1)", show=False),
        Binding("right", "switch(1)", show=False),
        Binding("a", "add", "add", show=False),
        Binding("d,delete", "remove", "remove", show=False),
    ]

    def __init__(self, editor: PermissionEditor, kind: str = "allow") -> None:
        super().__init__()
        self.editor = editor
        self.kind = kind
        self.step: Literal["list", "rule", "where"] = "list"
        self.rule_text = ""
        self.changes: list[str] = []
        self._shown: list[RuleEntry] = []
        self._title = Static(id="perm-title", classes="dialog-title")
        self._tabs = Static(id="perm-tabs")
        self._rules = OptionList(id="perm-rules")
        self._input = Input(
            placeholder="e.g. Bash(npm run test:*) or Edit(src/**)", id="perm-input"
        )
        self._where = OptionList(id="perm-where")
        self._message = Static(id="perm-message")
        self._keys = Static(id="perm-keys", classes="dialog-keys")

    def compose(self) -> ComposeResult:
        with Vertical(id="perm-dialog", classes="dialog"):
            yield self._title
            yield self._tabs
            yield self._rules
            yield self._input
            yield self._where
            yield self._message
            yield self._keys

    def on_mount(self) -> None:
        self._where.set_options(
            Option(
                Content.assemble(
                    (f"{SCOPES[s][0]}: ", "bold"),
                    display_path(scope_path(s, self.editor.workspace), self.editor.workspace),
                    (f"  {SCOPES[s][1]}", "dim"),
                ),
                id=s,
            )
            for s in SCOPES
        )
        self._message.display = False
        self._show_list()

    # -- the three steps ----------------------------------------------------------------
    def _show_list(self, keep: int | None = None) -> None:
        self.step = "list"
        self._title.update(f"Permission rules · mode: {self.editor.policy.mode}")
        self._tabs.update(
            Content.assemble(
                *(
                    (f" {k.capitalize()} ", "reverse bold" if k == self.kind else "dim")
                    for k in RULE_LISTS
                )
            )
        )
        self._shown = [e for e in self.editor.entries() if e.kind == self.kind]
        options = [Option(Content.styled("+ Add a new rule…", "$accent"), id="add")]
        width = min(max((cell_len(str(e.rule)) for e in self._shown), default=0), RULE_WIDTH)
        for i, entry in enumerate(self._shown):
            rule = str(entry.rule)
            rule = rule if cell_len(rule) <= width else set_cell_size(rule, width - 1) + "…"
            label = Content.assemble(
                f"  {set_cell_size(rule, width)}", ("  " + self.editor.source(entry), "dim")
            )
            options.append(Option(label, id=str(i)))
        self._rules.set_options(options)
        self._rules.highlighted = min(keep or 0, len(options) - 1)
        self._rules.display, self._input.display, self._where.display = True, False, False
        self._keys.update("↑/↓ move · ←/→ allow/ask/deny · a add · d remove · Esc close")
        self._rules.focus()

    def _show_rule_input(self) -> None:
        self.step = "rule"
        self._title.update(f"Add an {self.kind} rule" if self.kind != "deny" else "Add a deny rule")
        self._rules.display, self._input.display, self._where.display = False, True, False
        self._input.value = self.rule_text
        self._keys.update("Type the rule · Enter next · Esc back")
        self._input.focus()

    def _show_where(self) -> None:
        self.step = "where"
        self._title.update(f"Save the {self.kind} rule {self.rule_text} to:")
        self._rules.display, self._input.display, self._where.display = False, False, True
        self._where.highlighted = 0
        self._keys.update("↑/↓ choose · Enter save · Esc back")
        self._where.focus()

    def say(self, text: str, kind: Kind = "hint") -> None:
        """A line under the list (errors in red)."""
        self._message.update(text)
        self._message.set_class(kind == "error", "error")
        self._message.display = True

    # -- keys -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add", "remove", "switch"):
            return self.step == "list"  # in the rule's text, a, d and arrows are typing
        return True

    def action_back(self) -> None:
        if self.step == "where":
            self._show_rule_input()
        elif self.step == "rule":
            self._message.display = False
            self._show_list()
        else:
            self.dismiss(self.changes)

    def action_switch(self, step: int) -> None:
        index = (RULE_LISTS.index(self.kind) + step) % len(RULE_LISTS)
        self.kind = RULE_LISTS[index]
        self._show_list()

    def action_add(self) -> None:
        self.rule_text = ""
        self._message.display = False
        self._show_rule_input()

    def action_remove(self) -> None:
        index = self._rules.highlighted
        option = self._rules.get_option_at_index(index) if index is not None else None
        if option is None or option.id == "add":
            self.say("Choose a rule with ↑/↓ first, then press d to remove it.")
            return
        text, kind = self.editor.remove(self._shown[int(option.id or 0)])
        if kind != "error":
            self.changes.append(text)
        self._show_list(keep=index)
        self.say(text, kind)

    @on(OptionList.OptionSelected, "#perm-rules")
    def _rule_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == "add":
            self.action_add()
        else:
            self.say("Press d to remove this rule, a to add one.")

    @on(Input.Submitted, "#perm-input")
    def _rule_typed(self, event: Input.Submitted) -> None:
        event.stop()
        self.rule_text = event.value.strip()
        try:
            self.rule_text = str(Rule.parse(self.rule_text))
        except ValueError as exc:
            self.say(f"Not a valid rule: {exc}. Nothing was saved.", "error")
            return
        self._message.display = False
        self._show_where()

    @on(OptionList.OptionSelected, "#perm-where")
    def _where_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        text, kind = self.editor.add(self.kind, self.rule_text, event.option.id or "local")
        if kind == "error":
            self._show_rule_input()
        else:
            self.changes.append(text)
            self._show_list()
            rule, scope = Rule.parse(self.rule_text), event.option.id
            where = [i for i, e in enumerate(self._shown) if (e.rule, e.scope) == (rule, scope)]
            self._rules.highlighted = where[0] + 1 if where else 0
        self.say(text, kind)
