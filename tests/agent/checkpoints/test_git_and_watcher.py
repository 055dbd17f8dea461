"""Checkpoints in a git repository and with the watcher: what is read, what is kept, rewind.

The engine keeps only what git cannot give back, learns what changed from inotify instead of
scanning, and rewinds shell changes exactly as when it scanned and copied everything: the
property test draws random shell changes in a repository and checks the rewind byte for byte.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent.checkpoints import snapshot as snapshot_mod
from agent.checkpoints import tracker as tracker_mod
from agent.checkpoints import watch as watch_mod
from agent.checkpoints.engine import CheckpointStore
from agent.checkpoints.gitbase import GitRepo, parse_index
from agent.checkpoints.scan import NOT_SAVED_IN_TIME
from agent.checkpoints.snapshot import UNKNOWN_DIR, UNKNOWN_FILE
from tests.agent.checkpoints.test_engine import Shell, tree

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_watcher = pytest.mark.skipif(watch_mod.inotify_simple is None, reason="no inotify here")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(ws: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *args], cwd=ws, env={**os.environ, **GIT_ENV}, capture_output=True, check=True
    )
    return out.stdout.decode()


def repo_with(ws: Path, files: dict[str, bytes], *, untracked: dict[str, bytes] | None = None):
    ws.mkdir(parents=True, exist_ok=True)
    git(ws, "init", "-q", "-b", "main")
    for rel, data in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "seed")
    for rel, data in (untracked or {}).items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    # a repository someone works in: the index was written after the files (not racily clean)
    old = os.stat(ws / ".git" / "index").st_mtime_ns - 5_000_000_000
    for rel in files:
        os.utime(ws / rel, ns=(old, old))
    git(ws, "update-index", "-q", "--refresh")


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watcher's way, whatever the load: what these tests check is what a watcher lets
    eddy skip. A barrier that waits past its deadline counts as "lost" and makes a full scan,
    which reads what a watched refresh would not (a starved thread on a loaded machine must
    not change the outcome), so the deadline is long here."""
    monkeypatch.setattr(watch_mod, "BARRIER_TIMEOUT_S", 600.0)


def require_watcher(store: CheckpointStore) -> None:
    """Skip unless ``store`` got an inotify instance: they are few per user (128 by default)
    and test runs beside each other can take them all; without one eddy scans everything,
    which the ``*_without_a_watcher`` tests check."""
    if not store.tracker.watching:
        pytest.skip("no inotify instance could be had (fs.inotify.max_user_instances)")


async def outside_the_racy_window(ws: Path) -> None:
    """Wait until every time under ``ws`` is older than the racy window, as in a workspace
    someone opens eddy in (the engine compares exactly these times: a command's changes are
    the ones inside the window)."""
    paths = [ws, *ws.rglob("*")]
    newest = max(max(p.lstat().st_mtime_ns, p.lstat().st_ctime_ns) for p in paths)
    until = newest + snapshot_mod.RACY_WINDOW_NS
    while (left := until - time.time_ns()) >= 0:
        await asyncio.sleep(left / 1e9 + 0.001)


def no_git_tree(ws: Path) -> dict[str, tuple]:
    return tree(ws)


SEED = {
    "README.md": b"# r\n",
    "src/a.py": b"print('a')\n",
    "src/b.py": b"print('b')\n" * 50,
    "src/deep/c.txt": b"c\n",
    "bin/run.sh": b"#!/bin/sh\necho run\n",
    ".gitignore": b"build/\n",
}


async def change_everything(ws: Path) -> None:
    (ws / "src" / "a.py").write_bytes(b"changed\n")
    (ws / "src" / "b.py").unlink()
    os.chmod(ws / "bin" / "run.sh", 0o755)
    os.rename(ws / "src" / "deep" / "c.txt", ws / "src" / "c-moved.txt")
    (ws / "new").mkdir()
    (ws / "new" / "n.txt").write_bytes(b"new\n")
    os.symlink("src/a.py", ws / "link")
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_bytes(b"ignored\n")


