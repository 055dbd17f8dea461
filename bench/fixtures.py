"""Big generated trees for the benchmarks, made once and cached.

``big_repo(files, megabytes)`` is a git repository of ``files`` source-like files (one commit,
a ``.gitignore``, an ignored ``node_modules/`` with a tenth as many files beside them) whose
tracked files add up to about ``megabytes`` MB: what a real repository of that size looks like
to a tool that walks it. The content is deterministic (seeded), so two runs of a bench measure
the same tree. Trees live under ``$EDDY_BENCH_CACHE`` (default ``~/.cache/eddy-bench``) and are
reused while their marker file is there; a bench that changes a tree works on a copy
(``scratch_copy``).

Run directly to make (or show) a tree: ``python bench/fixtures.py 20000 300``.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [b"def", b"return", b"self", b"value", b"import", b"class", b"if", b"else", b"#", b"x"]
DONE = ".eddy-bench-ready"


def cache_dir() -> Path:
    """Where generated trees are kept."""
    root = os.environ.get("EDDY_BENCH_CACHE") or str(Path.home() / ".cache" / "eddy-bench")
    return Path(root)


def _body(rng: random.Random, size: int, index: int) -> bytes:
    line = b" ".join(rng.choices(WORDS, k=8)) + b"\n"
    reps = max(1, size // len(line))
    tail = f"# unique {index:07d} {rng.random():.6f}\n".encode()
    return (line * reps)[: max(0, size - len(tail))] + tail


def _write_tree(root: Path, files: int, megabytes: float, seed: int) -> None:
    rng = random.Random(seed)
    mean = int(megabytes * 1_000_000 / max(1, files))
    per_dir = 50
    for i in range(files):
        d = root / f"src{i // (per_dir * 40):03d}" / f"pkg{(i // per_dir) % 40:02d}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        # sizes vary (most files small, a few large), the mean stays ``mean``
        size = max(64, int(rng.expovariate(1 / mean))) if mean > 64 else mean
        ext = (".py", ".ts", ".md", ".json", ".c")[i % 5]
        (d / f"file{i:06d}{ext}").write_bytes(_body(rng, size, i))
    (root / ".gitignore").write_text("node_modules/\n*.pyc\n__pycache__/\nbuild/\n")
    (root / "README.md").write_text("# generated tree for eddy's benchmarks\n")
    ignored = root / "node_modules"
    for i in range(max(1, files // 10)):
        d = ignored / f"dep{i // 100:03d}"
        if i % 100 == 0:
            d.mkdir(parents=True, exist_ok=True)
        (d / f"index{i}.js").write_bytes(_body(rng, 512, i))


def _git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def big_repo(files: int, megabytes: float, *, git: bool = True, seed: int = 1) -> Path:
    """A cached generated tree of ``files`` tracked files, about ``megabytes`` MB in all.

    Args:
        files: tracked files (``node_modules/`` adds a tenth as many ignored ones).
        megabytes: their total size.
        git: make it a git repository with everything tracked in one commit.
        seed: the content's seed.

    Returns:
        The tree's root. Treat it as read-only: copy it (``scratch_copy``) to change it.
    """
    name = f"tree-{files}-{megabytes:g}-{'git' if git else 'plain'}-{seed}"
    root = cache_dir() / name
    if (root / DONE).exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    started = time.perf_counter()
    print(f"fixtures: generating {root} ...", file=sys.stderr, flush=True)
    _write_tree(root, files, megabytes, seed)
    if git:
        _git(root, "init", "-q", "-b", "main")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "generated")
    (root / DONE).write_text("")
    if git:
        (root / ".git" / "info" / "exclude").write_text(f"{DONE}\n")
    took = time.perf_counter() - started
    print(f"fixtures: {root} ready in {took:.1f} s", file=sys.stderr, flush=True)
    return root


def scratch_copy(tree: Path, into: Path | None = None) -> Path:
    """A private copy of ``tree`` (hard links would share inodes with the cache: a real copy).

    Args:
        tree: a tree from ``big_repo``.
        into: the parent directory (default: a new temporary directory).
    """
    parent = into or Path(tempfile.mkdtemp(prefix="eddy-bench-"))
    dest = parent / tree.name
    subprocess.run(["cp", "-a", str(tree), str(dest)], check=True)
    return dest


def tree_bytes(root: Path) -> int:
    """The size of every regular file under ``root`` (``.git`` included)."""
    total = 0
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            try:
                st = os.lstat(os.path.join(dirpath, n))
            except OSError:
                continue
            total += st.st_size
    return total


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    mb = float(sys.argv[2]) if len(sys.argv) > 2 else 300
    path = big_repo(n, mb)
    print(f"{path}: {tree_bytes(path) / 1e6:.0f} MB with .git")
