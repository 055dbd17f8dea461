"""Prompt history, persisted per project as JSONL (one ``{"text": ...}`` per line)."""

from __future__ import annotations

import json
from pathlib import Path

MAX_ENTRIES = 500
"""Entries loaded (and kept when the file is rewritten)."""


class PromptHistory:
    """Past prompts, oldest first, with a cursor for Up/Down browsing.

    Args:
        path: the JSONL file (created on first append); None keeps history in memory only.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[str] = self._load()
        self._cursor: int | None = None
        self._draft = ""

    def _load(self) -> list[str]:
        if self.path is None:
            return []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        out = []
        for line in lines[-MAX_ENTRIES:]:
            try:
                text = json.loads(line).get("text")
            except (ValueError, AttributeError):
                continue  # a torn line from a crash: skip it
            if isinstance(text, str) and text:
                out.append(text)
        return out

    def append(self, text: str) -> None:
        """Record a sent prompt (consecutive duplicates are kept once)."""
        self._cursor = None
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        del self.entries[:-MAX_ENTRIES]
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
        except OSError:
            pass  # history is a convenience; never fail a prompt over it

    def older(self, draft: str) -> str | None:
        """The previous entry (remembering ``draft`` when browsing starts), or None at the top."""
        if not self.entries:
            return None
        if self._cursor is None:
            self._draft = draft
            self._cursor = len(self.entries)
        if self._cursor == 0:
            return None
        self._cursor -= 1
        return self.entries[self._cursor]

    def newer(self) -> str | None:
        """The next entry, the saved draft past the newest, or None when not browsing."""
        if self._cursor is None:
            return None
        self._cursor += 1
        if self._cursor >= len(self.entries):
            self._cursor = None
            return self._draft
        return self.entries[self._cursor]

    def reset(self) -> None:
        self._cursor = None