@needs_git
async def test_tracked_files_are_not_read_and_come_back_from_git(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED, untracked={"notes.txt": b"untracked\n"})
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    assert store.scanner.files_read == 1  # only the untracked file
    assert store.blobs.disk_usage() == (1, len(b"untracked\n"))  # no copy of the repository
    before = no_git_tree(ws)
    store.begin("p1", "x")
    async with Shell(store):
        await change_everything(ws)
    summary = store.summary("p1")
    assert {f.path for f in summary.files} == {
        "src/a.py",
        "src/b.py",
        "bin/run.sh",
        "src/deep/c.txt",
        "src/c-moved.txt",
        "new/n.txt",
        "link",
    }
    assert summary.not_restorable == {}
    result = store.rewind("p1")
    assert result.errors == {}
    assert {k: v for k, v in no_git_tree(ws).items() if not k.startswith("build")} == {
        k: v for k, v in before.items()
    }


@needs_git
async def test_content_filters_make_the_engine_read_every_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, {**SEED, ".gitattributes": b"* text=auto\n"})
    assert GitRepo.find(str(ws.resolve())) is None
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    assert store.scanner.files_read == len(SEED) + 1


@needs_git
async def test_an_index_of_version_4_is_read(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED)
    git(ws, "update-index", "--index-version", "4")
    git(ws, "update-index", "-q", "--refresh")
    repo = GitRepo.find(str(ws.resolve()))
    assert repo is not None
    index = repo.read_index()
    assert index is not None and len(index) == len(SEED)
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    assert store.scanner.files_read == 0


@needs_git
def test_entries_git_skips_or_only_intends_to_add_are_left_out_of_the_index(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED, untracked={"later.txt": b"later\n"})
    git(ws, "update-index", "--skip-worktree", "src/a.py")
    git(ws, "add", "-N", "later.txt")
    git(ws, "update-index", "-q", "--refresh")
    repo = GitRepo.find(str(ws.resolve()))
    assert repo is not None
    data = (ws / ".git" / "index").read_bytes()
    assert int.from_bytes(data[4:8], "big") == 3  # extended flags need version 3
    index = repo.read_index()
    assert index is not None and len(index) == len(SEED) - 1
    # the same entries in a file that claims version 2 cannot hold extended flags: damage
    damaged = data[:4] + (2).to_bytes(4, "big") + data[8:]
    assert parse_index(damaged, repo.hash_len, repo.prefix, 1 << 62) is None


@needs_git
def test_a_split_index_is_not_trusted(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED)
    git(ws, "update-index", "--split-index")
    repo = GitRepo.find(str(ws.resolve()))
    assert repo is not None
    assert repo.read_index() is None


@needs_git
async def test_a_workspace_below_the_repository_root(tmp_path: Path) -> None:
    top = tmp_path / "top"
    repo_with(top, {**SEED, "other/x.txt": b"x\n"})
    ws = top / "src"
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    assert store.scanner.files_read == 0
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "a.py").write_bytes(b"changed\n")
    store.rewind("p1")
    assert (ws / "a.py").read_bytes() == SEED["src/a.py"]


@needs_git
@needs_watcher
async def test_content_git_no_longer_has_is_reported_not_restorable(
    tmp_path: Path, watched: None
) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED)
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    require_watcher(store)
    oid = git(ws, "rev-parse", ":src/a.py").strip()
    (ws / ".git" / "objects" / oid[:2] / oid[2:]).unlink()  # as a `git gc --prune=now` might
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "src" / "a.py").write_bytes(b"changed\n")
    assert store.summary("p1").not_restorable == {
        "src/a.py": "its earlier content is no longer in git's object store"
    }


