"""The Textual app: ``eddy`` without ``-p``.

Start-up is kept short: the first frame needs only Textual and the widgets; the session (tools,
system prompt) is built right after it, and ``anthropic`` is imported in a thread worker after
that, so the first prompt does not pay for it either. The file list behind @-completion is
built in another thread worker once the session is ready (or at the first ``@``).

``eddy --resume`` without an id shows the resume picker before the session is built; /resume
and /clear close the session and build the chosen (or a new) one.
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding, BindingType

from agent import events as ev
from agent.paths import config_dir, project_data_dir
from themes import DEFAULT_THEME, MONOCHROME_THEME, THEMES
from tui.commands import SlashCommands
from tui.screens.main import MainScreen
from tui.widgets.prompt_history import PromptHistory

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
GC_THRESHOLDS = (20_000, 20, 50)
"""The collector's thresholds while the app runs. Textual and a streaming answer allocate
hundreds of thousands of short-lived objects a second: with Python's defaults (700, 10, 10)
collections ran hundreds of times per long answer, and full ones took 100+ ms (a frozen
screen, late keys). Start-up's objects are also frozen (gc.freeze) once it is over, so full
collections do not walk Textual's, the SDK's and the session's long-lived objects again."""
"""Seconds after the session is ready before ``anthropic`` is imported in a thread."""


def settings_path() -> Path:
    """The TUI's settings file (the theme choice)."""
    return config_dir() / "tui.json"


def load_settings() -> dict[str, Any]:
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_settings(settings: dict[str, Any]) -> None:
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    except OSError:
        pass


