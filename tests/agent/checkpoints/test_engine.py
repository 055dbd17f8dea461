"""The checkpoint engine: capture through the tool hooks, rewind, redo, conflicts, storage."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.checkpoints import snapshot as snapshot_mod
from agent.checkpoints import tracker as tracker_mod
from agent.checkpoints.engine import CheckpointError, CheckpointStore, session_checkpoint_dir
from tools import edit as edit_mod
from tools import read as read_mod
from tools import write as write_mod
from tools.base import ToolContext

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True, scope="module", params=["watcher", "scanning"])
def how_changes_are_found(request: pytest.FixtureRequest) -> Any:
    """Every test twice: with the inotify watcher, and scanning the tree as where there is none."""
    if request.param == "watcher":
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tracker_mod, "open_watcher", lambda *args: None)
        yield


# -- helpers --------------------------------------------------------------------------------------


def make(tmp: Path, **options: Any) -> tuple[Path, CheckpointStore]:
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    return ws, CheckpointStore(ws, tmp / "store", **options)


async def tool_write(store: CheckpointStore, path: Path, data: bytes) -> None:
    """What Write/Edit do: the hook, then the write (parents created), then the settle."""
    await store.before_change([path])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    store.settle()


class Shell:
    """``async with Shell(store):`` brackets direct file operations like a Bash call."""

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store

    async def __aenter__(self) -> None:
        await self.store.before_shell()

    async def __aexit__(self, *exc: object) -> None:
        await self.store.after_shell()


def tree(ws: Path, skip=lambda rel: False) -> dict[str, tuple]:
    """Every path below ``ws`` (no .git) with its kind, content / target and mode bits."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(ws):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, ws).replace(os.sep, "/")
            if skip(rel):
                continue
            st_ = os.lstat(full)
            if stat.S_ISLNK(st_.st_mode):
                out[rel] = ("link", os.readlink(full))
            elif stat.S_ISDIR(st_.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st_.st_mode))
            else:
                out[rel] = ("file", Path(full).read_bytes(), stat.S_IMODE(st_.st_mode))
    return out


# -- the property: random sessions, rewind, redo --------------------------------------------------

TRACKED = ["a.txt", "b.bin", "sub/c.py", "sub/deep/e.md", "n1.txt", "sub/n2", "newdir/n3"]
TRACKED += ["newdir/inner/n4", "sub/deep/n5"]
DIRS = ["newdir", "newdir/inner", "sub/deep", "emptydir"]
IGNORED = ["build/out.o", "x.log", "sub/y.tmp", "build/new.o", "sub/deep/z.tmp"]
UNTOUCHED = {"keep/u1.txt": b"never touched\n", "keep/u2.bin": b"\x00\x01\x02"}
USER = "user.txt"
LINK_NAME = "ln"
MODES = [0o644, 0o600, 0o755, 0o400, 0o700, 0o664]


def is_ignored(rel: str) -> bool:
    return (
        rel == "build"
        or rel.startswith("build/")
        or rel.endswith(".log")
        or (rel.startswith("sub/") and rel.endswith(".tmp"))
    )


def in_scope_tree(ws: Path) -> dict[str, tuple]:
    return tree(ws, lambda rel: is_ignored(rel) or rel == USER)


def seed(ws: Path) -> None:
    files = {
        ".gitignore": b"build/\n*.log\n",
        "sub/.gitignore": b"*.tmp\n",
        "a.txt": b"alpha\nbeta\ngamma\n",
        "b.bin": bytes(range(256)),
        "sub/c.py": b"print('c')\n",
        "sub/deep/e.md": b"# e\n",
        "build/out.o": b"\x7fELF",
        "x.log": b"log\n",
        "sub/y.tmp": b"tmp",
        USER: b"the user's notes\n",
        **UNTOUCHED,
    }
    for rel, data in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (ws / ".git").mkdir()
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