@needs_watcher
async def test_a_command_that_changed_nothing_lists_no_directory(
    tmp_path: Path, watched: None
) -> None:
    ws = tmp_path / "ws"
    for i in range(30):
        (ws / f"d{i}" / "sub").mkdir(parents=True)
        (ws / f"d{i}" / "sub" / "f.txt").write_text(f"{i}\n")
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    require_watcher(store)
    listed, read = store.scanner.dirs_listed, store.scanner.files_read
    store.begin("p1", "x")
    for _ in range(3):
        async with Shell(store):
            pass
    assert (store.scanner.dirs_listed, store.scanner.files_read) == (listed, read)
    async with Shell(store):
        (ws / "d7" / "sub" / "f.txt").write_text("changed\n")
    assert store.scanner.dirs_listed == listed + 1 and store.scanner.files_read == read + 1
    assert [f.path for f in store.summary("p1").files] == ["d7/sub/f.txt"]


@needs_watcher
async def test_a_directory_replaced_by_another_of_its_name_is_rewound(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "d" / "sub").mkdir(parents=True)
    (ws / "d" / "sub" / "old.txt").write_text("old\n")
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "d" / "next").mkdir()  # made before the old one goes: another inode
        (ws / "d" / "next" / "new.txt").write_text("new\n")
        shutil.rmtree(ws / "d" / "sub")
        os.rename(ws / "d" / "next", ws / "d" / "sub")
    assert sorted(f.path for f in store.summary("p1").files) == ["d/sub/new.txt", "d/sub/old.txt"]
    store.rewind("p1")
    assert sorted(os.listdir(ws / "d" / "sub")) == ["old.txt"]


@needs_watcher
async def test_a_directory_removed_and_made_again_is_watched_again(tmp_path: Path) -> None:
    """``rm -r d; mkdir d``: ext4 gives the new directory the inode number of the one removed,
    so the scan takes it for the same directory; the watch went with the old one, and a file
    deleted in the new one by the next command went unseen (the rewind then named it a
    conflict). Found by the property below, on ext4."""
    ws = tmp_path / "ws"
    (ws / "d" / "sub").mkdir(parents=True)
    (ws / "d" / "old.txt").write_text("old\n")
    (ws / "top.txt").write_text("top\n")
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    before = tree(ws)
    store.begin("p1", "x")
    async with Shell(store):
        shutil.rmtree(ws / "d")
        (ws / "d").mkdir()
        os.rename(ws / "top.txt", ws / "d" / "moved.txt")
    store.begin("p2", "x")
    async with Shell(store):
        (ws / "d" / "moved.txt").unlink()
    assert [f.path for f in store.summary("p2").files] == ["d/moved.txt"]
    result = store.rewind("p1")
    assert result.errors == {} and result.conflicts == [], result
    assert tree(ws) == before


@needs_watcher
async def test_a_gitignore_above_a_directory_is_applied_to_it_again(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "d" / "sub").mkdir(parents=True)
    (ws / "d" / "sub" / "keep.txt").write_text("keep\n")
    (ws / "d" / "sub" / "run.log").write_text("a log\n")
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    store.begin("p1", "x")
    async with Shell(store):  # nothing changes in d/sub itself
        (ws / "d" / ".gitignore").write_text("*.log\n")
    assert [f.path for f in store.summary("p1").files] == ["d/.gitignore"]
    snapshot = store.tracker.snapshot
    assert snapshot is not None
    assert sorted(snapshot.files) == ["d/.gitignore", "d/sub/keep.txt"]
    store.rewind("p1")
    assert not (ws / "d" / ".gitignore").exists()
    assert (ws / "d" / "sub" / "run.log").read_text() == "a log\n"


@needs_watcher
async def test_changes_between_commands_are_the_earlier_state_of_the_next(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "f").write_text("v1\n")
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    store.begin("p1", "x")
    (ws / "f").write_text("v2 by the user\n")  # in an editor, between two commands
    async with Shell(store):
        (ws / "f").write_text("v3 by a command\n")
    store.rewind("p1")
    assert (ws / "f").read_text() == "v2 by the user\n"


