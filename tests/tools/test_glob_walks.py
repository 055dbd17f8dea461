"""Glob's two listings (``rg --files`` and the Python walk, tools/search_files.py) list the same
files under eddy's ignore rules, where they could differ: nested ignore files and negations,
rules above the searched directory, hidden directories, symbolic links, a directory outside the
workspace, names that are not UTF-8."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tools.search_files as search_files
from tests.tools.test_search import build, call, lines_of
from tools.base import ToolContext, ToolLimits
from tools.glob import GlobTool, find_files
from tools.globpattern import compile_glob
from tools.search_files import find_rg, list_files, newest_files

pytestmark = pytest.mark.skipif(find_rg() is None, reason="ripgrep is not available")


def spy_on_rg(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The rg command lines the listings start from now on (rg still runs)."""
    ran: list[list[str]] = []
    real = search_files._start_rg

    def record(cmd: list[str], cwd: Path) -> Any:
        ran.append(cmd)
        return real(cmd, cwd)

    monkeypatch.setattr(search_files, "_start_rg", record)
    return ran


def listings(start: Path, workspace: Path, pattern: str = "**") -> dict[str, list[str]]:
    """The relative paths each way of listing gives for ``pattern`` below ``start``, sorted:
    the Python walk, rg's parallel walk, and rg's newest-first lists (one process, and split
    between three)."""
    glob = compile_glob(pattern)
    where = start / glob.prefix
    out = {
        "python": find_files(where, glob, workspace, backend="python"),
        "rg": find_files(where, glob, workspace),
    }
    for processes in (1, 3):
        newest = newest_files(
            where,
            workspace,
            100_000,
            max_depth=glob.max_depth,
            names=glob.names,
            keep=glob.regex.match,
            processes=processes,
        )
        if newest is not None:  # None: only the Python rules are exact here
            out[f"newest/{processes}"] = newest[0]
    return {how: sorted(os.path.relpath(p, start) for p in found) for how, found in out.items()}


def the_same(start: Path, workspace: Path, pattern: str = "**") -> list[str]:
    found = listings(start, workspace, pattern)
    python = found.pop("python")
    assert found == dict.fromkeys(found, python)
    return python


NESTED: dict[str, str | bytes] = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\ndocs/**/draft*\n",
    ".ignore": "private/\n",
    "a.py": "",
    "run.log": "",
    "keep.log": "",
    "top-only.txt": "",
    "build/out.py": "",
    "build/keep.log": "",  # a negation cannot re-include a file below an ignored directory
    "private/x.py": "",
    "docs/guide/draft1.md": "",
    "docs/guide/final.md": "",
    "src/top-only.txt": "",  # "/top-only.txt" is anchored at the root
    "src/.gitignore": "!debug.log\n*.tmp\n",
    "src/debug.log": "",
    "src/other.log": "",
    "src/x.tmp": "",
    "src/.ignore": "!x.tmp\n",  # .ignore beats .gitignore in the same directory
    "src/deep/.rgignore": "*.py\n",
    "src/deep/y.py": "",
    "src/deep/y.md": "",
    ".hidden/h.py": "",
    ".github/workflows/ci.yml": "",
    ".git/config": "",
    "lib/.git/info/exclude": "secret.py\n",  # a nested repository's own excludes
    "lib/secret.py": "",
    "lib/open.py": "",
}
EXPECTED = [
    ".github/workflows/ci.yml",
    ".gitignore",
    ".hidden/h.py",
    ".ignore",
    "a.py",
    "docs/guide/final.md",
    "keep.log",
    "lib/open.py",
    "src/.gitignore",
    "src/.ignore",
    "src/debug.log",
    "src/deep/.rgignore",
    "src/deep/y.md",
    "src/top-only.txt",
    "src/x.tmp",
]


def test_nested_ignore_files_negations_and_hidden_directories_list_alike(tmp_path: Path) -> None:
    build(tmp_path, NESTED)
    assert the_same(tmp_path, tmp_path) == EXPECTED


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.py", [".hidden/h.py", "a.py", "lib/open.py"]),
        ("*.py", ["a.py"]),
        ("**/*.{log,tmp}", ["keep.log", "src/debug.log", "src/x.tmp"]),
        ("src/**/*.md", ["src/deep/y.md"]),
        (
            "src/*",
            ["src/.gitignore", "src/.ignore", "src/debug.log", "src/top-only.txt", "src/x.tmp"],
        ),
        ("**/*.[lt][om][gp]", ["keep.log", "src/debug.log", "src/x.tmp"]),  # no name filter
        ("**/ci.yml", [".github/workflows/ci.yml"]),
        ("docs/**", ["docs/guide/final.md"]),
    ],
)
def test_patterns_list_alike(tmp_path: Path, pattern: str, expected: list[str]) -> None:
    build(tmp_path, NESTED)
    assert the_same(tmp_path, tmp_path, pattern) == sorted(expected)


