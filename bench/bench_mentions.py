"""@-mention completion on a 100,000-file tree (issue 7: fuzzy, .gitignore honoured, fast).

Prints figures, asserts nothing. Run: ``.venv/bin/python bench/bench_mentions.py [FILES]``.
Builds a tree of FILES files (default 100,000; a tenth of them under a git-ignored build/),
then times building the index (in a git repository: ``git ls-files``; without git: the
listing Glob uses, ``rg --files`` under eddy's ignore rules: tools/search_files.py) and the
per-keystroke search for prefixes of a few queries, as the prompt runs them while the user
types. A keystroke's budget is a frame (~16 ms).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUERIES = ("srvhandler", "test_parse", "pkg17/mod3", "README", "zzz-no-match")


def make_tree(root: Path, files: int) -> None:
    (root / ".gitignore").write_text("build/\n*.log\n")
    made = 0
    pkg = 0
    while made < files:
        where = root / ("build" if pkg % 10 == 9 else "src") / f"pkg{pkg}"
        for sub in range(10):
            d = where / f"mod{sub}"
            d.mkdir(parents=True, exist_ok=True)
            for i in range(10):
                stem = "test_parse" if i == 0 else "srv_handler" if i == 1 else "file"
                name = f"{stem}_{i}.py"
                (d / name).write_text("")
                made += 1
        pkg += 1
    (root / "README.md").write_text("# bench\n")


def time_index(root: Path, label: str) -> None:
    from frontend.fileindex import FileIndex

    start = time.perf_counter()
    index = FileIndex.build(root)
    built = time.perf_counter() - start
    files = len(index.files) if hasattr(index, "files") else "?"
    per_key: list[float] = []
    for query in QUERIES:
        for n in range(1, len(query) + 1):  # every keystroke of the query
            t = time.perf_counter()
            index.search(query[:n])
            per_key.append(time.perf_counter() - t)
    ignored = sum(1 for p in index.search("build", limit=1000) if p.startswith("build/"))
    ms = sorted(k * 1000 for k in per_key)
    print(
        f"{label}: index of {files} files built in {built:.2f}s; search per keystroke "
        f"median {statistics.median(ms):.1f} ms, p90 {ms[int(len(ms) * 0.9)]:.1f} ms, max "
        f"{ms[-1]:.1f} ms ({len(ms)} keystrokes); ignored build/ files offered: {ignored}"
    )


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    root = Path(tempfile.mkdtemp(prefix="eddy-bench-mentions-"))
    try:
        t = time.perf_counter()
        make_tree(root, files)
        print(f"tree: {files} files in {time.perf_counter() - t:.1f}s")
        time_index(root, "without git (rg --files)")
        if shutil.which("git"):
            subprocess.run(["git", "init", "-q"], cwd=root, check=True)
            time_index(root, "git repository (git ls-files)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
