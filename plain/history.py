"""The prompt history shared with the TUI: one JSONL file per project.

The TUI's ``PromptHistory`` (``frontend/prompt_history.py``, no Textual import) owns the
file format; this adapts it to prompt-toolkit's ``History``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.history import History

from agent.paths import project_data_dir
from frontend.prompt_history import PromptHistory

HISTORY_FILE = "prompt_history.jsonl"


def history_path(cwd: Path | None, demo: bool = False) -> Path:
    """The project's history file (the demo shares one, as in the TUI)."""
    if demo:
        return project_data_dir(Path(tempfile.gettempdir()) / "eddy-demo") / HISTORY_FILE
    return project_data_dir(Path(cwd or Path.cwd())) / HISTORY_FILE


class SharedHistory(History):
    """prompt-toolkit history over the TUI's file.

    Args:
        path: the JSONL file (None: in memory only).
        record: asked before each entry is stored; answers to questions (y / n, a rewind
            number) return False and stay out of the history.
    """

    def __init__(self, path: Path | None, record: Callable[[], bool] = lambda: True) -> None:
        super().__init__()
        self.store = PromptHistory(path)
        self._record = record

    def load_history_strings(self) -> Iterable[str]:
        return list(reversed(self.store.entries))  # newest first

    def append_string(self, string: str) -> None:
        if self._record():
            super().append_string(string)

    def store_string(self, string: str) -> None:
        self.store.append(string)
