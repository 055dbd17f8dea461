"""Slash commands: ONE table for every front end, and custom commands.

Each entry of :data:`COMMANDS` has a name, a description, whether it may run while a turn runs,
and a handler written against :class:`FrontEnd` (frontend/command_frontend.py),
the little a front end must offer (say a line, send a prompt, switch sessions, open the rewind or
permission dialogs, ...). The TUI and the line mode implement that protocol; the table, the
checks ("the session is still starting", "eddy is working") and the wording are here, once.

Custom commands (markdown files sent as prompts) are in agent/prompt/commands.py.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent import ops
from agent.plugins.plugin import Plugin
from agent.prompt.commands import CustomCommand, custom_commands, parse
from frontend import extension_commands as ext
from frontend import memory_commands as mem
from frontend.command_frontend import FrontEnd

Handler = Callable[[FrontEnd, str], Awaitable[None] | None]


@dataclass(frozen=True)
class Command:
    """One slash command."""

    name: str
    description: str
    handler: Handler
    during_turn: bool = False
    """Usable while a turn runs (the others say: press Esc first)."""
    needs_session: bool = True
    """Needs the session to be ready (the others work while it starts)."""


# -- the handlers -------------------------------------------------------------------------
def _help(fe: FrontEnd, arg: str) -> None:
    custom = {
        n if not c.argument_hint else f"{n} {c.argument_hint}": c.description
        for n, c in _custom(fe).items()
        if n not in COMMANDS
    }
    lines = ["Commands:"]
    lines += [f"  /{c.name:<14} {c.description}" for c in COMMANDS.values() if c.name != "quit"]
    if custom:
        lines.append("Custom commands:")
        lines += [f"  /{name:<14} {text}" for name, text in sorted(custom.items())]
    fe.say("\n".join([*lines, fe.keys_help]))


def _clear(fe: FrontEnd, arg: str) -> Awaitable[None] | None:
    return fe.new_session()


def _resume(fe: FrontEnd, arg: str) -> Awaitable[None] | None:
    return fe.open_resume(arg)


def _rewind(fe: FrontEnd, arg: str) -> Awaitable[None] | None:
    return fe.open_rewind(arg)


def _compact(fe: FrontEnd, arg: str) -> None:
    from agent.session.compaction import NOTHING_TO_COMPACT

    if not fe.session.history:  # said before "Compacting…", not as a failure after it
        fe.say(NOTHING_TO_COMPACT)
        return
    fe.compact(arg)


def _rename(fe: FrontEnd, arg: str) -> None:
    if not arg:
        fe.say("Usage: /rename TITLE (the resume list shows it).")
        return
    # the engine answers: SessionRenamed, or an Error (not saved, cannot write)
    fe.submit(ops.Rename(arg))


def _model(fe: FrontEnd, arg: str) -> None:
    from agent.model.pricing import known_models

    known = known_models()
    session = fe.session
    current = session.status().model if session is not None else fe.launch_model
    if not arg:
        fe.say(f"Model: {current}. Known models: {', '.join(known)}. /model NAME switches.")
        return
    if arg not in known:
        fe.say(f"Unknown model {arg!r}. Known models: {', '.join(known)}.", "error")
        return
    if _not_ready(fe, "/model", during_turn=False):
        return
    fe.submit(ops.SetModel(arg))  # the engine says so (a Notice)
    fe.model_changed(arg)


def _cost(fe: FrontEnd, arg: str) -> None:
    from agent.session.context import cost_lines

    session = fe.session
    lines = cost_lines(session)
    if session.busy:
        lines.append(f"(with the running turn: ${fe.running_cost():.4f})")
    cap = session.status().max_budget_usd
    if cap is not None:
        lines.append(f"Budget:         ${cap:.2f} for this session")
    tokens, window = fe.context_use()
    if window:
        pct = 100 * tokens / window
        lines.append(f"Context:        {tokens:,} of {window:,} tokens ({pct:.0f}%)")
    fe.say("\n".join(lines))


def _context(fe: FrontEnd, arg: str) -> None:
    from agent.session.context import breakdown

    fe.say("\n".join(breakdown(fe.session).lines()))


def _budget(fe: FrontEnd, arg: str) -> None:
    from agent.session.context import budget_command

    message, error = budget_command(fe.session, arg)
    fe.limits_changed()
    fe.say(message, "error" if error else "hint")


def _turns(fe: FrontEnd, arg: str) -> None:
    from agent.session.context import turns_command

    message, error = turns_command(fe.session, arg)
    fe.limits_changed()
    fe.say(message, "error" if error else "hint")


def _permissions(fe: FrontEnd, arg: str) -> None:
    from agent.settings.rule_editor import PermissionEditor, text_command

    session = fe.session
    allowed, disallowed = fe.launch_rules
    # the rules dialog edits the live policy's rules
    editor = PermissionEditor(
        session.status().workspace, session.config.policy, allowed, disallowed, session.ctx
    )
    said = text_command(editor, arg)
    if said is None:
        fe.open_permissions(editor)
        return
    for text, kind in said:
        fe.say(text, kind)


def _theme(fe: FrontEnd, arg: str) -> None:
    offered = fe.themes()
    if offered is None:
        fe.say(
            "Line mode uses your terminal's own colours; /theme switches the full-screen "
            "app's theme (eddy without --plain)."
        )
        return
    current, ours, others = offered
    if not arg:
        fe.say(
            f"Theme: {current}. eddy's themes: {', '.join(ours)}. Use /theme NAME, or ctrl+p "
            "for every theme with a preview."
        )
    elif fe.set_theme(arg):
        fe.say(f"Theme set to {arg}.")
    else:
        fe.say(f"No theme {arg!r}. eddy's: {', '.join(ours)}; others: {', '.join(others)}", "error")


def _exit(fe: FrontEnd, arg: str) -> None:
    fe.quit()


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command("help", "show the commands and keys", _help, True, False),
        Command("clear", "start a new session (the old one stays resumable)", _clear, False, False),
        Command(
            "compact", "summarise the conversation to free context: /compact [focus]", _compact
        ),
        Command("rewind", "go back to an earlier prompt: code, conversation or both", _rewind),
        Command("resume", "resume an earlier session of this project", _resume, False, False),
        Command("rename", "give this session a title: /rename TITLE", _rename, True),
        Command("model", "show or switch the model: /model [name]", _model, True, False),
        Command("cost", "the session's cost and token usage", _cost, True),
        Command("context", "what fills the context window", _context, True),
        Command("budget", "cap this session's spend: /budget 5 (0 removes the cap)", _budget, True),
        Command("turns", "cap tool turns per prompt: /turns 20 (0 removes the cap)", _turns, True),
        Command(
            "permissions",
            "view and edit permission rules (allow|ask|deny RULE, remove RULE, why CALL)",
            _permissions,
            True,
        ),
        Command("theme", "switch the colour theme: /theme [name]", _theme, True, False),
        Command("init", "survey the repository and write a starter AGENTS.md", mem.init),
        Command("memory", "edit AGENTS.md in $EDITOR", mem.memory, False, False),
        Command(
            "output-style",
            "show or switch the output style: /output-style [name]",
            ext.output_style,
        ),
        Command(
            "bashes",
            "list background shells and agents; /bashes kill ID stops one",
            ext.bashes,
            True,
        ),
        Command(
            "tasks",
            "the same as /bashes (Claude Code's name); /tasks kill ID stops one",
            ext.bashes,
            True,
        ),
        Command(
            "hooks",
            "the active hooks, from which file (missing scripts flagged)",
            ext.hooks,
            True,
            False,
        ),
        Command(
            "mcp",
            "MCP servers: state, tools; /mcp reconnect|enable|disable|login|approve NAME",
            ext.mcp,
            True,
        ),
        Command(
            "plugin",
            "plugins: list; install NAME@MARKETPLACE; enable|disable|uninstall NAME; "
            "marketplace add|list|remove|update",
            ext.plugin,
            True,
            False,
        ),
        Command(
            "agents",
            "the subagent types and this session's subagents; /agents ID shows one's transcript",
            ext.agents,
            True,
        ),
        Command("exit", "quit eddy", _exit, True, False),
        Command("quit", "quit eddy", _exit, True, False),
    )
}
"""Every built-in command, in the order /help lists them."""

BUILTINS: dict[str, str] = {n: c.description for n, c in COMMANDS.items() if n != "quit"}
"""Names and descriptions, for completion."""


def _not_ready(fe: FrontEnd, what: str, *, during_turn: bool) -> bool:
    """Whether the session cannot take ``what`` now; says why."""
    session = fe.session
    if session is None:
        fe.say(f"The session is still starting; try {what} again in a moment.")
        return True
    if not during_turn and session.busy:
        fe.say(f"eddy is working: press Esc to stop it, then {what}.")
        return True
    return False


def start_command(fe: FrontEnd, text: str) -> tuple[bool, Awaitable[None] | None]:
    """Run ``text`` if it is a slash command, as far as it goes without waiting.

    Returns:
        Whether it was a command (False: a prompt for the model), and what is left to await
        of it (a handler that waits: /clear, /resume, /memory in some front ends), or None.
        A word that looks like a command but is none is answered here (with the nearest
        names), never sent to the model.
    """
    parsed = parse(text.strip())
    if parsed is None:
        return False, None
    name, arg = parsed
    command = COMMANDS.get(name)
    if command is not None:
        return True, _start_builtin(fe, command, arg)
    if name.startswith("mcp__"):
        if _not_ready(fe, f"/{name}", during_turn=False):
            return True, None
        pending = ext.mcp_prompt(fe, name, arg)
        if pending is not None:
            return True, pending
    custom = _custom(fe).get(name)
    if custom is not None:
        _send_custom(fe, custom, name, arg)
    else:
        _unknown(fe, name)
    return True, None


def _start_builtin(fe: FrontEnd, command: Command, arg: str) -> Awaitable[None] | None:
    """Run a built-in command if the session can take it now (else say why)."""
    what = f"/{command.name}"
    if command.needs_session and _not_ready(fe, what, during_turn=command.during_turn):
        return None
    session = fe.session
    idle_only = not command.needs_session and not command.during_turn
    if idle_only and session is not None and session.busy:
        fe.say(f"eddy is working: press Esc to stop it, then {what}.")
        return None
    return command.handler(fe, arg)


def _send_custom(fe: FrontEnd, custom: CustomCommand, name: str, arg: str) -> None:
    """Send a custom command's prompt: a prompt of its own, or a correction while a turn
    runs (unless it grants tools, picks a model or runs !`cmd`: those wait for no turn)."""
    try:
        prompt = custom.prompt_op(arg)
    except OSError as exc:
        fe.say(f"Could not read {custom.path}: {exc.strerror or exc}", "error")
        return
    for problem in custom.problems:
        fe.say(problem, "error")
    prompt = dataclasses.replace(prompt, shown=f"/{name} {arg}".rstrip())  # as typed
    if prompt.allowed_tools or prompt.model or prompt.expand_shell:
        # grants, a model or !`cmd` hold for one whole turn: not as a correction
        if not _not_ready(fe, f"/{name}", during_turn=False):
            fe.submit(prompt)
        return
    session = fe.session
    if session is not None and not session.busy:
        fe.submit(prompt)
    else:  # a correction for the running turn, or a prompt the front end holds
        fe.send(prompt.text)


def _unknown(fe: FrontEnd, name: str) -> None:
    """Say that ``/name`` is no command, with the nearest names."""
    known = [*COMMANDS, *_custom(fe)]
    near = difflib.get_close_matches(name, known, n=2, cutoff=0.6)
    hint = f" Did you mean {' or '.join('/' + n for n in near)}?" if near else ""
    fe.say(f"Unknown command /{name}.{hint} /help lists the commands.", "error")


def is_command(text: str, workspace: Path) -> bool:
    """Whether ``text`` names one of eddy's commands (built in, custom or an MCP prompt): typed
    where a question waits for free text (a refusal's reason), it acts as that command."""
    parsed = parse(text.strip())
    if parsed is None:
        return False
    name = parsed[0]
    if name in COMMANDS or name.startswith("mcp__"):
        return True
    try:
        return name in custom_commands(workspace)
    except OSError:
        return False


async def run_command(fe: FrontEnd, text: str) -> bool:
    """:func:`start_command`, then what is left of it: whether ``text`` was a command."""
    handled, pending = start_command(fe, text)
    if pending is not None:
        await pending
    return handled


def _custom(fe: FrontEnd) -> dict[str, CustomCommand]:
    try:
        return custom_commands(fe.workspace, session_plugins(fe.session))
    except OSError:
        return {}


def session_plugins(session: Any) -> list[Plugin]:
    """The plugins ``session`` loaded (none before it is ready, nor for a stand-in)."""
    return list(getattr(getattr(session, "config", None), "plugins", ()))


def completions(
    prefix: str, workspace: Path, plugins: Sequence[Plugin] = ()
) -> list[tuple[str, str]]:
    """(``/name``, description) for commands starting with ``prefix`` (without the slash),
    the ``plugins``' included."""
    items = dict(BUILTINS)
    for name, cmd in custom_commands(workspace, plugins, grant_project=False).items():
        items.setdefault(name, cmd.description)
    return [(f"/{n}", d) for n, d in sorted(items.items()) if n.startswith(prefix)]