class EddyApp(App[int]):
    """The full-screen agent.

    Args:
        args: the parsed command line (agent/cli.py).
        model: a model to use instead of the API (tests inject a ScriptedModel).
        tools: tools to use instead of the default set.
        frozen_clock: freeze time (snapshot tests): no spinner, no elapsed time, no blinking.
        event_hook: also receives every engine event (tests wait on it).
    """

    CSS_PATH = "app.tcss"
    TITLE = "eddy"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "stop", priority=True, show=False),
        Binding("shift+tab", "cycle_mode", "permission mode", priority=True, show=False),
        Binding("ctrl+o", "toggle_output", "expand output", show=False),
        Binding("ctrl+d", "quit", "quit", show=False),
    ]

    def __init__(
        self,
        args: argparse.Namespace,
        *,
        model: Any = None,
        tools: list[Any] | None = None,
        frozen_clock: bool = False,
        event_hook: Callable[[ev.Event], None] | None = None,
    ) -> None:
        super().__init__()
        if getattr(args, "model", None) is None:  # agent.cli.main resolves it; tests may not
            import os

            from agent.pricing import DEFAULT_MODEL

            args.model = os.environ.get("EDDY_MODEL") or DEFAULT_MODEL
        self.args = args
        self.session: Any = None
        self.problems: list[str] = []
        self._model = model
        self._tools = tools
        self._event_hook = event_hook
        self.frozen_clock = frozen_clock
        self.clock: Callable[[], float] = (lambda: 0.0) if frozen_clock else time.monotonic
        self._expanded = False
        self._settings = load_settings()
        self.commands = SlashCommands(self)
        self._indexing = False
        self.main = MainScreen(
            PromptHistory(self._history_path()),
            self.clock,
            frozen=frozen_clock,
            on_command=self.run_command,
        )
        self.main.index_files = self._index_files
        for theme in THEMES:
            self.register_theme(theme)
        chosen = self._settings.get("theme")
        if self.no_color:
            self.theme = MONOCHROME_THEME
        elif isinstance(chosen, str) and chosen in self.available_themes:
            self.theme = chosen
        else:
            self.theme = DEFAULT_THEME

    @property
    def needs_key(self) -> bool:
        from agent.cli import has_api_key

        return self._model is None and not has_api_key()

    @property
    def workspace(self) -> Path:
        """The directory the session works in."""
        return Path(self.args.cwd or Path.cwd()).resolve()

    @property
    def persistent(self) -> bool:
        """Whether sessions are saved (tests that inject tools run unsaved sessions)."""
        return self._tools is None

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # eddy's own variables, for Textual's built-in themes (the command palette offers them)
        return {
            "diff-added": "green 20%",
            "diff-removed": "red 20%",
            "hint": "cyan",
            "dim-text": "grey",
        }

    # -- start-up -------------------------------------------------------------------------
    def get_default_screen(self) -> MainScreen:
        return self.main

    def on_mount(self) -> None:
        gc.set_threshold(*GC_THRESHOLDS)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.call_after_refresh(self._start_session)

    def _history_path(self) -> Path:
        if self.args.demo:
            return project_data_dir(Path(tempfile.gettempdir()) / "eddy-demo") / (
                "prompt_history.jsonl"
            )
        return project_data_dir(Path(self.args.cwd or Path.cwd())) / "prompt_history.jsonl"

    def _start_session(self) -> None:
        """Show the banner now; build the session (imports, transcript) in a thread."""
        main = self.main
        status = main.status
        if self.args.demo:
            from agent.demo import DemoModel, prepare_workspace

            self.args.cwd = prepare_workspace()
            self._model = self._model or DemoModel()
            status.label = "scripted demo"
            main.conversation.add_line(DEMO_BANNER.format(path=self.args.cwd), "banner")
        model = self._model
        status.model = str(getattr(model, "name", "scripted")) if model else self.args.model
        status.mode = self.args.permission_mode
        status.max_budget, status.max_turns = self.args.max_budget_usd, self.args.max_turns
        status.refresh_line()
        main.conversation.add_line(self._banner(), "banner")
        main.workspace = self.workspace
        self._build()

    def _build(self) -> None:
        self.run_worker(self._build_session, thread=True, group="session", exit_on_error=False)

    def _wants_picker(self) -> bool:
        args = self.args
        return args.resume == "" and not args.continue_ and self.persistent

    def _build_session(self) -> None:
        """In a worker thread: the engine's imports and set-up stay off the input's path."""
        if self._wants_picker():  # eddy --resume without an id: pick first
            from agent.store_list import list_sessions

            try:
                sessions = list_sessions(self.workspace)
            except OSError:
                sessions = []
            if sessions:
                self.call_from_thread(self._pick_at_start, sessions)
                return
            self.args.resume = None
            self.call_from_thread(
                self.main.say, "No earlier session in this project: this is a new one."
            )
        try:
            session, problems = build_session(self.args, self._emit, self._model, self._tools)
        except Exception as exc:
            message = f"Could not start the session: {type(exc).__name__}: {exc}"
            self.call_from_thread(self.main.conversation.add_line, message, "error")
            return
        # handled from the message queue (call_later), in the app's own context
        self.call_from_thread(self.call_later, self._session_ready, session, problems)

    def _pick_at_start(self, sessions: list[Any]) -> None:
        from tui.screens.resume import ResumeScreen

        def chosen(session_id: str | None) -> None:
            self.args.resume = session_id
            if session_id is None:
                self.main.say("A new session.")
            self.main.prompt.focus()
            self._build()

        self.push_screen(ResumeScreen(sessions), chosen)

    def _session_ready(self, session: Any, problems: list[str]) -> None:
        from agent.pricing import context_window

        main = self.main
        self.session = session
        if main.file_index is None:  # after the session's set-up, not competing with it
            self._index_files()
        status = main.status
        status.mode = session.config.policy.mode
        status.cost, status.turns = session.total_cost, session.turn_count
        limits = session.config.limits
        status.max_budget, status.max_turns = limits.max_budget_usd, limits.max_turns
        if session.context_tokens:
            status.context_tokens = session.context_tokens
            status.context_window = context_window(session.config.model)
        if self._model is None:
            status.model = session.config.model
        status.refresh_line()
        main.workspace = session.config.workspace
        if session.history:
            shown = main.show_history(session.history)
            hidden = len(session.history) - shown
            earlier = f"; the {hidden} earlier ones show when you scroll up" if hidden else ""
            main.say(f"Resumed a session of {len(session.history)} messages{earlier}.")
        for problem in problems:
            main.conversation.add_line(problem, "error")
        if self.needs_key:
            from agent.cli import NO_KEY_MESSAGE

            main.unavailable = NO_KEY_MESSAGE + "\n" + DEMO_NOTE
            main.conversation.add_line(main.unavailable, "error")
            return
        main.attach(session)
        if self.args.prompt:
            prompt, self.args.prompt = self.args.prompt, None
            main.send(prompt)
        if self._model is None:  # a little later: the import competes with typing for the GIL
            self.set_timer(WARM_UP_DELAY, self._warm_up)
        else:
            gc.freeze()  # start-up is over (with the SDK: once it is imported)

    # -- switching sessions ---------------------------------------------------------------
    def switch_session(self, resume: str | None) -> None:
        """Close the session and open ``resume`` (an id), or a new one (/clear)."""
        self.run_worker(self._switch(resume), group="switch", exclusive=True)

    async def _switch(self, resume: str | None) -> None:
        main = self.main
        old, self.session = self.session, None
        main.detach()
        saved = None
        if old is not None:
            saved = old.config.session_id if old.transcript is not None else None
            await old.close()
            if old.transcript is not None:
                old.transcript.close()
        args = self.args
        args.continue_, args.resume, args.fork_session, args.session_id = (
            False,
            resume,
            False,
            None,
        )
        await main.reset_conversation()
        status = main.status
        status.cost, status.turns, status.context_tokens, status.context_window = 0.0, 0, 0, 0
        status.refresh_line()
        if resume is None:
            note = f" The previous one is saved: /resume or eddy --resume {saved}" if saved else ""
            main.say(f"New session: the conversation is empty.{note}")
        self._build()

    def open_resume(self, arg: str = "") -> None:
        """/resume: pick another session of this project (or /resume ID)."""
        if not self.persistent:
            self.main.say("This session is not saved, so there is nothing to resume here.")
            return
        current = self.session.config.session_id if self.session is not None else None
        if arg:
            from agent.store_list import find_session

            path = find_session(self.workspace, arg)
            if path is None:
                self.main.say(f"No session {arg!r} in this project (/resume lists them).", "error")
            elif path.name.removesuffix(".jsonl") == current:
                self.main.say("That is the current session.")
            else:
                self.switch_session(path.name.removesuffix(".jsonl"))
            return
        self.run_worker(self._list_for_resume(current), thread=True, group="resume-list")

    def _list_for_resume(self, current: str | None) -> Callable[[], None]:
        def listing() -> None:
            from agent.store_list import list_sessions

            try:
                found = [s for s in list_sessions(self.workspace) if s.session_id != current]
            except OSError as exc:
                self.call_from_thread(self.main.say, f"Could not list sessions: {exc}", "error")
                return
            self.call_from_thread(self._pick_to_switch, found)

        return listing

    def _pick_to_switch(self, sessions: list[Any]) -> None:
        from tui.screens.resume import ResumeScreen

        if not sessions:
            self.main.say("No other session in this project to resume.")
            return

        def chosen(session_id: str | None) -> None:
            self.main.prompt.focus()
            if session_id is not None:
                self.switch_session(session_id)

        self.push_screen(ResumeScreen(sessions), chosen)

    # -- the file index (@-completion) ------------------------------------------------------
    def _index_files(self) -> None:
        """List the workspace's files in a thread (again when asked, one listing at a time)."""
        if self._indexing:
            return
        self._indexing = True
        self.run_worker(self._build_index, thread=True, group="file-index", exit_on_error=False)

    def _build_index(self) -> None:
        from agent.fileindex import FileIndex

        try:
            index = FileIndex.build(self.workspace)
        except Exception:  # completion is a convenience: never a crash
            index = None
        self.call_from_thread(self._index_ready, index)

    def _index_ready(self, index: Any) -> None:
        self._indexing = False
        if index is not None:
            self.main.set_file_index(index)

    def _warm_up(self) -> None:
        self.run_worker(_warm_up_sdk, thread=True, group="warm-up", exit_on_error=False)

    def _banner(self) -> str:
        where = Path(self.args.cwd or Path.cwd()).name or "/"
        return f"eddy in {where}\n{HELP}"

    # -- engine events --------------------------------------------------------------------
    def _emit(self, event: ev.Event) -> None:
        """The session's emit callback: same thread, same loop; render, never crash."""
        if self._event_hook is not None:
            self._event_hook(event)
        try:
            self.main.handle_event(event)
        except Exception as exc:  # a rendering bug must not take the session down
            self.log.error(f"rendering {event.type} failed: {exc!r}")
            try:
                self.main.conversation.add_line(
                    f"Could not display a {event.type} event ({type(exc).__name__}: {exc}). "
                    "The session goes on; this is a bug in eddy's display.",
                    "error",
                )
            except Exception:
                pass

    # -- actions and commands -------------------------------------------------------------
    def action_escape(self) -> None:
        if self.screen is not self.main:
            raise SkipAction()  # the command palette or another modal closes itself
        self.main.escape()

    def action_toggle_output(self) -> None:
        self._expanded = not self._expanded
        self.main.conversation.set_expanded(self._expanded)

    def action_cycle_mode(self) -> None:
        if self.screen is not self.main:
            raise SkipAction()
        self.main.cycle_mode()

    def run_command(self, text: str) -> bool:
        """Run a slash command; False when ``text`` is not one of ours (it goes to the model)."""
        return self.commands.run(text)

    def _theme_changed(self, theme: Any) -> None:
        if self.no_color:
            return  # forced monochrome is not the user's choice
        self._settings["theme"] = theme.name
        save_settings(self._settings)

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()
            if self.session.transcript is not None:
                self.session.transcript.close()