contents = st.one_of(
    st.just(b""),
    st.sampled_from([b"x\n", b"line one\nline two\n", b"alpha\nBETA\ngamma\n", b"\x00\xff\x00"]),
    st.binary(max_size=24),
)
tracked = st.sampled_from(TRACKED)
shell_op = st.one_of(
    st.tuples(st.just("put"), st.sampled_from(TRACKED + IGNORED), contents),
    st.tuples(st.just("append"), tracked, contents),
    st.tuples(st.just("delete"), st.sampled_from(TRACKED + IGNORED + [LINK_NAME])),
    st.tuples(st.just("rename"), tracked, tracked),
    st.tuples(st.just("chmod"), tracked, st.sampled_from(MODES)),
    st.tuples(st.just("mkdir"), st.sampled_from(DIRS)),
    st.tuples(st.just("rmdir"), st.sampled_from(DIRS)),
    st.tuples(st.just("chmoddir"), st.sampled_from(DIRS), st.sampled_from([0o755, 0o700])),
    st.tuples(st.just("symlink"), st.sampled_from(["a.txt", "missing", "sub/c.py"])),
)
op = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(TRACKED + IGNORED[:2]), contents),
    st.tuples(st.just("edit"), tracked, contents),
    st.tuples(st.just("multiedit"), st.lists(tracked, min_size=1, max_size=3), contents),
    st.tuples(st.just("bash"), st.lists(shell_op, min_size=1, max_size=4)),
    st.tuples(st.just("user"), contents),
)
session = st.lists(st.lists(op, max_size=5), min_size=1, max_size=4)


def do_shell_op(ws: Path, o: tuple) -> None:
    kind, *args = o
    if kind == "put":
        p = ws / args[0]
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.is_symlink():
            p.write_bytes(args[1])
    elif kind == "append":
        p = ws / args[0]
        if p.is_file():
            with open(p, "ab") as f:
                f.write(args[1])
    elif kind == "delete":
        p = ws / args[0]
        if p.is_symlink() or p.is_file():
            p.unlink()
    elif kind == "rename":
        src, dst = ws / args[0], ws / args[1]
        if src.is_file() and src != dst:
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
    elif kind == "chmod":
        p = ws / args[0]
        if p.is_file():
            os.chmod(p, args[1])
    elif kind == "mkdir":
        (ws / args[0]).mkdir(parents=True, exist_ok=True)
    elif kind == "rmdir":
        p = ws / args[0]
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    elif kind == "chmoddir":
        p = ws / args[0]
        if p.is_dir():
            os.chmod(p, args[1])
    elif kind == "symlink":
        p = ws / LINK_NAME
        if not os.path.lexists(p):
            os.symlink(args[0], p)


