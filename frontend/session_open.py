"""Open a session from the launch options: the front ends' one way to the engine's front door
(agent/open.py), for new, continued, resumed and forked sessions.

The engine builds the session; this adds what only the front ends know of: the custom commands
and the status line (their problems, and their items on the "Claude Code: ..." line).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.extension import Extension
from agent.memory.files import claude_user_dir
from agent.model.protocol import Model
from agent.open import OpenedSession, SessionOptions, open_or_new, open_session
from agent.prompt.commands import command_problems, custom_commands
from agent.session.core import Emit
from frontend.launch import LaunchOptions
from frontend.statusline import load_status_line
from tools.base import EditorTools, Tool


def session_options(
    args: LaunchOptions,
    *,
    headless: bool,
    persist: bool = True,
    editor: EditorTools | None = None,
) -> SessionOptions:
    """The engine's part of the command line (and the ACP editor's files and terminal)."""
    return SessionOptions(
        workspace=args.workspace,
        headless=headless,
        persist=persist,
        model=args.model,
        model_explicit=args.model_explicit,
        permission_mode=args.permission_mode,
        allowed_tools=args.allowed_tools,
        disallowed_tools=args.disallowed_tools,
        add_dirs=args.add_dirs,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        continue_=args.continue_,
        resume=args.resume,
        fork_session=args.fork_session,
        session_id=args.session_id,
        mcp_config=args.mcp_config,
        strict_mcp_config=args.strict_mcp_config,
        cleared=args.cleared,
        plugin_dirs=args.plugin_dirs,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        tools=args.tools,
        thinking=args.thinking,
        setting_sources=args.setting_sources,
        settings=args.settings,
        editor=editor,
    )


def build_session(
    args: LaunchOptions,
    emit: Emit,
    *,
    headless: bool,
    model: Model | None = None,
    persist: bool = True,
    tools: Sequence[Tool] | None = None,
    extensions: Sequence[Extension] = (),
    editor: EditorTools | None = None,
) -> OpenedSession:
    """The session ``args`` ask for (agent/open.py ``open_session``), with the front ends'
    own items, ``extensions`` (registered after eddy's own) and the ``editor``'s files and
    terminal for the tools (ACP).

    Raises:
        agent.open.SessionSetupError: the session to continue or resume cannot be opened.
    """
    options = session_options(
        args, headless=headless, persist=persist and args.persist, editor=editor
    )
    opened = open_session(options, emit, model=model, tools=tools, extensions=extensions)
    return _with_front_end_items(opened, args)


def open_interactive(
    args: LaunchOptions, emit: Emit, *, model: Model | None = None
) -> OpenedSession:
    """The session ``args`` ask for, for a front end with a person at it: if the session to
    continue or resume cannot be opened, a new one, with the reason first among the problems.
    """
    opened = open_or_new(session_options(args, headless=False), emit, model=model)
    return _with_front_end_items(opened, args)


def _with_front_end_items(opened: OpenedSession, args: LaunchOptions) -> OpenedSession:
    """Add the custom commands' and the status line's problems and start-up items."""
    workspace = args.workspace
    plugins = opened.session.config.plugins
    opened.problems += command_problems(workspace, plugins)
    status_line = load_status_line(workspace, opened.problems)
    claude_dirs = (workspace / ".claude", claude_user_dir())
    n = sum(
        1
        for c in custom_commands(workspace, plugins).values()
        if c.path.name != "SKILL.md" and any(d in c.path.parents for d in claude_dirs)
    )
    if n:
        opened.picked_up.append(f"{n} command{'s' if n != 1 else ''}")
    if status_line is not None:
        opened.picked_up.append("status line")
    return opened