def _warm_up_sdk() -> None:
    """Import the SDK in a thread after the first frame, so the first prompt does not wait."""
    import anthropic  # noqa: F401

    gc.freeze()  # start-up is over: see GC_THRESHOLDS


def build_session(
    args: argparse.Namespace, emit: Callable[[ev.Event], None], model: Any, tools: Any
) -> tuple[Any, list[str]]:
    """The session for ``args`` (agent.factory's, recorded in a transcript).

    With ``tools`` (tests), the same configuration over those tools, not recorded.
    """
    from agent import factory

    if tools is None:
        try:
            return factory.build_session(args, emit, headless=False, model=model)
        except factory.SessionSetupError as exc:
            args.continue_, args.resume, args.fork_session = False, None, False
            session, problems = factory.build_session(args, emit, headless=False, model=model)
            return session, [f"{exc} This is a new session.", *problems]
    from agent.session import Session

    base, problems = factory.build_session(args, emit, headless=False, model=model, persist=False)
    return Session(base.config, base.model, tools, emit), problems


def run_app(args: argparse.Namespace) -> int:
    """Run the app until the user quits; the terminal is restored however it ends."""
    app = EddyApp(args)
    result = app.run()  # Textual restores the terminal on exit and on a crash
    return int(result or app.return_code or 0)