async def run_session(ws: Path, store: CheckpointStore, prompts: list[list[tuple]]) -> list[dict]:
    """Run the prompts; return the in-scope tree as it was before each prompt."""
    before: list[dict] = []
    for n, ops in enumerate(prompts, start=1):
        before.append(in_scope_tree(ws))
        store.begin(f"p{n}", f"prompt {n}")
        for o in ops:
            kind = o[0]
            if kind == "write" or (kind == "edit" and (ws / o[1]).is_file()):
                await tool_write(store, ws / o[1], o[2])
            elif kind == "multiedit":
                paths = [ws / p for p in dict.fromkeys(o[1]) if (ws / p).is_file()]
                if paths:
                    await store.before_change(paths)
                    for p in paths:
                        p.write_bytes(o[2] + p.read_bytes())
                    store.settle()
            elif kind == "bash":
                async with Shell(store):
                    for s in o[1]:
                        do_shell_op(ws, s)
            elif kind == "user":
                (ws / USER).write_bytes(o[1])
    return before


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(prompts=session, data=st.data())
def test_rewind_restores_the_state_before_any_prompt_and_redo_undoes_it(
    prompts: list[list[tuple]], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        ws = tmp / "ws"
        ws.mkdir()
        seed(ws)
        store = CheckpointStore(ws, tmp / "store")
        before = asyncio.run(run_session(ws, store, prompts))
        if data.draw(st.booleans(), label="resume in a new store"):
            store.close()
            store = CheckpointStore(ws, tmp / "store")

        k = data.draw(st.integers(1, len(prompts)), label="rewind to")
        latest = in_scope_tree(ws)
        outside = tree(ws, lambda rel: not (is_ignored(rel) or rel == USER))
        git_head = (ws / ".git" / "HEAD").read_bytes()

        plan = store.plan_rewind(f"p{k}")
        assert plan.conflicts == []
        result = store.rewind(f"p{k}")
        assert result.errors == {}
        assert set(result.not_restorable) <= set(IGNORED)
        assert in_scope_tree(ws) == before[k - 1]
        for rel, data_ in UNTOUCHED.items():
            assert (ws / rel).read_bytes() == data_
        assert tree(ws, lambda rel: not (is_ignored(rel) or rel == USER)) == outside
        assert (ws / ".git" / "HEAD").read_bytes() == git_head

        redo = store.redo(result.rewind_id)
        assert redo.errors == {} and redo.conflicts == []
        assert in_scope_tree(ws) == latest
        assert tree(ws, lambda rel: not (is_ignored(rel) or rel == USER)) == outside

        k2 = data.draw(st.integers(1, len(prompts)), label="then rewind to")
        again = store.rewind(f"p{k2}")
        assert again.errors == {} and again.conflicts == []
        assert in_scope_tree(ws) == before[k2 - 1]


# -- conflicts ------------------------------------------------------------------------------------


async def test_a_file_the_user_changed_is_a_conflict_left_alone_unless_overwritten(
    tmp_path: Path,
) -> None:
    ws, store = make(tmp_path)
    (ws / "f.py").write_text("v1\n")
    store.begin("p1", "change f")
    await tool_write(store, ws / "f.py", b"v2 by eddy\n")
    await tool_write(store, ws / "new.py", b"created by eddy\n")
    (ws / "f.py").write_text("v3 by the user\n")  # in an editor
    (ws / "new.py").write_text("the user kept working here\n")

    plan = store.plan_rewind("p1")
    assert sorted(c.path for c in plan.conflicts) == ["f.py", "new.py"]
    assert all("changed since eddy" in c.reason for c in plan.conflicts)

    result = store.rewind("p1")
    assert sorted(c.path for c in result.conflicts) == ["f.py", "new.py"]
    assert not result.overwritten and result.restored == [] and result.deleted == []
    assert (ws / "f.py").read_text() == "v3 by the user\n"
    assert (ws / "new.py").read_text() == "the user kept working here\n"

    result = store.rewind("p1", overwrite_conflicts=True)
    assert result.overwritten and result.restored == ["f.py"] and result.deleted == ["new.py"]
    assert (ws / "f.py").read_text() == "v1\n"
    assert not (ws / "new.py").exists()

    store.redo(result.rewind_id)  # the user's versions come back
    assert (ws / "f.py").read_text() == "v3 by the user\n"
    assert (ws / "new.py").read_text() == "the user kept working here\n"


async def test_only_conflicting_files_are_held_back(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    for name in ("a", "b"):
        (ws / name).write_text(f"{name}0\n")
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "a").write_text("a1\n")
        (ws / "b").write_text("b1\n")
    (ws / "b").unlink()  # the user deleted it
    plan = store.plan_rewind("p1")
    assert [(c.path, c.reason) for c in plan.conflicts] == [
        ("b", "deleted since eddy last changed it")
    ]
    assert plan.restore == ["a", "b"]
    result = store.rewind("p1")
    assert result.restored == ["a"]
    assert (ws / "a").read_text() == "a0\n" and not (ws / "b").exists()


async def test_a_file_the_user_reverted_needs_nothing(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "f").write_text("v1\n")
    store.begin("p1", "x")
    await tool_write(store, ws / "f", b"v2\n")
    (ws / "f").write_text("v1\n")
    plan = store.plan_rewind("p1")
    assert plan.conflicts == [] and plan.empty


# -- resume ---------------------------------------------------------------------------------------


async def test_rewind_after_loading_in_a_new_store(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "keep.txt").write_text("k\n")
    store.begin("p1", "one")
    await tool_write(store, ws / "a.txt", b"a\n")
    store.begin("p2", "two")
    async with Shell(store):
        (ws / "keep.txt").write_text("changed by a command\n")
        (ws / "made").mkdir()
        (ws / "made" / "m.txt").write_text("m\n")
    store.close()
    del store

    again = CheckpointStore(ws, tmp_path / "store")
    assert [s.id for s in again.list()] == ["p1", "p2"]
    assert again.summary("p2").text == "2 files +2 -1"
    result = again.rewind("p2")
    assert sorted(result.restored) == ["keep.txt"] and result.deleted == ["made/m.txt"]
    assert result.dirs_removed == ["made"]
    assert (ws / "keep.txt").read_text() == "k\n" and (ws / "a.txt").exists()
    result = again.rewind("p1")
    assert not (ws / "a.txt").exists()


async def test_rewind_in_another_process(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "f").write_text("before\n")
    store.begin("p1", "one")
    await tool_write(store, ws / "f", b"after\n")
    async with Shell(store):
        (ws / "g").write_text("made by a command\n")
    del store  # no close: everything needed is saved as it happens
    code = (
        "import sys; from pathlib import Path\n"
        "from agent.checkpoints.engine import CheckpointStore\n"
        "s = CheckpointStore(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "r = s.rewind('p1'); print(sorted(r.restored), sorted(r.deleted))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ws), str(tmp_path / "store")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['f'] ['g']"
    assert (ws / "f").read_text() == "before\n" and not (ws / "g").exists()


async def test_an_unreadable_store_is_set_aside(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    store.begin("p1", "one")
    (tmp_path / "store" / "checkpoints.json").write_text("{not json")
    again = CheckpointStore(ws, tmp_path / "store")
    assert again.list() == [] and again.load_problem is not None
    assert list((tmp_path / "store").glob("checkpoints.json.unreadable-*"))


# -- storage --------------------------------------------------------------------------------------


async def test_old_checkpoints_are_pruned_with_their_blobs(tmp_path: Path) -> None:
    ws, store = make(tmp_path, retention=3)
    for n in range(1, 7):
        store.begin(f"p{n}", f"prompt {n}")
        await tool_write(store, ws / "f.txt", f"version {n}\n".encode())
    store.begin("p7", "last")
    assert [s.id for s in store.list()] == ["p5", "p6", "p7"]
    with pytest.raises(CheckpointError):
        store.rewind("p2")
    # p5's "before" is version 4, so versions 4..6 are still needed; 1..3 are gone
    for n in range(1, 7):
        sha = hashlib.sha256(f"version {n}\n".encode()).hexdigest()
        assert store.blobs.path(sha).exists() == (n >= 4), n
    store.rewind("p5")
    assert (ws / "f.txt").read_text() == "version 4\n"


async def test_the_same_content_is_stored_once(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    same = b"the same content\n" * 100
    for i in range(20):
        (ws / f"copy{i}.txt").write_bytes(same)
    store.begin("p1", "x")
    async with Shell(store):
        pass
    for n in range(2, 6):
        store.begin(f"p{n}", "x")
        await tool_write(store, ws / "copy0.txt", same + b"!")  # then back, each time
        await tool_write(store, ws / "copy0.txt", same)
    count, size = store.blobs.disk_usage()
    assert count == 2
    assert size == 2 * len(same) + 1


# -- scope ----------------------------------------------------------------------------------------


async def test_out_of_scope_changes_are_reported_not_restorable(tmp_path: Path) -> None:
    ws, store = make(tmp_path, max_file_bytes=1000)
    (ws / ".gitignore").write_text("dist/\n")
    (ws / "big.dat").write_bytes(b"b" * 5000)
    outside = tmp_path / "elsewhere.txt"
    store.begin("p1", "x")
    await tool_write(store, ws / "dist" / "bundle.js", b"ignored\n")
    await tool_write(store, outside, b"outside\n")
    async with Shell(store):
        (ws / "big.dat").write_bytes(b"c" * 6000)
        (ws / "made.dat").write_bytes(b"m" * 6000)  # over the cap, but created: deletable
    summary = store.summary("p1")
    assert summary.not_restorable == {
        "dist/bundle.js": "ignored by .gitignore",
        str(outside): "outside the workspace",
        "big.dat": "larger than the 1000 bytes size cap",
    }
    assert summary.text == "made.dat created, 3 files not restorable"  # named, no +0 -0
    result = store.rewind("p1")
    assert set(result.not_restorable) == {"dist/bundle.js", str(outside), "big.dat"}
    assert result.deleted == ["made.dat"]
    assert (ws / "big.dat").read_bytes() == b"c" * 6000
    assert (ws / "dist" / "bundle.js").exists() and outside.exists()


async def test_files_past_the_snapshot_budget_are_only_stat_ed(tmp_path: Path) -> None:
    ws, store = make(tmp_path, max_snapshot_bytes=25, racy_window_ns=0)
    for name in ("a", "b", "c"):
        (ws / name).write_bytes(b"0123456789")
    store.begin("p1", "x")
    async with Shell(store):
        for name in ("a", "b", "c"):
            (ws / name).write_bytes(b"changed!!!")
    summary = store.summary("p1")
    assert len(summary.files) == 2
    assert list(summary.not_restorable.values()) == ["over the workspace snapshot budget"]
    async with Shell(store):  # a rescan keeps the same files within the budget
        pass
    assert store.scanner.files_read == 2 + 2  # before and after the first command


async def test_nested_gitignore_and_git_directory(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / ".git" / "info").mkdir(parents=True)
    (ws / ".git" / "info" / "exclude").write_text("secret.txt\n")
    (ws / "pkg").mkdir()
    (ws / "pkg" / ".gitignore").write_text("*.gen\n!keep.gen\n")
    store.begin("p1", "x")
    async with Shell(store):
        (ws / ".git" / "HEAD").write_text("changed\n")
        (ws / "pkg" / "a.gen").write_text("gen\n")
        (ws / "pkg" / "keep.gen").write_text("kept\n")
        (ws / "secret.txt").write_text("s\n")
    assert [f.path for f in store.summary("p1").files] == ["pkg/keep.gen"]
    store.rewind("p1")
    assert (ws / ".git" / "HEAD").read_text() == "changed\n"
    assert (ws / "pkg" / "a.gen").exists() and (ws / "secret.txt").exists()
    assert not (ws / "pkg" / "keep.gen").exists()


async def test_the_gitignore_of_an_enclosing_repository_applies(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("*.o\n/sub/gen/\n")
    ws = repo / "sub"
    ws.mkdir()
    store = CheckpointStore(ws, tmp_path / "store")
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "main.o").write_text("object\n")
        (ws / "gen").mkdir()
        (ws / "gen" / "code.c").write_text("generated\n")
        (ws / "main.c").write_text("source\n")
    assert [f.path for f in store.summary("p1").files] == ["main.c"]
    await tool_write(store, ws / "gen" / "more.c", b"x\n")
    assert store.summary("p1").not_restorable == {"gen/more.c": "ignored by .gitignore"}


async def test_a_gitignore_change_does_not_make_old_ignored_files_look_created(
    tmp_path: Path,
) -> None:
    ws, store = make(tmp_path, racy_window_ns=0)
    (ws / ".gitignore").write_text("out/\n")
    (ws / "out").mkdir()
    (ws / "out" / "old.bin").write_text("built long ago\n")
    old = (ws / "out" / "old.bin").stat().st_mtime - 3600
    os.utime(ws / "out" / "old.bin", (old, old))
    await asyncio.sleep(0.01)
    store.begin("p1", "x")
    async with Shell(store):
        (ws / ".gitignore").write_text("")
        (ws / "src.py").write_text("new\n")
    summary = store.summary("p1")
    assert sorted(f.path for f in summary.files) == [".gitignore", "src.py"]
    store.rewind("p1")
    assert (ws / "out" / "old.bin").read_text() == "built long ago\n"
    assert (ws / ".gitignore").read_text() == "out/\n" and not (ws / "src.py").exists()


async def test_a_tree_moved_in_by_a_command_is_not_deleted_by_a_rewind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_mod, "RACY_WINDOW_NS", 50_000_000)
    ws, store = make(tmp_path)
    outside = tmp_path / "downloads" / "tree"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner" / "data.csv").write_text("exists nowhere else once moved\n")
    await asyncio.sleep(0.2)  # older than the racy window
    store.begin("p1", "x")
    async with Shell(store):
        os.rename(outside, ws / "tree")
    summary = store.summary("p1")
    assert summary.not_restorable == {
        "tree/inner/data.csv": "moved into the workspace by a command: a rewind keeps it"
    }
    result = store.rewind("p1")
    assert result.deleted == [] and "tree" in result.errors
    assert (ws / "tree" / "inner" / "data.csv").exists()


async def test_a_created_directory_holding_other_files_is_kept(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / ".gitignore").write_text("*.log\n")
    store.begin("p1", "x")
    await tool_write(store, ws / "new" / "a.py", b"a\n")
    (ws / "new" / "run.log").write_text("ignored, not the session's\n")
    result = store.rewind("p1")
    assert result.deleted == ["new/a.py"] and "new" in result.errors
    assert (ws / "new" / "run.log").exists()


async def test_type_changes_and_links(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "x").write_text("a file\n")
    (ws / "d").mkdir()
    (ws / "d" / "inner").write_text("inner\n")
    os.symlink("x", ws / "ln")
    os.chmod(ws / "x", 0o640)
    before = tree(ws)
    store.begin("p1", "x")
    async with Shell(store):
        (ws / "x").unlink()
        (ws / "x").mkdir()
        (ws / "x" / "child").write_text("c\n")
        (ws / "d" / "inner").unlink()
        (ws / "d").rmdir()
        (ws / "d").write_text("now a file\n")
        (ws / "ln").unlink()
        os.symlink("elsewhere", ws / "ln")
    after = tree(ws)
    result = store.rewind("p1")
    assert result.errors == {}
    assert tree(ws) == before
    store.redo(result.rewind_id)
    assert tree(ws) == after


# -- the stat cache -------------------------------------------------------------------------------


async def test_only_changed_files_are_read_again(tmp_path: Path) -> None:
    ws, store = make(tmp_path, racy_window_ns=0)
    for i in range(50):
        (ws / f"f{i}").write_text(f"{i}\n")
    store.begin("p1", "x")
    await store.prepare()
    assert store.scanner.files_read == 50
    async with Shell(store):
        pass
    assert store.scanner.files_read == 50
    (ws / "f1").write_text("the user changed it\n")
    async with Shell(store):
        (ws / "f2").write_text("a command changed it\n")
    assert store.scanner.files_read == 52
    assert [f.path for f in store.summary("p1").files] == ["f2"]
    store.close()
    again = CheckpointStore(ws, tmp_path / "store", racy_window_ns=0)
    async with Shell(again):
        pass
    assert again.scanner.files_read == 0  # the saved stat cache spared reading


async def test_recently_modified_files_are_read_again(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "f").write_text("aaaa\n")
    store.begin("p1", "x")
    async with Shell(store):
        # the same size, possibly the same timestamp: only re-reading can tell
        with open(ws / "f", "r+b") as fh:
            fh.write(b"bbbb")
    assert [f.path for f in store.summary("p1").files] == ["f"]


# -- summaries and ids ----------------------------------------------------------------------------


async def test_summaries(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "a.py").write_text("1\n2\n3\n4\n")
    store.begin("p1", "nothing")
    store.begin("p2", "edit")
    await tool_write(store, ws / "a.py", b"1\nTWO\n3\n4\n5\n")
    await tool_write(store, ws / "b.py", b"x\ny\n")
    async with Shell(store):
        (ws / "img.png").write_bytes(b"\x89PNG\x00\x01")
    listed = store.list()
    assert [(s.id, s.prompt, s.text) for s in listed] == [
        ("p1", "nothing", "no code changes"),
        ("p2", "edit", "3 files +4 -1"),
    ]
    assert listed[1].shell_commands == 1
    assert {f.path: (f.status, f.added, f.removed) for f in listed[1].files} == {
        "a.py": ("modified", 2, 1),
        "b.py": ("created", 2, 0),
        "img.png": ("created", 0, 0),
    }
    result = store.rewind("p2")
    entries = store.list()
    assert entries[-1].kind == "rewind" and entries[-1].id == result.rewind_id
    assert entries[-1].target == "p2"
    with pytest.raises(CheckpointError):
        store.redo("p2")
    with pytest.raises(CheckpointError):
        store.begin("p1", "again")
    with pytest.raises(CheckpointError):
        store.summary("nope")


async def test_a_failed_scan_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, store = make(tmp_path)
    store.begin("p1", "x")

    def broken(prev: object, **options: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.scanner, "scan", broken)
    async with Shell(store):
        (ws / "f").write_text("made by a command\n")
    summary = store.summary("p1")
    assert summary.problems == ["a command's changes were not captured (No space left on device)"]
    assert summary.text == "some changes not captured"


async def test_a_redo_meets_conflicts_too(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "f").write_text("v1\n")
    store.begin("p1", "x")
    await tool_write(store, ws / "f", b"v2\n")
    rewind = store.rewind("p1")
    (ws / "f").write_text("the user, after the rewind\n")
    redo = store.redo(rewind.rewind_id)
    assert [c.path for c in redo.conflicts] == ["f"] and redo.restored == []
    assert (ws / "f").read_text() == "the user, after the rewind\n"
    store.redo(rewind.rewind_id, overwrite_conflicts=True)
    assert (ws / "f").read_text() == "v2\n"


async def test_tool_calls_are_recorded_and_prepare_takes_the_first_snapshot(
    tmp_path: Path,
) -> None:
    ws, store = make(tmp_path)
    (ws / "f").write_text("v1\n")
    await store.prepare()
    read = store.scanner.files_read
    store.begin("p1", "x")
    await store.before_change([ws / "f"], tool_use_id="toolu_1")
    (ws / "f").write_text("v2\n")
    store.settle()
    assert store.entries[-1].changes["f"].tools == ["toolu_1"]
    assert read == 1


async def test_changes_before_any_prompt_get_a_checkpoint(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    await tool_write(store, ws / "a", b"a\n")
    [entry] = store.list()
    assert entry.id.startswith("auto-") and entry.text == "a created +1"


async def test_the_real_file_tools_call_the_hook(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    (ws / "m.py").write_text("x = 1\n")
    ctx = ToolContext(ws, checkpoints=store)
    store.begin("p1", "x")
    await read_mod.TOOL.run({"file_path": "m.py"}, ctx)
    await edit_mod.TOOL.run({"file_path": "m.py", "old_string": "1", "new_string": "2"}, ctx)
    await write_mod.TOOL.run({"file_path": "pkg/new.py", "content": "y = 3\n"}, ctx)
    store.settle()
    assert store.summary("p1").text == "2 files +2 -1"
    store.rewind("p1")
    assert (ws / "m.py").read_text() == "x = 1\n" and not (ws / "pkg").exists()


def test_session_checkpoint_dir_is_beside_the_transcript(tmp_path: Path) -> None:
    d = session_checkpoint_dir(tmp_path, "abc")
    assert d.name == "abc.checkpoints" and d.parent.name == "sessions"


def test_the_log_is_json(tmp_path: Path) -> None:
    ws, store = make(tmp_path)
    store.begin("p1", "x")
    data = json.loads((tmp_path / "store" / "checkpoints.json").read_text())
    assert data == store.to_json() and data["entries"][0]["id"] == "p1"
