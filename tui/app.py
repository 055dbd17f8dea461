"""The Textual app: ``eddy`` without ``-p``.

Start-up is kept short: the first frame needs only Textual and the widgets; the session is
built right after it (tui/session_host.py, which also switches sessions on /clear and
/resume). The file list behind @-completion is built in a thread worker once the session is
ready (or at the first ``@``).
"""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import events
from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding, BindingType
from textual.driver import Driver

from agent import events as ev
from agent import ops
from agent.paths import project_data_dir
from frontend.launch import LaunchOptions
from frontend.prompt_history import PromptHistory
from themes import DEFAULT_THEME, MONOCHROME_THEME, THEMES
from tui.commands import SlashCommands
from tui.screens.main import MainScreen
from tui.session_host import SessionHost
from tui.settings import load_settings, save_settings
from tui.termination import handle_signals
from tui.typeahead import Typeahead, hold_first_frame

__all__ = ["GC_THRESHOLDS", "EddyApp", "run_app"]

GC_THRESHOLDS = (2_000, 10, 10)
"""The collector's thresholds while the app runs. Textual and a streaming answer allocate
hundreds of thousands of short-lived objects a second: with Python's defaults (700, 10, 10)
young collections ran hundreds of times per long answer, and full ones walked every object
for 100+ ms (a frozen screen, late keys). Start-up's objects are frozen (gc.freeze,
tui/session_host.py) once it is over, so full collections do not walk Textual's, the SDK's and
the session's long-lived objects again; the first generation collects a bit less often.
Measured (bench_tui and a loop-lag probe): loop-lag p99 at 2,000 tok/s 70 -> 35-50 ms, RSS
after 200 turns 86 MB (79 MB with the defaults). Raising the older generations' thresholds
too (20000, 20, 50) cut the lag further but let cyclic garbage grow without bound (290 MB
after 500 turns)."""