@needs_watcher
async def test_when_the_watcher_loses_track_the_tree_is_scanned(tmp_path: Path) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 50_000:
        pytest.skip("the kernel's event queue is too long to overflow quickly here")
    ws = tmp_path / "ws"
    (ws / "many").mkdir(parents=True)
    (ws / "f").write_text("v1\n")
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    store.begin("p1", "x")
    listed = store.scanner.dirs_listed
    async with Shell(store):
        for i in range(limit // 2 + 10):  # create and delete: two events each, past the queue
            p = ws / "many" / f"t{i}"
            p.write_bytes(b"")
            p.unlink()
        (ws / "f").write_text("v2\n")
    assert store.scanner.dirs_listed > listed + 1  # a whole scan
    assert [f.path for f in store.summary("p1").files] == ["f"]
    store.rewind("p1")
    assert (ws / "f").read_text() == "v1\n"


@needs_watcher
async def test_files_not_saved_in_time_are_said_once_and_never_silently_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, watched: None
) -> None:
    monkeypatch.setattr(snapshot_mod, "RACY_WINDOW_NS", 50_000_000)
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    for name in ("a", "b", "sub/c"):
        (ws / name).write_text(f"{name}\n")
    await outside_the_racy_window(ws)  # not changed by the command
    store = CheckpointStore(ws, tmp_path / "store")
    store.scanner.hurry.set()  # a command waited too long: the root is listed, nothing read
    await store.prepare()
    store.scanner.hurry.clear()
    require_watcher(store)
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "a").write_text("changed\n")
        (ws / "new").write_text("made\n")
    await store.prepare()  # the rest of the snapshot, taken after the command
    async with Shell(store):
        (ws / "sub" / "c").unlink()
    summary = store.summary("p1")
    assert summary.not_restorable == {"a": NOT_SAVED_IN_TIME}
    [problem] = summary.problems
    assert "1 directories had not been listed and 2 files had not been saved" in problem
    result = store.rewind("p1")
    assert result.deleted == ["new"] and result.restored == ["sub/c"]
    assert (ws / "a").read_text() == "changed\n" and (ws / "b").read_text() == "b\n"


@needs_watcher
async def test_what_a_hurried_first_snapshot_did_not_list_is_never_silently_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, watched: None
) -> None:
    monkeypatch.setattr(snapshot_mod, "RACY_WINDOW_NS", 50_000_000)
    ws = tmp_path / "ws"
    for rel in ("keep/a.txt", "keep/b.txt", "other/c.txt", "top.txt"):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(f"{rel}\n")
    await outside_the_racy_window(ws)  # not changed by the command
    store = CheckpointStore(ws, tmp_path / "store")
    store.scanner.hurry.set()  # as when a command has waited too long for the first snapshot
    await store.prepare()
    store.scanner.hurry.clear()
    require_watcher(store)
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "other" / "c.txt").write_text("changed\n")
        (ws / "other" / "new.txt").write_text("made\n")
        (ws / "keep" / "b.txt").unlink()
    await store.prepare()  # the rest of the snapshot, taken after the command
    summary = store.summary("p1")
    assert summary.not_restorable == {
        "other/c.txt": UNKNOWN_FILE,
        "other/new.txt": UNKNOWN_FILE,
        "other": UNKNOWN_DIR,
        "keep": UNKNOWN_DIR,
    }
    assert len(summary.problems) == 1 and "directories had not been listed" in summary.problems[0]
    result = store.rewind("p1")  # deletes nothing it cannot know the session made
    assert result.deleted == [] and (ws / "other" / "new.txt").exists()
    # from now on the snapshot is whole: the next command is rewound exactly
    store.begin("p2", "y")
    async with Shell(store):
        (ws / "keep" / "a.txt").write_text("changed\n")
        (ws / "other" / "more.txt").write_text("more\n")
    result = store.rewind("p2")
    assert result.errors == {} and result.deleted == ["other/more.txt"]
    assert (ws / "keep" / "a.txt").read_text() == "keep/a.txt\n"


