"""Checkpoint engine on a 10,000-file, 100 MB workspace (issue 5).

Reports: the first snapshot of the tree; the capture cost before a Bash call when nothing
changed (target < 50 ms) and when 100 files changed; the cost after the call; a rewind of 100
files (target < 200 ms); and the store's size after 100 checkpoints of small edits.
With ``--git`` the workspace is a git repository with every file committed: then the first
snapshot reads nothing git holds, and the store keeps only what changed.
Prints figures, asserts nothing.
Run: .venv/bin/python bench/bench_checkpoints.py [--files N] [--size BYTES] [--git]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.checkpoints.engine import CheckpointStore  # noqa: E402


def generate(ws: Path, files: int, size: int, rng: random.Random) -> list[Path]:
    """``files`` source-like files of ``size`` bytes in 100 directories (10 top, 10 each)."""
    words = [b"def", b"return", b"self", b"value", b"import", b"class", b"if", b"else", b"#"]
    paths = []
    per_dir = max(1, files // 100)
    for i in range(files):
        d = ws / f"pkg{(i // per_dir) // 10}" / f"mod{(i // per_dir) % 10}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        body = bytearray()
        while len(body) < size:
            body += b" ".join(rng.choices(words, k=8)) + b"\n"
        p = d / f"file{i}.py"
        p.write_bytes(bytes(body[: size - 16]) + f"# unique {i:06d}\n".encode()[:16])
        paths.append(p)
    (ws / ".gitignore").write_text("node_modules/\n*.pyc\n__pycache__/\n")
    return paths


async def timed(fn: Callable[[], Awaitable[None]]) -> float:
    t = time.perf_counter()
    await fn()
    return (time.perf_counter() - t) * 1000


def du(path: Path) -> int:
    total = 0
    for dirpath, _dirs, names in os.walk(path):
        for n in names:
            total += os.lstat(os.path.join(dirpath, n)).st_size
    return total


def commit_all(ws: Path) -> None:
    """Make ``ws`` a git repository with everything committed, its index fresh."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "all"]):
        subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True)
    time.sleep(1.1)  # the index older than the files by a second: not racily clean
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=ws, check=False)


async def main(files: int, size: int, git: bool) -> None:
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        ws, store_dir = Path(tmp) / "ws", Path(tmp) / "store"
        ws.mkdir()
        t = time.perf_counter()
        paths = generate(ws, files, size, rng)
        print(f"workspace: {files} files, {du(ws) / 1e6:.1f} MB ({time.perf_counter() - t:.1f} s)")
        if git:
            commit_all(ws)
            print("  a git repository, every file committed")
        time.sleep(2.1)  # files younger than 2 s are "racy" and read again at the next scan

        store = CheckpointStore(ws, store_dir)
        store.begin("p0", "warm up")
        ms = await timed(store.prepare)
        what = "reads what git does not hold" if git else "reads and stores every file"
        print(f"first snapshot ({what}): {ms:8.1f} ms, {store.scanner.files_read} files read")

        samples = []
        for _ in range(7):
            samples.append(await timed(store.before_shell))
            await store.after_shell()
        print(f"before Bash, nothing changed (median of 7):   {statistics.median(samples):8.1f} ms")
        print(f"  (min {min(samples):.1f}, max {max(samples):.1f})")

        changed = rng.sample(paths, 100)
        for p in changed:
            with open(p, "ab") as f:
                f.write(b"# edited outside eddy\n")
        ms = await timed(store.before_shell)
        print(f"before Bash, 100 files changed since:         {ms:8.1f} ms")
        for p in rng.sample(paths, 100):
            with open(p, "ab") as f:
                f.write(b"# edited by the command\n")
        ms = await timed(store.after_shell)
        print(f"after Bash that changed 100 files:            {ms:8.1f} ms")

        store.begin("p1", "change 100 files")
        await store.before_shell()
        targets = rng.sample(paths, 100)
        for p in targets:
            p.write_bytes(p.read_bytes()[:-100] + b"# rewritten by the command\n")
        await store.after_shell()
        t = time.perf_counter()
        store.plan_rewind("p1")
        plan_ms = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        result = store.rewind("p1")
        ms = (time.perf_counter() - t) * 1000
        print(f"plan a rewind of 100 files:                   {plan_ms:8.1f} ms")
        n = len(result.restored)
        print(f"rewind of {n} files (plan + restore + record): {ms:8.1f} ms")
        t = time.perf_counter()
        store.redo(result.rewind_id)
        ms = (time.perf_counter() - t) * 1000
        print(f"redo of that rewind:                          {ms:8.1f} ms")

        begins = []
        for i in range(100):
            t = time.perf_counter()
            store.begin(f"e{i}", f"small edit {i}")
            begins.append((time.perf_counter() - t) * 1000)
            p = paths[(i * 37) % len(paths)]
            await store.before_change([p])
            p.write_bytes(p.read_bytes().replace(b"value", b"VALUE", 1) + f"#{i}\n".encode())
            store.settle()
            if i % 10 == 0:
                await store.before_shell()
                q = paths[(i * 53) % len(paths)]
                with open(q, "ab") as f:
                    f.write(b"# appended by a command\n")
                await store.after_shell()
        store.close()
        print(f"begin() of a checkpoint (median of 100):      {statistics.median(begins):8.1f} ms")
        usage = store.disk_usage()
        snapshot_shas = (
            {e.state.sha for e in snap.files.values()}
            if (snap := store.tracker.snapshot)
            else set()
        )
        extra = {s for e in store.entries for s in e.shas()} - snapshot_shas
        extra_bytes = sum(store.blobs.path(s).stat().st_size for s in extra)
        tree = du(ws) - (du(ws / ".git") if git else 0)
        print(
            f"store after 100 checkpoints of small edits:   {du(store_dir) / 1e6:8.1f} MB on disk, "
            f"for a {tree / 1e6:.1f} MB workspace"
        )
        print(
            f"  blobs {usage['blobs'] / 1e6:.1f} MB in {usage['blob_count']} files: the shell "
            f"snapshot's copies + {len(extra)} blobs, {extra_bytes / 1e6:.2f} MB, "
            f"that only the checkpoints need"
        )
        print(
            f"  checkpoints.json {usage['log'] / 1e3:.0f} KB, "
            f"snapshot.json (stat cache) {usage['index'] / 1e6:.1f} MB"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--git", action="store_true", help="commit the workspace to git first")
    args = ap.parse_args()
    asyncio.run(main(args.files, args.size, args.git))
