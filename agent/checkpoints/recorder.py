"""Recording what changes while a checkpoint is current: the hooks the tools call.

The engine records the prior state of every path that changes:

- **File tools** (Write, Edit, MultiEdit) await :meth:`~ChangeRecorder.before_change` with the
  paths they are about to write; the prior state (bytes and mode bits, or "did not exist", and
  the parent directories a write will create) is saved then. The state the tool leaves behind
  is read at the next hook, or when the session calls :meth:`~ChangeRecorder.settle` after the
  tool call (which it should: that is "the state eddy left it in" for conflict detection).
- **Shell commands** (Bash) are bracketed by :meth:`~ChangeRecorder.before_shell` and
  :meth:`~ChangeRecorder.after_shell`. The engine keeps a snapshot of the in-scope tree: a
  stat cache plus the content of every file, in its blob store or, for files git's index
  vouches for, in git's object store (:mod:`agent.checkpoints.gitbase`). Before a command it
  brings the snapshot up to date; after it, it records what was created, modified, deleted or
  chmod-ed, and which directories were created or removed.

How it knows what changed, and how the first snapshot is taken without keeping the first
command waiting: :mod:`agent.checkpoints.tracker`.

In scope is everything inside the workspace except ``.git`` (never read, never touched), what
``.gitignore`` files ignore, and files over the size cap (their changes are detected but their
content is not kept). A change to an out-of-scope path that the engine knows about is reported
as not restorable, with the reason.

The hooks run their work in a thread and never raise for file-system errors: what could not be
captured is reported in the summaries (``not_restorable``, ``problems``).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.records import PROMPT, Change, Entry
from agent.checkpoints.scan import Scanner
from agent.checkpoints.scope import Scope, stat_key
from agent.checkpoints.snapshot import FILE, GONE, State, capture
from agent.checkpoints.tracker import TreeTracker


class ChangeRecorder:
    """The recording half of :class:`agent.checkpoints.engine.CheckpointStore`: its hooks put the
    prior state of every path that changes into the current entry.

    Args:
        workspace: the workspace root (its real path is used).
        blobs: where file contents are kept.
        state_dir: a directory of the store's own (the watcher's barrier goes there).
        max_file_bytes: files larger than this are not kept (their changes are reported as
            not restorable).
        max_snapshot_bytes: the most file content one snapshot of the tree keeps; files past
            it are only stat-ed (shell changes to them are not restorable).
        racy_window_ns: files modified this recently before a scan are read again next scan.
        watch: use a watcher where there is one (False: always scan the tree).
        use_git: let git's object store hold what it has (False: read every file).
    """

    def __init__(
        self,
        workspace: Path,
        blobs: BlobStore,
        *,
        state_dir: Path,
        max_file_bytes: int,
        max_snapshot_bytes: int | None,
        racy_window_ns: int,
        watch: bool = True,
        use_git: bool = True,
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.cap = max_file_bytes
        self.blobs = blobs
        self.scope = Scope(self.workspace)
        self.scanner = Scanner(
            self.scope,
            self.blobs,
            max_file_bytes=max_file_bytes,
            max_total_bytes=max_snapshot_bytes,
            racy_window_ns=racy_window_ns,
        )
        self.tracker = TreeTracker(
            str(self.workspace),
            self.scope,
            self.scanner,
            self.blobs,
            state_dir=str(state_dir),
            watch=watch,
            use_git=use_git,
        )
        self.entries: list[Entry] = []
        self._root = str(self.workspace)
        self._seq = 0
        self._pending: dict[str, Entry] = {}
        self._pre: Entry | None = None
        self._lock = threading.RLock()

    def _save_log(self) -> None:
        """Save the entries (the store writes ``checkpoints.json``)."""
        raise NotImplementedError

    def prepare_in_background(self) -> None:
        """Start taking the first snapshot now, in a thread, so that the first command need not
        wait for it (call once the session is open; calling again is harmless)."""
        self.tracker.prepare_in_background()

    async def prepare(self) -> None:
        """Take the first snapshot of the tree now (in a thread), not at the first command; or
        wait until the one being taken (or completed) in the background is done."""
        await asyncio.to_thread(self.tracker.prepare)

    async def before_change(self, paths: list[Path], tool_use_id: str | None = None) -> None:
        """Save the prior state of ``paths``, which a tool is about to write (ToolContext hook)."""
        await asyncio.to_thread(self._before_change, paths, tool_use_id)

    def _before_change(self, paths: Iterable[Path], tool_use_id: str | None = None) -> None:
        with self._lock:
            self._settle()
            entry = self._current()
            for path in paths:
                rel = self._rel(path)
                if not rel:
                    entry.blocked[os.path.abspath(path)] = "outside the workspace"
                    continue
                try:
                    why = self.scope.out_of_scope(rel, False)
                    if why is not None:
                        entry.blocked[rel] = why
                        continue
                    parts = rel.split("/")
                    for i in range(1, len(parts)):
                        parent = "/".join(parts[:i])
                        if not os.path.lexists(self._abs(parent)):
                            self._touch(entry, parent, tool_use_id, GONE)
                    self._touch(entry, rel, tool_use_id)
                except OSError as exc:
                    entry.blocked[rel] = f"its earlier state could not be saved ({error_text(exc)})"
            self._save_log()

    def settle(self) -> None:
        """Record the state the last tool calls left their files in (call after each call)."""
        with self._lock:
            if self._pending:
                self._settle()
                self._save_log()

    async def before_shell(self) -> None:
        """Bring the snapshot up to date before a shell command runs (ToolContext hook)."""
        await asyncio.to_thread(self._before_shell)

    def _before_shell(self) -> None:
        self.tracker.wait_ready()
        with self._lock:
            self._settle()
            entry = self._current()
            entry.shell_commands += 1
            self._pre = None
            try:
                self.tracker.refresh()
            except OSError as exc:
                self._lost_track(entry, exc)
                return
            self._pre = entry
            said = self.tracker.command_started()
            if said is not None:
                self._problem(entry, said)

    async def after_shell(self) -> None:
        """Record what the shell command changed in the workspace (ToolContext hook)."""
        await asyncio.to_thread(self._after_shell)

    def _after_shell(self) -> None:
        with self._lock:
            if self._pre is None:
                return
            entry, self._pre = self._pre, None
            self._record(entry)
        self.tracker.list_the_rest()

    async def catch_up(self) -> None:
        """Record what changed since the last scan although no hook bracketed it (background
        shells): the changes go to the current entry, as a shell command's would."""
        await asyncio.to_thread(self._catch_up)

    def _catch_up(self) -> None:
        self.tracker.wait_ready()
        with self._lock:
            self._settle()
            self._record(self._current())
        self.tracker.list_the_rest()

    def _record(self, entry: Entry) -> None:
        """Put what changed since the last refresh into ``entry`` (nothing when there was no
        snapshot yet: this one is the baseline)."""
        try:
            changes, blocked = self.tracker.changes()
        except OSError as exc:
            self._lost_track(entry, exc)
            return
        for rel, (before, after) in changes.items():
            change = entry.changes.get(rel)
            if change is None:
                entry.changes[rel] = Change(before, after, shell=True)
            else:
                change.after, change.shell, change.lines = after, True, None
        for rel, why in blocked.items():
            entry.blocked.setdefault(rel, why)
        if changes or blocked:
            self._save_log()

    def _lost_track(self, entry: Entry, exc: OSError) -> None:
        """A scan failed: report it; the next command starts from a new snapshot."""
        self.tracker.lose()
        self._problem(entry, f"a command's changes were not captured ({error_text(exc)})")

    def _problem(self, entry: Entry, text: str) -> None:
        if text not in entry.problems:
            entry.problems.append(text)
        self._save_log()

    # -- internals -------------------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return os.path.join(self._root, rel)

    def _rel(self, path: Path | str) -> str | None:
        """The workspace-relative ``/`` path of ``path``, or None when it lies outside."""
        head, name = os.path.split(os.path.abspath(os.fspath(path)))
        real = os.path.join(os.path.realpath(head), name)
        if real.startswith(self._root + os.sep):
            return real[len(self._root) + 1 :].replace(os.sep, "/")
        return None

    def _current(self) -> Entry:
        """The entry changes go to: the latest prompt (one is made if there is none)."""
        if not self.entries or self.entries[-1].kind != PROMPT:
            self._seq += 1
            self.entries.append(Entry(f"auto-{self._seq}", PROMPT, time.time()))
        return self.entries[-1]

    def _capture(self, rel: str) -> State:
        """The current state of ``rel``; the snapshot spares reading a file whose stat held."""
        path = self._abs(rel)
        known = self.tracker.known(rel)
        if known is not None and not known.racy and known.state.restorable and not known.git:
            try:
                if stat_key(os.lstat(path)) == known.key:
                    return known.state
            except OSError:
                pass
        return capture(path, self.blobs, self.cap)[0]

    def _touch(
        self, entry: Entry, rel: str, tool_use_id: str | None, before: State | None = None
    ) -> None:
        change = entry.changes.get(rel)
        if change is None:
            change = Change(before if before is not None else self._capture(rel))
            entry.changes[rel] = change
        change.after, change.lines = None, None
        if tool_use_id and tool_use_id not in change.tools:
            change.tools.append(tool_use_id)
        self._pending[rel] = entry

    def _settle(self) -> None:
        late = self.tracker.take_late()
        if late:
            entry = self._current()
            for rel, why in late.items():
                entry.blocked.setdefault(rel, why)
            self._save_log()
        pending, self._pending = self._pending, {}
        for rel, entry in pending.items():
            change = entry.changes.get(rel)
            if change is not None and change.after is None:
                try:
                    change.after = self._capture(rel)
                except OSError as exc:
                    change.after = State(FILE, why=f"could not be read ({error_text(exc)})")


def error_text(exc: OSError) -> str:
    """What went wrong, in words (``strerror`` when there is one)."""
    return exc.strerror or str(exc)