@pytest.fixture
def unwatched(monkeypatch: pytest.MonkeyPatch) -> None:
    """No inotify instance to be had (others took them all): eddy scans instead."""
    monkeypatch.setattr(tracker_mod, "open_watcher", lambda root, state_dir: None)


@needs_git
@pytest.mark.parametrize("watch", [True, False], ids=["watched", "scanned"])
async def test_a_directory_moved_away_and_made_again_is_rewound_with_what_it_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, watch: bool
) -> None:
    """``mv d1 d4; mkdir -p d1/d2``: d4/d2 is the old d1/d2 (new to the scan, with an old
    ctime, and its inode's old path holds a new directory): a rewind removes it with d4,
    as it removes every path a command moved within the workspace (found by the property
    below in a larger tree)."""
    monkeypatch.setattr(snapshot_mod, "RACY_WINDOW_NS", 50_000_000)
    ws = tmp_path / "ws"
    repo_with(ws, {"d1/c.md": b"c\n", "d1/d2/e.bin": b"e\n", "top.txt": b"t\n"})
    await outside_the_racy_window(ws)  # a workspace opened a while after its last change
    store = CheckpointStore(ws, tmp_path / "store", watch=watch)
    await store.prepare()
    before = tree(ws)
    store.begin("p1", "x")
    async with Shell(store):
        os.rename(ws / "d1", ws / "d4")
        (ws / "d1" / "d2").mkdir(parents=True)
    result = store.rewind("p1")
    assert result.errors == {} and result.conflicts == [], result
    assert tree(ws) == before