def test_rules_above_the_searched_directory_apply_up_to_the_repository_root(
    tmp_path: Path,
) -> None:
    build(
        tmp_path,
        {
            ".gitignore": "*\n",  # above the repository: never read
            "repo/.git/HEAD": "",
            "repo/.git/info/exclude": "*.bak\n",
            "repo/.gitignore": "gen/\n*.tmp\n/src/root-only.py\n",
            "repo/src/a.py": "",
            "repo/src/a.bak": "",
            "repo/src/root-only.py": "",
            "repo/src/gen/g.py": "",
            "repo/src/pkg/gen/g2.py": "",
            "repo/src/pkg/b.tmp": "",
            "repo/src/pkg/.gitignore": "!b.tmp\n!gen/\n",  # deeper: re-includes both
            "repo/src/pkg/c.py": "",
        },
    )
    repo = tmp_path / "repo"
    listed = the_same(repo / "src", repo)
    assert listed == ["a.py", "pkg/.gitignore", "pkg/b.tmp", "pkg/c.py", "pkg/gen/g2.py"]
    assert the_same(repo / "src" / "pkg", repo / "src") == [".gitignore", "b.tmp", "c.py"] + [
        "gen/g2.py"
    ]


def test_rg_reads_the_ignore_files_above_only_where_they_are_eddys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(tmp_path, {"ws/.gitignore": "*.log\n", "ws/src/a.py": "", "ws/src/b.log": ""})
    ws = tmp_path / "ws"
    ran = spy_on_rg(monkeypatch)
    assert the_same(ws / "src", ws) == ["a.py"]
    assert ran and not any("--no-ignore-parent" in cmd for cmd in ran)  # rg reads ws/.gitignore
    # an ignore file above the workspace: rg would read it, eddy does not
    (tmp_path / ".ignore").write_text("*.py\n")
    ran.clear()
    assert the_same(ws / "src", ws) == ["a.py"]
    assert ran and all("--no-ignore-parent" in cmd for cmd in ran)


def test_an_ancestor_ignore_file_with_a_negation_makes_the_python_walk_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the .ignore re-includes what src/.gitignore hides: only the full rules know it, and rg
    # cannot be let read it (the .gitignore above the workspace must stay unread)
    build(
        tmp_path,
        {
            ".gitignore": "*.gen\n",
            "ws/.ignore": "!*.gen\n",
            "ws/src/.gitignore": "*.gen\n",
            "ws/src/a.gen": "",
        },
    )
    ran = spy_on_rg(monkeypatch)
    assert the_same(tmp_path / "ws" / "src", tmp_path / "ws") == [".gitignore", "a.gen"]
    assert ran == []


def test_directories_named_with_glob_characters_are_shared_between_processes(
    tmp_path: Path,
) -> None:
    names = ["a[1]", "b*", "{c,d}", "!e", "f?", "g\\h", "plain", "a1"]
    build(tmp_path, {f"{n}/{n}/x.py": "" for n in names} | {"root.py": ""})
    assert the_same(tmp_path, tmp_path, "**/*.py") == sorted(
        [f"{n}/{n}/x.py" for n in names] + ["root.py"]
    )


