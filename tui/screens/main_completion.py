"""Completion at the main screen's prompt: ``/command`` names and ``@path`` file names.

``CompletingScreen`` is the main screen's base (tui/screens/main.py): it offers the candidates
for the token at the cursor. Commands come from the command table; paths from the workspace's
file list, which the app builds in a thread and lists again when it is old or a turn may have
changed the files. A large list is searched in a thread too, so a keystroke never waits.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen

from tui.widgets.prompt.completion import Candidate, CompletionMenu, Token, path_candidate, token_at
from tui.widgets.prompt.prompt_input import PromptInput

if TYPE_CHECKING:
    from collections.abc import Callable

    from frontend.fileindex import FileIndex

INDEX_MAX_AGE = 30.0
"""Seconds before the file list behind @-completion is listed again (in the background)."""
MAX_PATHS = 12
SEARCH_IN_THREAD_ABOVE = 5000
"""File lists longer than this are searched in a thread, off the keystroke's path."""


class CompletingScreen(Screen[None]):
    """A screen whose prompt completes commands and paths (the main screen sets these up)."""

    prompt: PromptInput
    completion: CompletionMenu
    workspace: Path | None
    """The session's workspace (set by the app): custom commands live there."""

    def __init__(self) -> None:
        super().__init__()
        self.file_index: FileIndex | None = None
        """The workspace's files for @-completion (built by the app in a thread)."""
        self.index_files: Callable[[], None] | None = None
        """Asks the app to list the files again (in the background)."""
        self.index_built_at = 0.0
        self.index_stale = False
        """The file list may be out of date (a turn ran): listed again at the next ``@``."""
        self._path_query: Token | None = None
        self._searching = False

    def complete(self, token: Token) -> list[Candidate] | None:
        """Candidates for the ``/command`` or ``@path`` at the prompt's cursor.

        None when a large file list is searched in a thread: the menu shows the result when
        it comes (a keystroke never waits for a search of 100,000 paths).
        """
        if token.kind == "command":
            from frontend.commands import completions, session_plugins

            workspace = self.workspace or Path.cwd()
            try:
                plugins = session_plugins(getattr(self, "session", None))
                found = completions(token.query, workspace, plugins)
            except OSError:
                found = []
            return [Candidate(name, name, description) for name, description in found]
        stale = self.index_stale or time.monotonic() - self.index_built_at > INDEX_MAX_AGE
        if (self.file_index is None or stale) and self.index_files is not None:
            self.index_stale = False
            self.index_files()
        index = self.file_index
        if index is None:
            return []
        if len(index.files) <= SEARCH_IN_THREAD_ABOVE:
            return [path_candidate(p) for p in index.search(token.query, MAX_PATHS)]
        self._path_query = token
        if not self._searching:
            self._search_paths(index, token)
        return None

    def _search_paths(self, index: FileIndex, token: Token) -> None:
        """Search ``index`` in a thread; one search at a time, the newest query next."""
        self._searching = True
        app = self.app

        def search() -> None:
            try:
                found = index.search(token.query, MAX_PATHS)
            except Exception:
                found = []
            try:
                app.call_from_thread(self._paths_found, token, found)
            except RuntimeError:  # the app is closing
                pass

        self.run_worker(search, thread=True, group="path-search", exit_on_error=False)

    def _paths_found(self, token: Token, found: list[str]) -> None:
        self._searching = False
        latest = self._path_query
        if latest is not None and latest != token and self.file_index is not None:
            self._search_paths(self.file_index, latest)
            return
        self._path_query = None
        current = token_at(self.prompt.text, self.prompt.cursor_location)
        if current is not None and (current.kind, current.row, current.start, current.query) == (
            token.kind,
            token.row,
            token.start,
            token.query,
        ):
            self.completion.show(current, [path_candidate(p) for p in found])

    def set_file_index(self, index: FileIndex) -> None:
        """The app listed the workspace's files: use them (and refresh an open menu)."""
        self.file_index = index
        self.index_built_at = time.monotonic()
        if self.completion.shown or self.prompt.has_focus:
            token = token_at(self.prompt.text, self.prompt.cursor_location)
            if token is not None and token.kind == "path":
                self.prompt.update_completion()
