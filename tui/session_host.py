"""The app's session: building it, switching to another, warming up the SDK.

The first frame needs only Textual and the widgets: the session (tools, system prompt,
transcript) is built in a thread worker right after it, and the SDK client (``import
anthropic``, a TLS context) is made in another thread a little after the session is ready, so
the first prompt does not pay for it either; the stylesheet gets the CSS of the widgets a
turn mounts once the session is ready (tui/warm_up.py).

``eddy --resume`` without an id shows the resume picker before the session is built; /resume
and /clear close the session and build the chosen (or a new) one.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import events as ev
from frontend.launch import LaunchOptions
from tui.warm_up import register_turn_css, turn_widget_classes, warm_up_highlighting

if TYPE_CHECKING:
    from agent.open import OpenedSession
    from tui.app import EddyApp

HELP = """Enter sends · ctrl+j or shift+enter: new line · ↑/↓: prompt history
Esc stops the model (what you queued is sent at once) · type while it works to queue a correction
ctrl+o expands tool output · ctrl+p command palette · /theme [name] · /help · /exit"""

DEMO_NOTE = "Or try `eddy --demo`: a scripted demo in a scratch project, no key needed."
DEMO_BANNER = (
    "This is a SCRIPTED DEMO: no model is called. It works in a scratch copy of a sample "
    "project ({path}). Ask anything; press Esc mid-answer, type while it works, answer its "
    "permission prompts."
)

WARM_UP_DELAY = 0.6
"""Seconds after the session is ready before the SDK client is made in a thread."""


class SessionHost:
    """Opens the app's session, and replaces it on /clear and /resume.

    The session it builds becomes ``app.session``; the app's main screen is attached to it.

    Args:
        app: the running app.
        emit: the session's emit callback (the app's).
        model: a model to use instead of the API (tests, the demo).
        tools: tools to use instead of the default set (tests: the session is not saved).
    """

    def __init__(
        self,
        app: EddyApp,
        emit: Callable[[ev.Event], None],
        model: Any = None,
        tools: list[Any] | None = None,
    ) -> None:
        self.app = app
        self.emit = emit
        self.model = model
        self.tools = tools
        self.trusted = False
        """Whether the folder's files may be read (agent/settings/trust.py): asked once per run."""
        self._warming = False
        """Whether the session's SDK client is being made (or made) in a thread."""

    # -- start-up -------------------------------------------------------------------------
    def start(self) -> None:
        """Fill the first frame: the status line and the banner (then ``begin``)."""
        app = self.app
        main = app.main
        status = main.status
        if app.args.demo:
            from frontend.demo import DemoModel, prepare_workspace

            app.args = app.args.replace(cwd=prepare_workspace())
            self.model = self.model or DemoModel()
            status.label = "scripted demo"
            main.conversation.add_line(DEMO_BANNER.format(path=app.args.cwd), "banner")
        model = self.model
        status.model = str(getattr(model, "name", "scripted")) if model else app.args.model
        status.mode = app.args.permission_mode
        status.max_budget, status.max_turns = app.args.max_budget_usd, app.args.max_turns
        status.refresh_line()
        main.conversation.add_line(self._banner(), "banner")
        main.workspace = main.prompt.workspace = app.workspace

    def begin(self) -> None:
        """After the first frame: build the session (imports, transcript) in a thread."""
        gc.enable()  # held off while the app started (cli/main.py)
        self.build()

    def build(self) -> None:
        """Build the session ``app.args`` ask for, in a thread worker."""
        self.app.run_worker(self._build_session, thread=True, group="session", exit_on_error=False)

    def _wants_picker(self) -> bool:
        args = self.app.args
        return args.resume == "" and not args.continue_ and self.app.persistent

    def _build_session(self) -> None:
        """In a worker thread: the engine's imports and set-up stay off the input's path."""
        app = self.app
        if not self.trusted:
            from agent.settings.trust import needs_asking

            args = app.args
            if needs_asking(app.workspace, mode=args.permission_mode, demo=args.demo):
                app.call_from_thread(self._ask_trust)  # nothing of the project read yet
                return
            self.trusted = True
        if self._wants_picker():  # eddy --resume without an id: pick first
            from agent.store.listing import list_sessions

            try:
                sessions = list_sessions(app.workspace)
            except OSError:
                sessions = []
            if sessions:
                app.call_from_thread(self._pick_at_start, sessions)
                return
            app.args = app.args.opening()
            app.call_from_thread(
                app.main.say, "No earlier session in this project: this is a new one."
            )
        try:
            opened = build_session(app.args, self.emit, self.model, self.tools)
        except Exception as exc:
            message = f"Could not start the session: {type(exc).__name__}: {exc}"
            app.call_from_thread(app.main.conversation.add_line, message, "error")
            return
        try:  # the turn widgets' modules imported here, not on the UI's thread when
            turn_widget_classes()  # _session_ready registers their CSS; and the command
            import frontend.commands  # noqa: F401  (table, left out of the first frame)
        except Exception:
            pass  # _session_ready imports them as before
        # handled from the message queue (call_later), in the app's own context
        app.call_from_thread(app.call_later, self._session_ready, opened)

    def _ask_trust(self) -> None:
        from tui.screens.trust import TrustScreen

        folder = self.app.workspace

        def answered(yes: bool | None) -> None:
            if not yes:
                self.app.exit(
                    return_code=1,
                    message=f"eddy exited: the files in {folder} are not trusted.",
                )
                return
            from agent.settings.trust import trust

            self.trusted = True  # for this run, even if it cannot be remembered
            try:
                trust(folder)
            except OSError as exc:
                self.app.main.say(f"Could not remember that this folder is trusted: {exc}")
            self.app.main.prompt.focus()
            self.build()

        self.app.push_screen(TrustScreen(folder), answered)

    def _pick_at_start(self, sessions: list[Any]) -> None:
        from tui.screens.resume import ResumeScreen

        def chosen(session_id: str | None) -> None:
            self.app.args = self.app.args.opening(resume=session_id)
            if session_id is None:
                self.app.main.say("A new session.")
            self.app.main.prompt.focus()
            self.build()

        self.app.push_screen(ResumeScreen(sessions), chosen)

    def _session_ready(self, opened: OpenedSession) -> None:
        session, problems = opened.session, opened.problems

        app = self.app
        main = app.main
        app.session = session
        if main.file_index is None:  # after the session's set-up, not competing with it
            app.index_files()
        status = main.status
        shown_model = status.model
        now = session.status()
        status.take_session(now)
        if not now.context_tokens:
            status.context_window = 0  # no context figure before the first call
        if self.model is not None:
            status.model = shown_model  # a scripted model keeps its own name
        status.refresh_line()
        main.workspace = main.prompt.workspace = now.workspace
        if now.messages:
            shown = main.show_history(session.history, session=session)
            hidden = now.messages - shown
            earlier = f"; the {hidden} earlier ones show when you scroll up" if hidden else ""
            main.say(f"Resumed a session of {now.messages} messages{earlier}.")
        for problem in problems:
            main.conversation.add_line(problem, "error")
        from frontend.pickup import pickup_line

        picked = pickup_line(opened.picked_up)
        if picked is not None:
            main.say(picked)
        if app.needs_key:
            from frontend.launch import NO_KEY_MESSAGE

            main.unavailable = NO_KEY_MESSAGE + "\n" + DEMO_NOTE
            main.conversation.add_line(main.unavailable, "error")
            return
        register_turn_css(app)  # before the first prompt mounts its widgets
        # an SDK client takes seconds to make the first time (import anthropic): prompts
        # wait for it in the conversation, not in a frozen event loop
        needs_client = callable(getattr(session.model, "client", None))
        main.connected = not needs_client
        self._warming = False
        main.connect = self._warm_up
        main.attach(session)
        self._ask_mcp_approval(session)
        if app.args.prompt:
            prompt, app.args = app.args.prompt, app.args.replace(prompt=None)
            main.send(prompt)
        if needs_client:  # a little later: the import competes with typing for the GIL
            app.set_timer(WARM_UP_DELAY, self._warm_up)
        else:
            gc.freeze()  # start-up is over (with the SDK: once it is imported)

    def _ask_mcp_approval(self, session: Any) -> None:
        """The project's new MCP servers: ask once (a modal over the ready screen)."""
        from agent.mcp.ask import unanswered
        from agent.mcp.manager import McpManager

        manager = session.extension(McpManager)
        names = unanswered(manager, session.config.workspace)
        if not names:
            return
        from tui.screens.mcp_approval import McpApprovalScreen

        def answered(choice: Any) -> None:
            from agent.mcp.ask import answer

            if choice is None:
                self.app.main.say("MCP: continuing without the project's new servers.")
            else:
                for line in answer(manager, session.config.workspace, names, choice):
                    self.app.main.say(line)
            self.app.main.prompt.focus()

        self.app.push_screen(McpApprovalScreen(names), answered)

    def _warm_up(self) -> None:
        """Make the SDK client in a thread (once per session); the screen sends what waits
        for it as soon as it exists."""
        if self._warming:
            return
        self._warming = True
        app = self.app
        session = app.main.session
        model = session.model if session is not None else None

        def ready() -> None:
            try:
                app.call_from_thread(self._client_ready, session)
            except RuntimeError:  # the app is closing
                pass

        app.run_worker(
            lambda: _warm_up_sdk(model, ready), thread=True, group="warm-up", exit_on_error=False
        )

    def _client_ready(self, session: Any) -> None:
        main = self.app.main
        if main.session is not session:  # a session replaced meanwhile
            return
        sent = main.client_ready()
        preconnect = getattr(getattr(session, "model", None), "preconnect", None)
        # prompts typed while the client was made were held here, not sent: the model's own
        # check (no probe once a request started) would come too late for the one sent now
        if preconnect is not None and not sent:
            self.app.run_worker(preconnect(), group="preconnect", exit_on_error=False)

    def _banner(self) -> str:
        where = Path(self.app.args.cwd or Path.cwd()).name or "/"
        return f"eddy in {where}\n{HELP}"

    # -- switching sessions ---------------------------------------------------------------
    def switch(self, resume: str | None) -> None:
        """Close the session and open ``resume`` (an id), or a new one (/clear)."""
        self.app.run_worker(self._switch(resume), group="switch", exclusive=True)

    async def _switch(self, resume: str | None) -> None:
        app = self.app
        main = app.main
        old, app.session = app.session, None
        main.detach()
        saved = None
        if old is not None:
            last = old.status()
            saved = last.session_id if last.saved else None
            # the model, the transcript, the checkpoint store; SessionEnd says why
            await old.close("clear" if resume is None else "other")
        app.args = app.args.opening(resume=resume, cleared=resume is None)
        await main.reset_conversation()
        status = main.status
        status.cost, status.turns, status.context_tokens, status.context_window = 0.0, 0, 0, 0
        status.cost_before_turn = 0.0
        status.refresh_line()
        if resume is None:
            note = f" The previous one is saved: /resume or eddy --resume {saved}" if saved else ""
            main.say(f"New session: the conversation is empty.{note}")
        self.build()

    def open_resume(self, arg: str = "") -> None:
        """/resume: pick another session of this project (or /resume ID)."""
        app = self.app
        if not app.persistent:
            app.main.say("This session is not saved, so there is nothing to resume here.")
            return
        current = app.session.status().session_id if app.session is not None else None
        if arg:
            from agent.store.listing import find_session

            path = find_session(app.workspace, arg)
            if path is None:
                app.main.say(f"No session {arg!r} in this project (/resume lists them).", "error")
            elif path.name.removesuffix(".jsonl") == current:
                app.main.say("That is the current session.")
            else:
                app.switch_session(path.name.removesuffix(".jsonl"))
            return
        app.run_worker(self._list_for_resume(current), thread=True, group="resume-list")

    def _list_for_resume(self, current: str | None) -> Callable[[], None]:
        app = self.app

        def listing() -> None:
            from agent.store.listing import list_sessions

            try:
                found = [s for s in list_sessions(app.workspace) if s.session_id != current]
            except OSError as exc:
                app.call_from_thread(app.main.say, f"Could not list sessions: {exc}", "error")
                return
            app.call_from_thread(self._pick_to_switch, found)

        return listing

    def _pick_to_switch(self, sessions: list[Any]) -> None:
        from tui.screens.resume import ResumeScreen

        if not sessions:
            self.app.main.say("No other session in this project to resume.")
            return

        def chosen(session_id: str | None) -> None:
            self.app.main.prompt.focus()
            if session_id is not None:
                self.app.switch_session(session_id)

        self.app.push_screen(ResumeScreen(sessions), chosen)


def _warm_up_sdk(model: Any, ready: Callable[[], None]) -> None:
    """Make the SDK client in a thread after the first frame, so the first prompt does not
    wait (``ready`` is called once it exists, or failed to: the first call says why);
    compile the common lexers too."""
    from agent.model.anthropic import prepare_client

    try:
        prepare_client(model)
    finally:
        ready()
    warm_up_highlighting()
    gc.freeze()  # start-up is over: see tui.app.GC_THRESHOLDS


def build_session(
    args: LaunchOptions, emit: Callable[[ev.Event], None], model: Any, tools: Any
) -> OpenedSession:
    """The session for ``args`` (frontend.session_open's, recorded in a transcript).

    With ``tools`` (tests), the same configuration over those tools, not recorded.
    """
    from frontend import session_open

    if tools is None:
        return session_open.open_interactive(args, emit, model=model)
    return session_open.build_session(
        args, emit, headless=False, model=model, persist=False, tools=tools
    )
