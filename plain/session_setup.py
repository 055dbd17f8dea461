"""Opening a line-mode session: the one the command line asks for, or a new one.

A session that cannot be resumed (a missing or broken transcript) is not fatal: line mode says
why and starts a new one. The SDK client is made in the background meanwhile, so that the
first prompt does not wait for it, and then the connection to the API is opened, as the
terminal app does.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent import events as ev
from frontend.launch import LaunchOptions

if TYPE_CHECKING:
    from agent.open import OpenedSession
    from plain.app import PlainApp


def open_session(app: PlainApp, *, fresh: bool = False) -> bool:
    """Open ``app``'s session (a new one with ``fresh``, /clear's); False if that failed (said why).

    Says what a resumed session holds and why a resume failed; the toolbar shows the session.
    """
    if fresh:  # /clear
        app.args = app.args.opening(cleared=True)
    model = app.model_factory() if app.model_factory is not None else None
    try:
        opened = build_session(app.args, app.emit, model)
    except Exception as exc:
        app.say(f"Could not start the session: {type(exc).__name__}: {exc}", "red")
        return False
    session, problems = opened.session, opened.problems
    app.session = session
    app.status_script.attach(session, app.status)
    status = session.status()
    app.renderer.queue = status.queue
    app.status.take_session(status)
    if status.messages:
        app.say(
            f"Resumed a session of {status.messages} messages (earlier messages are "
            "not shown; the model has them).",
            "cyan",
        )
    for problem in problems:
        app.say(problem, "yellow")
    from frontend.pickup import pickup_line

    picked = pickup_line(opened.picked_up)
    if picked is not None:
        app.say(picked, "cyan")
    if model is None:
        loop = asyncio.get_running_loop()

        def connect() -> None:  # from the warm-up thread, once the client exists
            with contextlib.suppress(RuntimeError):  # the loop is closed: eddy exits
                loop.call_soon_threadsafe(app.open_connection, session)

        warm_up_sdk(session.model, connect)
    return True


async def folder_trusted(app: PlainApp) -> bool:
    """At an interactive start in a folder not trusted yet: ask (agent/settings/trust.py); False if
    the answer is no (said so). Line mode fed from a pipe is not asked, as ``eddy -p``."""
    from agent.settings.trust import needs_asking, question, trust, vouch

    args = app.args
    mode, demo = args.permission_mode, args.demo
    if not app.interactive:
        vouch(app.workspace)  # fed from a pipe: the caller vouches for the folder, as -p
        return True
    if not needs_asking(app.workspace, mode=mode, demo=demo):
        return True
    title, *rest = question(app.workspace)
    app.say(title, "bold")
    for line in rest:
        app.say(line, *(("yellow",) if line.startswith("  •") else ()))
    app.say("Trust it? y: yes, go on · anything else: no, exit", "bold")
    try:
        answer = await app.input.read()
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes", "1"):
        app.say(f"eddy exited: the files in {app.workspace} are not trusted.", "red")
        return False
    try:
        trust(app.workspace)
    except OSError as exc:
        app.say(f"Could not remember that this folder is trusted: {exc}", "yellow")
    return True


async def ask_mcp_approval(app: PlainApp) -> None:
    """Before the first prompt: the project's new MCP servers (agent/mcp/ask.py), as a
    numbered question; the answer is remembered and approved servers start at once. Line
    mode fed from a pipe is not asked (they wait for /mcp approve); it waits for the servers
    that start to finish starting, so its first line can use them."""
    from agent.mcp.ask import RISK, answer, options, title, unanswered, waiting_line

    session = app.session
    if session is None:
        return
    from agent.mcp.manager import McpManager

    manager = session.extension(McpManager)
    workspace = session.config.workspace
    names = unanswered(manager, workspace)
    if not app.interactive:
        if names:
            app.say(waiting_line(names), "yellow")
        if manager is not None:  # a script's first line may use a server: wait for them
            await manager.wait_started()
        return
    if not names:
        return
    choices = options(names)
    app.say(title(names), "bold")
    app.say(RISK, "yellow")
    for i, (_key, label) in enumerate(choices, 1):
        app.say(f"  {i}. {label}")
    app.say("Choose 1-3 (anything else: continue without, ask again next time)", "bold")
    try:
        reply = (await app.input.read()).strip()
    except EOFError:
        reply = ""
    if reply not in ("1", "2", "3"):
        app.say("MCP: continuing without the project's new servers.", "cyan")
        return
    for line in answer(manager, workspace, names, choices[int(reply) - 1][0]):
        app.say(line, "cyan")


def build_session(
    args: LaunchOptions, emit: Callable[[ev.Event], None], model: Any
) -> OpenedSession:
    """The session ``args`` ask for, or a new one when it cannot be resumed (the reason first
    among the problems): frontend.session_open.open_interactive."""
    from frontend.session_open import open_interactive

    return open_interactive(args, emit, model=model)


def warm_up_sdk(model: Any, connect: Callable[[], None] | None = None) -> threading.Thread:
    """Make the SDK client (``import anthropic``, a TLS context) in a background thread, so
    that the first prompt does not wait for it; then call ``connect`` (from that thread) and
    compile the common lexers."""
    thread = threading.Thread(target=_warm_up, args=(model, connect), name="eddy-warm-up")
    thread.daemon = True
    thread.start()
    return thread


def _warm_up(model: Any, connect: Callable[[], None] | None) -> None:
    from agent.model.anthropic import prepare_client
    from plain.markdown import warm_up_highlighting

    prepare_client(model)
    if connect is not None:
        connect()
    warm_up_highlighting()
