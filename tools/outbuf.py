"""Bounded output buffers: Bash's head-and-tail capture, Grep's line collector.

Both hold at most about their cap however much text goes through them, so a command printing
50 MB, or a search matching every line of a large tree, costs the cap and not the output.
"""

from __future__ import annotations

from collections import deque


class HeadTail:
    """Keeps the first and the last ``max_chars // 2`` characters of a stream, and counts.

    ``text()`` gives everything when it fit, else the head and the tail, cut at line ends, with
    ``... [N lines omitted] ...`` between.
    """

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max(max_chars, 2)
        self._head_cap = self.max_chars // 2
        self._tail_cap = self.max_chars - self._head_cap
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.total_chars = 0
        self.total_newlines = 0

    def feed(self, text: str) -> None:
        """Add a chunk of output."""
        if not text:
            return
        self.total_chars += len(text)
        self.total_newlines += text.count("\n")
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
            if not text:
                return
        keep = self._tail_cap + 1  # one more: is the tail's first character a line start?
        if len(text) > keep:
            text = text[-keep:]
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len - len(self._tail[0]) >= keep:
            self._tail_len -= len(self._tail.popleft())

    @property
    def truncated(self) -> bool:
        """Whether anything was dropped."""
        return self.total_chars > self.max_chars

    def text(self) -> str:
        """The output kept: all of it, or head + omission note + tail."""
        head = "".join(self._head)
        tail = "".join(self._tail)
        if not self.truncated:
            return head + tail
        line_start = len(tail) > self._tail_cap and tail[-self._tail_cap - 1] == "\n"
        tail = tail[-self._tail_cap :]
        cut = head.rfind("\n")
        if cut >= 0:
            head = head[: cut + 1]
        cut = tail.find("\n")
        if not line_start and 0 <= cut < len(tail) - 1:
            tail = tail[cut + 1 :]
        omitted_lines = self.total_newlines - head.count("\n") - tail.count("\n")
        if omitted_lines > 0:
            note = f"... [{omitted_lines} lines omitted] ..."
        else:
            note = f"... [{self.total_chars - len(head) - len(tail)} characters omitted] ..."
        if head and not head.endswith("\n"):
            head += "\n"
        return f"{head}{note}\n{tail}"


class LineCollector:
    """Collects output lines up to a number of lines and of characters, after skipping some.

    Args:
        max_lines: lines kept at most (None: no count cap).
        max_chars: characters kept at most (the first line is kept whatever its length).
        max_line_chars: a longer line is cut, with a note of what was cut.
        skip: the first ``skip`` lines are dropped, and count toward no cap (``offset``).

    Attributes:
        lines: the lines kept.
        truncated: whether a line was refused (more output exists than was kept).
        skipped: how many lines were dropped by ``skip``.
    """

    def __init__(
        self, max_lines: int | None, max_chars: int, max_line_chars: int, skip: int = 0
    ) -> None:
        self.max_lines = max_lines
        self.max_chars = max_chars
        self.max_line_chars = max_line_chars
        self.lines: list[str] = []
        self.truncated = False
        self.skipped = 0
        self._skip = skip
        self._chars = 0
        self._pending = ""
        self._pending_len = 0

    def add(self, line: str, length: int | None = None) -> bool:
        """Keep ``line`` (of full length ``length``) if it fits; False once full."""
        if self.truncated:
            return False
        if self._skip:
            self._skip -= 1
            self.skipped += 1
            return True
        if self.max_lines is not None and len(self.lines) >= self.max_lines:
            self.truncated = True
            return False
        length = len(line) if length is None else length
        if length > self.max_line_chars:
            line = f"{line[: self.max_line_chars]}… [{length - self.max_line_chars} more chars]"
        if self._chars + len(line) + 1 > self.max_chars and self.lines:
            self.truncated = True
            return False
        self.lines.append(line)
        self._chars += len(line) + 1
        return True

    def feed(self, text: str) -> bool:
        """Add streamed text (lines end with ``\\n``); False once full."""
        parts = text.split("\n")
        for part in parts[:-1]:
            line = self._pending + part[: self.max_line_chars + 1]
            length = self._pending_len + len(part)
            self._pending, self._pending_len = "", 0
            if not self.add(line, length):
                return False
        last = parts[-1]
        room = self.max_line_chars + 1 - len(self._pending)
        if room > 0:
            self._pending += last[:room]
        self._pending_len += len(last)
        return True

    def close(self) -> None:
        """Flush a last line that had no line break."""
        if self._pending_len:
            self.add(self._pending, self._pending_len)
            self._pending, self._pending_len = "", 0