def test_symbolic_links_are_neither_followed_nor_listed(tmp_path: Path) -> None:
    build(tmp_path, {"real/a.py": "", "b.py": ""})
    (tmp_path / "link.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "dirlink").symlink_to(tmp_path / "real")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    assert the_same(tmp_path, tmp_path, "**/*.py") == ["b.py", "real/a.py"]


def test_a_directory_outside_the_workspace_reads_no_ignore_file_above_it(tmp_path: Path) -> None:
    build(
        tmp_path,
        {
            ".gitignore": "*.py\n",  # above the extra directory, not a repository
            "ws/.gitignore": "*.md\n",
            "ws/w.py": "",
            "extra/.gitignore": "*.tmp\n",
            "extra/e.py": "",
            "extra/e.tmp": "",
            "extra/e.md": "",
        },
    )
    assert the_same(tmp_path / "extra", tmp_path / "ws") == [".gitignore", "e.md", "e.py"]


async def test_glob_in_an_allowed_directory_outside_the_workspace(tmp_path: Path) -> None:
    build(tmp_path, {".gitignore": "*.py\n", "ws/w.py": "", "extra/e.py": "", "extra/e.tmp": ""})
    ctx = ToolContext(workspace=tmp_path / "ws", extra_dirs=(tmp_path / "extra",))
    for backend in (None, "python"):
        out = lines_of(
            await call(GlobTool(backend), ctx, pattern="*.py", path=str(tmp_path / "extra"))
        )
        assert out == [str(tmp_path / "extra" / "e.py")]


async def test_names_that_are_not_utf8_are_listed_and_shown_as_valid_text(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    raw = os.fsencode(ws) + b"/caf\xe9.py"
    with open(raw, "wb") as f:
        f.write(b"x\n")
    (ws / "ok.py").write_text("")
    os.utime(ws / "ok.py", (1, 1))  # the older: the list is newest first
    assert the_same(ws, ws, "*.py") == [os.fsdecode(b"caf\xe9.py"), "ok.py"]
    ctx = ToolContext(workspace=ws)
    for backend in (None, "python"):
        text = str((await call(GlobTool(backend), ctx, pattern="**/*.py")).content)
        text.encode("utf-8")  # no lone surrogate: the request stays valid
        assert text.splitlines() == [str(ws / "caf\ufffd.py"), str(ws / "ok.py")]


async def test_glob_output_is_newest_first_then_by_path_whatever_the_walk(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, limits=ToolLimits(glob_max_results=50))
    files = {f"d{i % 9}/s{i % 4}/f{i:03d}.txt": "" for i in range(300)}
    build(tmp_path, files)
    for i, name in enumerate(sorted(files)):  # ties in pairs: the path decides between them
        os.utime(tmp_path / name, (1_000_000 + i // 2, 1_000_000 + i // 2))
    by_age = sorted(files, key=lambda n: (-os.stat(tmp_path / n).st_mtime, str(tmp_path / n)))
    expected = [str(tmp_path / n) for n in by_age[:50]]
    for backend in (None, "python", None):
        out = lines_of(await call(GlobTool(backend), ctx, pattern="**/*.txt"))
        assert out[:50] == expected and out[50].startswith("(Results are truncated")


async def test_ties_at_the_cut_are_broken_by_path_whatever_the_listing(tmp_path: Path) -> None:
    files = [f"d{i % 3}/f{i:02d}.txt" for i in range(30)]
    build(tmp_path, dict.fromkeys(files, ""))
    for name in files:  # all as old as each other, but one
        os.utime(tmp_path / name, (1_000_000, 1_000_000))
    os.utime(tmp_path / "d2/f29.txt", (2_000_000, 2_000_000))
    ctx = ToolContext(workspace=tmp_path, limits=ToolLimits(glob_max_results=5))
    expected = ["d2/f29.txt"] + sorted(files)[:4]
    for backend in (None, "python"):
        out = lines_of(await call(GlobTool(backend), ctx, pattern="**/*.txt"))
        assert out[:5] == [str(tmp_path / n) for n in expected] and len(out) == 6


async def test_glob_lists_through_rg_newest_first_when_it_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(tmp_path, {"a/x.py": "", "b/y.py": "", "c.py": "", "d.md": ""})
    ran = spy_on_rg(monkeypatch)
    out = lines_of(await call(GlobTool(), ToolContext(workspace=tmp_path), pattern="**/*.py"))
    assert sorted(out) == [str(tmp_path / p) for p in ("a/x.py", "b/y.py", "c.py")]
    assert ran and all("--sortr=modified" in cmd for cmd in ran)
    assert all("--type-add=eddyglob:*.py" in cmd for cmd in ran)  # rg filters the names


def test_without_a_working_rg_the_python_walk_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(tmp_path, {".gitignore": "*.md\n", "a.py": "", "b.md": ""})
    # an rg too old for an option fails at once with nothing listed
    monkeypatch.setattr(
        search_files, "rg_files_command", lambda *a, **k: [str(find_rg()), "--no-such-option"]
    )
    assert sorted(list_files(tmp_path, tmp_path)) == [str(tmp_path / ".gitignore")] + [
        str(tmp_path / "a.py")
    ]


# --- random trees ---------------------------------------------------------------------------

NAMES = ["a", "b", "x.py", "y.log", ".h", "d", "e.tmp"]
PATTERNS = ["*.py", "*.log", "!y.log", "d/", "!d/", "/b", "**/x.py", "e.*", "!*.tmp", "a/"]
RULE_FILES = [".gitignore", ".ignore", ".rgignore"]


@st.composite
def trees(draw: Any) -> dict[str, str]:
    files: dict[str, str] = {}
    for _ in range(draw(st.integers(3, 25))):
        depth = draw(st.integers(1, 4))
        path = "/".join(draw(st.sampled_from(NAMES)) for _ in range(depth))
        files[path] = ""
    for _ in range(draw(st.integers(0, 5))):
        where = draw(st.sampled_from(["", "a/", "d/", "a/d/", "b/a/"]))
        kind = draw(st.sampled_from(RULE_FILES))
        rules = draw(st.lists(st.sampled_from(PATTERNS), max_size=4))
        files[where + kind] = "\n".join(rules) + "\n"
    # a file cannot also be a directory: keep the deeper paths
    return {p: t for p, t in files.items() if not any(q.startswith(p + "/") for q in files)}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(tree=trees(), start=st.sampled_from(["", "a", "a/d", "b"]), stray=st.booleans())
def test_random_trees_list_alike(
    tmp_path_factory: pytest.TempPathFactory, tree: Any, start: str, stray: bool
) -> None:
    # stray: an ignore file above the repository, which rg must not read
    root = tmp_path_factory.mktemp("tree") / "repo"
    build(root, tree)
    if stray:
        (root.parent / ".gitignore").write_text("*.py\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if (root / start).is_dir():
        the_same(root / start, root)


def test_the_mention_index_outside_git_lists_through_rg_as_glob_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontend.fileindex import list_files as index_files

    build(tmp_path, NESTED)
    ran = spy_on_rg(monkeypatch)
    assert index_files(tmp_path) == EXPECTED
    assert ran  # rg listed it (the Python walk gives the same list: see above)
