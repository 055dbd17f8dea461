"""Completion at the prompt: slash commands, and ``@`` paths of files in the workspace.

Files come from the engine's index (``frontend.fileindex``: ``git ls-files`` or the ignore-aware
walk Glob uses, fuzzy ranking). The list is cached for a few seconds, and prompt-toolkit runs
this completer in a thread, so a large tree never blocks typing.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

MAX_MATCHES = 30
REFRESH_SECONDS = 10.0

_COMMAND = re.compile(r"/[\w-]*")
_MENTION = re.compile(r"(?:^|(?<=\s))@((?:[^\s@]|\\ )*)$")


class WorkspaceFiles:
    """The workspace's files, listed lazily and again after ``ttl`` seconds.

    Args:
        root: the workspace.
        ttl: seconds a listing is reused.
        clock: the time source (tests).
    """

    def __init__(
        self,
        root: Path,
        ttl: float = REFRESH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        self.ttl = ttl
        self.clock = clock
        self._index: object | None = None
        self._listed_at: float | None = None
        self._lock = threading.Lock()

    def match(self, query: str, limit: int = MAX_MATCHES) -> list[str]:
        """The best files for ``query`` (fuzzy: its characters in order)."""
        from frontend.fileindex import FileIndex

        with self._lock:
            now = self.clock()
            if self._index is None or self._listed_at is None or now - self._listed_at > self.ttl:
                self._index = FileIndex.build(self.root)
                self._listed_at = now
            index = self._index
        assert isinstance(index, FileIndex)
        return index.search(query, limit)


class PlainCompleter(Completer):
    """Completes ``/command`` at the start of the prompt and ``@path`` anywhere.

    Args:
        commands: returns command name (with its slash) -> one-line description.
        files: the workspace's files.
    """

    def __init__(self, commands: Callable[[], Mapping[str, str]], files: WorkspaceFiles) -> None:
        self.commands = commands
        self.files = files

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor
        if _COMMAND.fullmatch(before):
            for name, description in sorted(self.commands().items()):
                if name.startswith(before):
                    yield Completion(name, -len(before), display_meta=description)
            return
        mention = _MENTION.search(before)
        if mention is None:
            return
        typed = mention.group(1)
        for rel in self.files.match(typed.replace("\\ ", " ")):
            yield Completion("@" + rel.replace(" ", "\\ "), -len(typed) - 1, display=rel)