class EddyApp(App[int]):
    """The full-screen agent.

    Args:
        args: the parsed command line (cli/main.py).
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
        Binding("ctrl+b", "background", "send Bash to the background", priority=True, show=False),
        # priority: the prompt's TextArea binds both (copy, delete right) and would win
        Binding("ctrl+c", "ctrl_c", "stop / clear / quit", priority=True, show=False),
        Binding("ctrl+d", "ctrl_d", "quit", priority=True, show=False),
        # the conversation scrolls from the keyboard while the prompt keeps the focus (over
        # ssh there may be no mouse); priority, since the prompt binds these keys too
        *(
            Binding(key, f"scroll_conversation('{how}')", priority=True, show=False)
            for key, how in (
                ("pageup", "page_up"),
                ("pagedown", "page_down"),
                ("shift+up", "up"),
                ("shift+down", "down"),
                ("ctrl+home", "home"),
                ("ctrl+end", "end"),
            )
        ),
    ]

    def __init__(
        self,
        args: LaunchOptions,
        *,
        model: Any = None,
        tools: list[Any] | None = None,
        frozen_clock: bool = False,
        event_hook: Callable[[ev.Event], None] | None = None,
    ) -> None:
        super().__init__()
        self.args = args
        self.session: Any = None
        self._no_color: Any = None
        self.saved_session: str | None = None
        self.stopping: str | None = None
        """The background work the exit stopped (``frontend.bashes.stopping_line``)."""
        """The id of the session saved at exit (the resume hint names it)."""
        self.end_reason = "other"
        """SessionEnd's reason at exit: ``prompt_input_exit`` when the user quit at the prompt."""
        self.problems: list[str] = []
        self._event_hook = event_hook
        self.session_host = SessionHost(self, self._emit, model, tools)
        self.frozen_clock = frozen_clock
        self.clock: Callable[[], float] = (lambda: 0.0) if frozen_clock else time.monotonic
        self._expanded = False
        self._settings = load_settings()
        self.commands = SlashCommands(self)
        self._indexing = False
        self.typeahead = Typeahead()
        """Keys typed before the prompt exists (tui/typeahead.py)."""
        self.main = MainScreen(
            PromptHistory(self._history_path()),
            self.clock,
            frozen=frozen_clock,
            on_command=self.run_command,
        )
        self.main.index_files = self.index_files
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
        from frontend.launch import has_api_key

        return self.session_host.model is None and not has_api_key()

    @property
    def workspace(self) -> Path:
        """The directory the session works in."""
        return Path(self.args.cwd or Path.cwd()).resolve()

    @property
    def persistent(self) -> bool:
        """Whether sessions are saved (tests that inject tools run unsaved sessions)."""
        return self.session_host.tools is None

    def get_line_filters(self) -> Any:
        """Under NO_COLOR no colour code at all (https://no-color.org): Textual's own filter
        paints greys; this one keeps only bold, reverse and the like."""
        filters = list(super().get_line_filters())
        if not self.no_color:
            return filters
        from textual.filter import Monochrome

        return [f for f in filters if not isinstance(f, Monochrome)] + [self._no_color_filter]

    @property
    def _no_color_filter(self) -> Any:
        from textual.filter import NoColor

        if self._no_color is None:
            self._no_color = NoColor()
        return self._no_color

    def get_system_commands(self, screen: Any) -> Any:
        """The command palette: eddy's slash commands first, then Textual's entries."""
        from tui.palette import slash_commands

        yield from slash_commands(self)
        yield from super().get_system_commands(screen)

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

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux/macOS one that quits without waiting
        for its input thread (tui/driver.py). A driver chosen by TEXTUAL_DRIVER is kept."""
        chosen = super().get_driver_class()
        if chosen.__module__ == "textual.drivers.linux_driver" and chosen.__name__ == "LinuxDriver":
            from tui.driver import QuickExitDriver  # termios: not imported on Windows

            return QuickExitDriver
        return chosen

    def on_mount(self) -> None:
        gc.set_threshold(*GC_THRESHOLDS)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.main.when_mounted = self._first_frame  # the screen mounts after the app
        handle_signals(self)

    async def _first_frame(self) -> None:
        """The banner is in the first frame, and the prompt is focused: the keys typed
        before are handled now; the session is built once the frame is drawn (its imports,
        in a thread, would compete with drawing it for the GIL)."""
        await hold_first_frame(self.typeahead)  # tests only: see tui/typeahead.py
        # after the input queued meanwhile, which is still kept: the order stays as typed
        self.call_later(self._release_typeahead)
        self.session_host.start()
        self.call_after_refresh(self.session_host.begin)

    async def on_event(self, event: events.Event) -> None:
        if self.typeahead.keep(event):
            return  # before the prompt exists: handled by _release_typeahead
        await super().on_event(event)

    async def _release_typeahead(self) -> None:
        for event in self.typeahead.release():
            await super().on_event(event)

    def _history_path(self) -> Path:
        if self.args.demo:
            return project_data_dir(Path(tempfile.gettempdir()) / "eddy-demo") / (
                "prompt_history.jsonl"
            )
        return project_data_dir(Path(self.args.cwd or Path.cwd())) / "prompt_history.jsonl"

    # -- switching sessions (tui/session_host.py) -------------------------------------------
    def switch_session(self, resume: str | None) -> None:
        """Close the session and open ``resume`` (an id), or a new one (/clear)."""
        self.session_host.switch(resume)

    def open_resume(self, arg: str = "") -> None:
        """/resume: pick another session of this project (or /resume ID)."""
        self.session_host.open_resume(arg)

    # -- the file index (@-completion) ------------------------------------------------------
    def index_files(self) -> None:
        """List the workspace's files in a thread (again when asked, one listing at a time)."""
        if self._indexing:
            return
        self._indexing = True
        self.run_worker(self._build_index, thread=True, group="file-index", exit_on_error=False)

    def _build_index(self) -> None:
        from frontend.fileindex import FileIndex

        try:
            index = FileIndex.build(self.workspace)
        except Exception:  # completion is a convenience: never a crash
            index = None
        self.call_from_thread(self._index_ready, index)

    def _index_ready(self, index: Any) -> None:
        self._indexing = False
        if index is not None:
            self.main.set_file_index(index)

    # -- engine events --------------------------------------------------------------------
    def _emit(self, event: ev.Event) -> None:
        """The session's emit callback: same thread, same loop; render, never crash."""
        if self._event_hook is not None:
            self._event_hook(event)
        try:
            self.main.router.handle(event)
        except Exception as exc:  # a rendering bug must not take the session down
            self.report_render_error(event.type, exc)

    def report_render_error(self, what: str, exc: Exception) -> None:
        """Say that showing a ``what`` event failed; the session goes on."""
        self.log.error(f"rendering {what} failed: {exc!r}")
        try:
            self.main.conversation.add_line(
                f"Could not display a {what} event ({type(exc).__name__}: {exc}). "
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

    def action_ctrl_c(self) -> None:
        prompt = self.main.prompt
        if self.screen is not self.main or (prompt.has_focus and prompt.selected_text):
            raise SkipAction()  # a dialog's own key, or the prompt copies its selection
        if self.main.ctrl_c():
            self.quit_app()

    def action_ctrl_d(self) -> None:
        prompt = self.main.prompt
        if self.screen is not self.main or prompt.text or not prompt.has_focus:
            raise SkipAction()  # not an empty prompt: the focused widget's Ctrl+D
        self.quit_app()

    def action_background(self) -> None:
        session = self.main.session
        if self.screen is not self.main or session is None or not session.busy:
            raise SkipAction()  # nothing runs: the focused widget's Ctrl+B
        session.submit(ops.SendToBackground())

    def action_scroll_conversation(self, how: str) -> None:
        if self.screen is not self.main:
            raise SkipAction()  # a dialog's list scrolls itself
        self.main.scroll_conversation(how)

    def quit_app(self) -> None:
        """Quit as /exit does (the session is closed and saved on the way out)."""
        self.end_reason = "prompt_input_exit"  # SessionEnd's: the user quit at the prompt
        self.exit(0)

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
        await self.main.status_script.close()  # a running statusLine script is killed
        if self.session is not None:
            now = self.session.status()
            # the demo's scratch folder is removed at exit: its session cannot be resumed
            if now.saved and now.messages and not self.args.demo:
                self.saved_session = now.session_id
            from frontend.bashes import stopping_line

            self.stopping = stopping_line(self.session)  # said once the screen is back
            # the model, the transcript, the checkpoint store
            await self.session.close(self.end_reason)


def run_app(args: LaunchOptions) -> int:
    """Run the app until the user quits; the terminal is restored however it ends."""
    app = EddyApp(args)
    result = app.run()  # Textual restores the terminal on exit and on a crash
    if app.stopping is not None:
        print(app.stopping)
    if app.saved_session is not None:  # as line mode says it, once the screen is back
        print(f"Session saved: eddy --resume {app.saved_session}")
    return int(result or app.return_code or 0)
