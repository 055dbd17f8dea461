"""Checkpoints and rewind: put the workspace back as it was before a user prompt.

Every user prompt begins a checkpoint (:meth:`CheckpointStore.begin`). While it is current,
the engine records the prior state of every path that changes: file tools through
``before_change``, shell commands through ``before_shell`` and ``after_shell`` (how, and what
is in scope: :mod:`agent.checkpoints.recorder`).

A rewind to a checkpoint undoes, newest first, every entry from that checkpoint on: each file
goes back byte for byte with its mode bits, deleted files and directories come back, and files
and directories the session created are deleted (only those: nothing else is ever deleted).
Before restoring, each file is compared with the state eddy last left it in; a file changed
since (in an editor, say) is a conflict and is left alone unless the caller says to overwrite.
A rewind is itself an entry in the list, so a redo (:meth:`~CheckpointStore.redo`) undoes it.

Storage, under ``store_dir`` (one per session, next to its transcript): ``blobs/`` (contents,
by SHA-256, each stored once), ``checkpoints.json`` and ``snapshot.json`` (see
:mod:`agent.checkpoints.files`, which reads and writes them). The last ``retention``
checkpoints are kept; older ones are pruned and blobs that nothing refers to any more are
removed.

Wiring it into a session::

    store = CheckpointStore(workspace, session_checkpoint_dir(cwd, session_id))
    session.attach_checkpoints(store)     # the tools' hooks record in it (before_change for
                                          # Write / Edit / MultiEdit, before_shell and
                                          # after_shell for Bash: agent/session/checkpoint_hooks)
    store.prepare_in_background()         # as the session opens: the first snapshot, niced
    store.begin(checkpoint_id, prompt)    # on each user prompt, before its turn starts
    store.settle()                        # after each tool call
    store.list() / plan_rewind(id) / rewind(id, overwrite_conflicts=...) / redo(rewind_id)
    store.close()                         # on exit (saves the stat cache, stops the watcher)

Disk: the blobs hold what git cannot give back (untracked files, files modified since the
index was written) plus what changed; files git's index vouches for are never copied.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.files import (
    INDEX_NAME,
    LOG_NAME,
    disk_usage,
    load_index,
    load_log,
    log_json,
    write_json,
)
from agent.checkpoints.recorder import ChangeRecorder, error_text
from agent.checkpoints.records import (
    PROMPT,
    REWIND,
    Change,
    CheckpointSummary,
    Conflict,
    Entry,
    RewindPlan,
    RewindResult,
    summarize,
)
from agent.checkpoints.restore import Action, apply, plan
from agent.checkpoints.snapshot import DIR, RACY_WINDOW_NS

__all__ = [
    "CheckpointError",
    "CheckpointStore",
    "CheckpointSummary",
    "Conflict",
    "RewindPlan",
    "RewindResult",
    "session_checkpoint_dir",
]

DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024
DEFAULT_RETENTION = 100
DEFAULT_MAX_SNAPSHOT_BYTES = 2 * 1024**3


class CheckpointError(Exception):
    """An unknown or pruned checkpoint, a duplicate id, a redo of something not a rewind."""


def session_checkpoint_dir(cwd: Path, session_id: str) -> Path:
    """The store directory of a session: beside its transcript, ``<session id>.checkpoints``."""
    from agent.store.listing import sessions_dir

    return sessions_dir(cwd) / f"{session_id}.checkpoints"


class CheckpointStore(ChangeRecorder):
    """The checkpoints of one session in one workspace.

    Args:
        workspace: the workspace root (its real path is used).
        store_dir: where this session's checkpoints are kept (created when first needed);
            an existing store there is loaded, so a resumed session can rewind.
        retention: how many checkpoints (prompts) are kept.
        max_file_bytes, max_snapshot_bytes, racy_window_ns, watch, use_git: as for
            :class:`ChangeRecorder`.
    """

    def __init__(
        self,
        workspace: Path,
        store_dir: Path,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        retention: int = DEFAULT_RETENTION,
        max_snapshot_bytes: int | None = DEFAULT_MAX_SNAPSHOT_BYTES,
        racy_window_ns: int = RACY_WINDOW_NS,
        watch: bool = True,
        use_git: bool = True,
    ) -> None:
        self.store_dir = Path(store_dir)
        self.retention = max(1, retention)
        super().__init__(
            workspace,
            BlobStore(self.store_dir / "blobs"),
            state_dir=self.store_dir,
            max_file_bytes=max_file_bytes,
            max_snapshot_bytes=max_snapshot_bytes,
            racy_window_ns=racy_window_ns,
            watch=watch,
            use_git=use_git,
        )
        self.load_problem: str | None = None
        """Why an existing store could not be read (it was set aside), or None."""
        self.save_error: str | None = None
        """Why the last save failed (disk full?), or None."""
        self._load()

    # -- checkpoints ---------------------------------------------------------------------------

    def begin(self, checkpoint_id: str, prompt: str) -> None:
        """Start the checkpoint of a new user prompt; changes from now on belong to it."""
        with self._lock:
            self._settle()
            if self._find(checkpoint_id) is not None:
                raise CheckpointError(f"checkpoint {checkpoint_id!r} exists already")
            self.entries.append(Entry(checkpoint_id, PROMPT, time.time(), prompt))
            pruned = self._prune()
            self._save_log()
            self._save_index()
            if pruned or self.tracker.garbage:
                self._gc()

    def close(self) -> None:
        """Stop the background snapshot and the watcher; settle pending changes and save
        everything (the stat cache too)."""
        self.tracker.close()
        with self._lock:
            self._settle()
            self._save_log()
            self._save_index()

    # -- reports ---------------------------------------------------------------------------------

    def summary(self, checkpoint_id: str) -> CheckpointSummary:
        """What changed while ``checkpoint_id`` was current ("3 files +12 -4", ...)."""
        with self._lock:
            self._settle()
            return summarize(self._entry(checkpoint_id)[1], self._read_blob)

    def list(self) -> list[CheckpointSummary]:
        """Every entry still kept, oldest first: prompts and (``kind="rewind"``) rewinds."""
        with self._lock:
            self._settle()
            return [summarize(e, self._read_blob) for e in self.entries]

    # -- rewind ----------------------------------------------------------------------------------

    def plan_rewind(self, checkpoint_id: str) -> RewindPlan:
        """What ``rewind(checkpoint_id)`` would do, and the conflicts it would meet."""
        with self._lock:
            self._settle()
            return self._plan(self._entry(checkpoint_id)[0])[0]

    def rewind(self, checkpoint_id: str, *, overwrite_conflicts: bool = False) -> RewindResult:
        """Put the workspace back as it was before ``checkpoint_id`` (a prompt, or a rewind:
        then as it was before that rewind, which is what :meth:`redo` does)."""
        with self._lock:
            self._settle()
            return self._rewind(self._entry(checkpoint_id)[0], overwrite_conflicts)

    def redo(self, rewind_id: str, *, overwrite_conflicts: bool = False) -> RewindResult:
        """Undo the rewind ``rewind_id``: back to the state just before it."""
        with self._lock:
            self._settle()
            index, entry = self._entry(rewind_id)
            if entry.kind != REWIND:
                raise CheckpointError(f"{rewind_id!r} is a checkpoint, not a rewind")
            return self._rewind(index, overwrite_conflicts)

    def _plan(self, start: int) -> tuple[RewindPlan, dict[str, Action]]:
        return plan(self.entries[start:], self._capture)

    def _rewind(self, start: int, overwrite: bool) -> RewindResult:
        plan, actions = self._plan(start)
        self._seq += 1
        rewind_id = f"rewind-{self._seq}"
        while self._find(rewind_id) is not None:
            self._seq += 1
            rewind_id = f"rewind-{self._seq}"
        result = RewindResult(
            rewind_id=rewind_id,
            target=plan.target,
            conflicts=plan.conflicts,
            overwritten=overwrite and bool(plan.conflicts),
            not_restorable=plan.not_restorable,
        )
        todo = {rel: a for rel, a in actions.items() if overwrite or not a[2]}
        failed = apply(self._root, todo, self.blobs, result)
        record = Entry(rewind_id, REWIND, time.time(), self.entries[start].prompt, plan.target)
        for rel, (current, target, _) in todo.items():
            after = self._capture(rel) if rel in failed else target
            if not current.same(after) or (current.kind == DIR and current.mode != after.mode):
                record.changes[rel] = Change(current, after)
        self.entries.append(record)
        self._save_log()
        return result

    # -- internals -------------------------------------------------------------------------------

    def _find(self, entry_id: str) -> int | None:
        for i, entry in enumerate(self.entries):
            if entry.id == entry_id:
                return i
        return None

    def _entry(self, entry_id: str) -> tuple[int, Entry]:
        i = self._find(entry_id)
        if i is None:
            raise CheckpointError(f"no checkpoint {entry_id!r} (unknown, or pruned)")
        return i, self.entries[i]

    def _read_blob(self, sha: str) -> bytes | None:
        try:
            return self.blobs.read(sha)
        except OSError:
            return None

    def _prune(self) -> bool:
        """Drop the oldest prompts past ``retention``; whether any were dropped."""
        prompts = [i for i, e in enumerate(self.entries) if e.kind == PROMPT]
        if len(prompts) > self.retention:
            del self.entries[: prompts[-self.retention]]
            return True
        return False

    def _gc(self) -> None:
        keep: set[str] = set()
        for entry in self.entries:
            keep |= entry.shas()
        self.tracker.collect(keep)

    # -- persistence -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The entries as JSON data (what ``checkpoints.json`` holds)."""
        return log_json(self._root, self._seq, self.entries)

    def disk_usage(self) -> dict[str, int]:
        """Bytes on disk: ``blobs`` (and their ``blob_count``), ``log`` and ``index``."""
        return disk_usage(self.store_dir, self.blobs)

    def _save_log(self) -> None:
        try:
            write_json(self.store_dir, LOG_NAME, self.to_json())
            self.save_error = None
        except OSError as exc:
            self.save_error = f"checkpoints could not be saved: {error_text(exc)}"

    def _save_index(self) -> None:
        data = self.tracker.cache_json()
        if data is None:
            return
        try:
            write_json(self.store_dir, INDEX_NAME, data)
        except OSError:
            return  # only a cache: the next process reads the files again
        self.tracker.saved = True

    def _load(self) -> None:
        loaded = load_log(self.store_dir)
        if loaded is None:
            return
        self.entries, self._seq, self.load_problem = loaded
        if self.load_problem is not None:
            return
        for entry in self.entries:
            for rel, change in entry.changes.items():
                if change.after is None:
                    self._pending[rel] = entry
        self.tracker.load(load_index(self.store_dir, self.blobs.has))
