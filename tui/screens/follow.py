"""A read-only screen that follows a file growing while something runs in the background: a
background shell's output (``/bashes ID``), a subagent's transcript (its Agent block).

The screen shows what its subclass makes of the file (``shown``), and shows it again whenever
the kernel says the file was written (``DirectoryWatch``: inotify, the watcher the checkpoint
engine uses, read by the event loop: no thread, no timer), until the subclass says the end is
recorded; then it stops watching. Writes that come faster than ``MIN_GAP`` apart are shown
together (bounded work, however fast the file grows). Where inotify cannot watch the file's
directory (not Linux, the directory does not exist, the limit of watches) it falls back to
checking every ``POLL_SECONDS``. A reader at the bottom stays at the bottom as lines arrive.
Esc or q closes it; nothing here writes the file.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.timer import Timer

try:  # Linux only: elsewhere the screen polls
    import inotify_simple
except (ImportError, AttributeError, OSError):  # pragma: no cover - not Linux
    inotify_simple = None

POLL_SECONDS = 0.5
"""How often the file is checked where it cannot be watched."""
MIN_GAP = 0.05
"""The least time between two readings of a file that keeps being written."""


class DirectoryWatch:
    """Calls ``on_change`` (on the event loop) when a file of ``directory`` whose name starts
    with ``prefix`` is written, created or moved in. Use :meth:`open`.

    Args:
        inotify: the inotify instance (owned: closed by :meth:`close`).
        prefix: the names that count.
        on_change: what to call, once per batch of events.
    """

    def __init__(self, inotify: Any, prefix: str, on_change: Callable[[], None]) -> None:
        self._inotify = inotify
        self._prefix = prefix
        self._on_change = on_change
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def open(
        cls, directory: Path, prefix: str, on_change: Callable[[], None]
    ) -> DirectoryWatch | None:
        """A watch over ``directory``, read by the running loop; None where it cannot be had."""
        if inotify_simple is None:  # pragma: no cover - not Linux
            return None
        flags = inotify_simple.flags
        mask = flags.MODIFY | flags.CLOSE_WRITE | flags.CREATE | flags.MOVED_TO | flags.ONLYDIR
        try:
            inotify = inotify_simple.INotify()
        except OSError:
            return None
        try:
            inotify.add_watch(directory, mask)
        except OSError:  # missing, not a directory, or the limit of watches
            inotify.close()
            return None
        watch = cls(inotify, prefix, on_change)
        watch._loop = asyncio.get_running_loop()
        watch._loop.add_reader(inotify.fileno(), watch._read)
        return watch

    def _read(self) -> None:
        try:
            events = self._inotify.read(timeout=0)
        except OSError:
            events = []
        if any(event.name.startswith(self._prefix) for event in events):
            self._on_change()

    def close(self) -> None:
        """Stop watching (idempotent)."""
        if self._loop is not None:
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_reader(self._inotify.fileno())
            self._loop = None
            self._inotify.close()


@dataclass(frozen=True)
class Shown:
    """What a follow screen shows of its file at one reading.

    Attributes:
        title: the title line.
        body: the lines (Content: nothing in the file is parsed as markup).
        ended: the end is recorded: the file is not followed any more.
    """

    title: str
    body: Content
    ended: bool


class FollowScreen(Dialog[None]):
    """A file shown read-only and scrollable, shown again as it grows until its end.

    Subclasses say which file (``followed``) and what to show of it (``shown``).

    Args:
        name: the id of the box; its parts are ``{name}-title``, ``-scroll``, ``-body``,
            ``-keys``.
    """

    DEFAULT_CSS = """
    FollowScreen > .dialog.follow {
        width: 100%;
        height: 100%;
        & > .follow-scroll { height: 1fr; margin-top: 1; }
        & > .follow-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.box_id = name
        self.lines: list[str] = []
        """What the screen shows, as plain lines."""
        self.ended = False
        """The end is recorded: the file is not followed any more."""
        self.updated = asyncio.Event()
        """Set at each reading of the file (tests wait on it)."""
        self._watch: DirectoryWatch | None = None
        self._timer: Timer | None = None
        self._last_read = 0.0
        self._due = False
        self._title = Static(id=f"{name}-title", classes="dialog-title")
        self._body = Static(id=f"{name}-body")
        self._scroll = VerticalScroll(self._body, id=f"{name}-scroll", classes="follow-scroll")

    @property
    def following(self) -> bool:
        """Whether the file is still followed (watched, or polled where it cannot be)."""
        return self._watch is not None or self._timer is not None

    @property
    def watching(self) -> bool:
        """Whether the kernel tells the screen of the file's writes (no polling)."""
        return self._watch is not None

    def followed(self) -> tuple[Path, str] | None:
        """The directory of the followed file and the start of its name (None: no file yet
        and nowhere to watch for it)."""
        raise NotImplementedError

    def shown(self) -> Shown:
        """Read the file: what to show."""
        raise NotImplementedError

    async def wait_for_end(self) -> bool:
        """Wait for an end that is no write of the file (a shell's exit); False: there is
        none to wait for (default)."""
        return False

    def opens_at_bottom(self, shown: Shown) -> bool:
        """Whether the first reading is shown from its end (default: yes)."""
        return True

    def compose(self) -> ComposeResult:
        name = self.box_id
        with Vertical(id=name, classes="dialog follow"):
            yield self._title
            yield self._scroll
            yield Static(
                "↑/↓ PgUp/PgDn scroll · Esc or q close",
                id=f"{name}-keys",
                classes="dialog-keys follow-keys",
            )

    def on_mount(self) -> None:
        self.reread()
        self._scroll.focus()
        if not self.ended:
            self.follow()
            self.run_worker(self._end_elsewhere(), group="follow-end", exit_on_error=False)

    async def _end_elsewhere(self) -> None:
        if await self.wait_for_end() and not self.ended:
            self.reread()

    def follow(self) -> None:
        """Start following the file (again: where it goes may be known only now)."""
        self.stop_following()
        target = self.followed()
        if target is not None:
            self._watch = DirectoryWatch.open(*target, self._changed)
        if self._watch is None:
            self._timer = self.set_interval(POLL_SECONDS, self.reread)

    def stop_following(self) -> None:
        """Stop watching or polling the file."""
        if self._watch is not None:
            self._watch.close()
            self._watch = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _changed(self) -> None:
        """The file was written: read it now, or once ``MIN_GAP`` after the last reading."""
        if self._due or self.ended:
            return
        wait = self._last_read + MIN_GAP - asyncio.get_running_loop().time()
        if wait <= 0:
            self.reread()
        else:
            self._due = True
            self.set_timer(wait, self.reread)

    def reread(self) -> None:
        """Read the file again and show it; stop following it once its end is recorded."""
        self._due = False
        self._last_read = asyncio.get_running_loop().time()
        first = not self.lines
        shown = self.shown()
        at_bottom = self._scroll.scroll_y >= self._scroll.max_scroll_y
        if first:
            at_bottom = self.opens_at_bottom(shown)
        self.lines, self.ended = shown.body.plain.split("\n"), shown.ended
        self._title.update(shown.title)
        self._body.update(shown.body)
        if at_bottom and self.lines:
            self.call_after_refresh(self._scroll.scroll_end, animate=False)
        if self.ended:
            self.stop_following()
        self.updated.set()

    def on_unmount(self) -> None:
        self.stop_following()

    def action_close(self) -> None:
        self.stop_following()
        self.dismiss(None)