@needs_git
async def test_content_git_no_longer_has_is_restorable_without_a_watcher(
    tmp_path: Path, unwatched: None
) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED)
    store = CheckpointStore(ws, tmp_path / "store")
    await store.prepare()
    assert not store.tracker.watching
    oid = git(ws, "rev-parse", ":src/a.py").strip()
    (ws / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    store.begin("p1", "x")
    async with Shell(store):  # the scan before it reads what git no longer has
        (ws / "src" / "a.py").write_bytes(b"changed\n")
    assert store.summary("p1").not_restorable == {}
    store.rewind("p1")
    assert (ws / "src" / "a.py").read_bytes() == SEED["src/a.py"]


async def test_a_hurried_first_snapshot_is_completed_before_a_command_without_a_watcher(
    tmp_path: Path, unwatched: None
) -> None:
    ws = tmp_path / "ws"
    for rel in ("keep/a.txt", "keep/b.txt", "other/c.txt", "top.txt"):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(f"{rel}\n")
    store = CheckpointStore(ws, tmp_path / "store")
    store.scanner.hurry.set()
    await store.prepare()
    store.scanner.hurry.clear()
    assert not store.tracker.watching
    before = no_git_tree(ws)
    store.begin("p1", "x")
    async with Shell(store):  # the scan before it lists and reads the rest
        (ws / "top.txt").write_text("changed\n")
        (ws / "other" / "c.txt").write_text("changed\n")
        (ws / "other" / "new.txt").write_text("made\n")
        (ws / "keep" / "b.txt").unlink()
    assert store.summary("p1").not_restorable == {}
    result = store.rewind("p1")
    assert result.errors == {} and result.deleted == ["other/new.txt"]
    assert no_git_tree(ws) == before


@needs_git
async def test_a_hurried_snapshot_is_completed_from_git_without_copying(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    repo_with(ws, SEED)
    store = CheckpointStore(ws, tmp_path / "store")
    store.scanner.hurry.set()
    await store.prepare()
    store.scanner.hurry.clear()
    store.begin("p1", "x")
    for _ in range(2):  # the second command stops the completion, which goes on after it
        async with Shell(store):
            pass
    await store.prepare()
    assert store.scanner.files_read == 0 and store.blobs.disk_usage() == (0, 0)
    async with Shell(store):
        (ws / "src" / "deep" / "c.txt").write_text("changed\n")
    store.rewind("p1")
    assert (ws / "src" / "deep" / "c.txt").read_bytes() == SEED["src/deep/c.txt"]


async def test_the_first_snapshot_prepared_in_the_background_is_the_baseline(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "f").write_text("v1\n")
    store = CheckpointStore(ws, tmp_path / "store")
    store.prepare_in_background()
    store.prepare_in_background()  # harmless
    store.begin("p1", "x")
    async with Shell(store):  # waits for the snapshot if it is still being taken
        (ws / "f").write_text("v2\n")
    assert store.scanner.files_read >= 1 and store.summary("p1").text == "f +1 -1"
    store.rewind("p1")
    assert (ws / "f").read_text() == "v1\n"


async def test_close_stops_the_background_snapshot_and_the_watcher(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for i in range(200):
        (ws / f"d{i}").mkdir(parents=True)
        (ws / f"d{i}" / "f").write_text(f"{i}\n")
    store = CheckpointStore(ws, tmp_path / "store")
    store.prepare_in_background()
    store.close()  # on exit: nothing left running, nothing raised
    assert not [t for t in threading.enumerate() if t.name == "eddy-checkpoints" and t.is_alive()]
    assert not list((tmp_path / "store").glob(".watch-*"))
    store.begin("p1", "x")  # a closed store still records, by scanning
    async with Shell(store):
        (ws / "d3" / "f").write_text("changed\n")
    store.rewind("p1")
    assert (ws / "d3" / "f").read_text() == "3\n"


async def test_close_while_the_rest_of_a_hurried_snapshot_is_taken(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for i in range(300):
        (ws / f"d{i}").mkdir(parents=True)
        (ws / f"d{i}" / "f").write_text(f"{i}\n")
    store = CheckpointStore(ws, tmp_path / "store")
    store.scanner.hurry.set()
    await store.prepare()
    store.scanner.hurry.clear()
    store.begin("p1", "x")
    async with Shell(store):  # after it, the other 300 directories are listed in the background
        (ws / "top").write_text("made\n")
    store.close()  # stops that, then saves the stat cache: nothing raised
    assert (tmp_path / "store" / "snapshot.json").exists()


# -- the property: random shell changes in a repository, then rewind ----------------------------

NAMES = ["a.txt", "b.py", "d1/c.md", "d1/d2/e.bin", "d3/f", "x.tmp"]
DIRS = ["d1", "d1/d2", "d3", "d4", "d4/d5"]
payload = st.binary(max_size=40)
TARGETS = NAMES + ["d1/d2", "d4", "d3/f/g", "d1"]
"""Also the names of directories, and below a file: a file where a directory was, and back."""
shell_change = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(TARGETS), payload),
    st.tuples(st.just("append"), st.sampled_from(NAMES), payload),
    st.tuples(st.just("delete"), st.sampled_from(TARGETS + ["ln"])),
    st.tuples(st.just("chmod"), st.sampled_from(NAMES), st.sampled_from([0o600, 0o644, 0o755])),
    st.tuples(st.just("rename"), st.sampled_from(TARGETS), st.sampled_from(TARGETS)),
    st.tuples(st.just("mkdir"), st.sampled_from(DIRS + ["a.txt", "d3/f"])),
    st.tuples(st.just("rmtree"), st.sampled_from(DIRS)),
    st.tuples(st.just("movedir"), st.sampled_from(DIRS), st.sampled_from(DIRS)),
    st.tuples(st.just("chmoddir"), st.sampled_from(DIRS), st.sampled_from([0o700, 0o755])),
    st.tuples(st.just("symlink"), st.sampled_from(["a.txt", "d1", "nowhere"])),
)


def apply_change(ws: Path, change: tuple) -> None:
    kind, *args = change
    p = ws / args[0]
    try:
        if kind == "write":
            if not p.is_symlink() and not p.is_dir():
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(args[1])
        elif kind == "append" and p.is_file() and not p.is_symlink():
            with open(p, "ab") as f:
                f.write(args[1])
        elif kind == "delete" and (p.is_symlink() or p.is_file()):
            p.unlink()
        elif kind == "chmod" and p.is_file() and not p.is_symlink():
            os.chmod(p, args[1])
        elif kind == "rename" and p.is_file() and not p.is_symlink():
            dst = ws / args[1]
            if not dst.is_dir():
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(p, dst)
        elif kind == "mkdir" and not os.path.lexists(p):
            p.mkdir(parents=True, exist_ok=True)
        elif kind == "rmtree" and p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif kind == "movedir" and p.is_dir() and not p.is_symlink():
            dst = ws / args[1]
            if not os.path.lexists(dst) and not str(dst).startswith(str(p) + "/"):
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.rename(p, dst)
        elif kind == "chmoddir" and p.is_dir() and not p.is_symlink():
            os.chmod(p, args[1])
        elif kind == "symlink" and not os.path.lexists(ws / "ln"):
            os.symlink(args[0], ws / "ln")
    except (NotADirectoryError, FileExistsError, IsADirectoryError):
        pass  # a file where a directory is wanted, or the reverse: the command would fail too


def seeded_repo(ws: Path, extra_files: int) -> None:
    files = {rel: f"{rel}\n".encode() for rel in NAMES if rel != "x.tmp"}
    for i in range(extra_files):
        files[f"bulk/p{i // 100}/m{i}.txt"] = f"bulk {i}\n".encode()
    files[".gitignore"] = b"*.tmp\n"
    repo_with(ws, files, untracked={"x.tmp": b"ignored\n", "u.txt": b"untracked\n"})


def check_rewind(commands: list[list[tuple]], extra_files: int, watch: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        ws = tmp / "ws"
        seeded_repo(ws, extra_files)
        store = CheckpointStore(ws, tmp / "store", watch=watch)

        async def session() -> list[dict]:
            await store.prepare()
            before = []
            for n, changes in enumerate(commands, start=1):
                before.append(tree(ws, lambda rel: rel.endswith(".tmp")))
                store.begin(f"p{n}", "x")
                async with Shell(store):
                    for change in changes:
                        apply_change(ws, change)
            return before

        def now() -> dict:
            return tree(ws, lambda rel: rel.endswith(".tmp"))

        before = asyncio.run(session())
        latest = now()
        result = store.rewind("p1")
        assert result.errors == {} and result.conflicts == [], result
        assert now() == before[0]
        redo = store.redo(result.rewind_id)
        assert redo.errors == {} and redo.conflicts == [], redo
        assert now() == latest
        last = store.rewind(f"p{len(commands)}")
        assert last.errors == {} and last.conflicts == [], last
        assert now() == before[-1]
        store.close()


@needs_git
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    commands=st.lists(st.lists(shell_change, min_size=1, max_size=6), min_size=1, max_size=3),
    watch=st.booleans(),
)
@example(  # a directory removed and made again, with the inode number of the old (ext4)
    commands=[[("rmtree", "d1"), ("rename", "a.txt", "d1/c.md")], [("delete", "d1/c.md")]],
    watch=True,
)
def test_random_shell_changes_in_a_repository_are_rewound_exactly(
    commands: list[list[tuple]], watch: bool
) -> None:
    check_rewind(commands, 0, watch)


BIG_TREE_FILES = int(os.environ.get("EDDY_BIG_TREE_FILES", "3000"))


@pytest.mark.slow
@needs_git
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(commands=st.lists(st.lists(shell_change, min_size=1, max_size=8), min_size=1, max_size=3))
def test_random_shell_changes_in_a_larger_tree_are_rewound_exactly(
    commands: list[list[tuple]],
) -> None:
    """The same in a tree of ``EDDY_BIG_TREE_FILES`` tracked files (default 3,000)."""
    check_rewind(commands, BIG_TREE_FILES, True)
