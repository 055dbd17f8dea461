"""Glob and Grep: ignore rules, ordering, caps, and the Python fallback matching ripgrep."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tools.base import Tool, ToolContext, ToolError, ToolLimits, ToolResult
from tools.glob import TOOL as GLOB
from tools.globpattern import compile_glob, expand_braces
from tools.grep import TOOL as GREP
from tools.grep import GrepTool, split_globs
from tools.ignore import IgnoreRules, walk_files
from tools.schema import validate
from tools.search_files import find_rg

HAS_RG = find_rg() is not None
BACKENDS = ["python", pytest.param("rg", marks=pytest.mark.skipif(not HAS_RG, reason="no rg"))]

CORPUS: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\nnode_modules/\n",
    "a.py": "import os\n\ndef alpha():\n    return 'needle'\n",
    "b.js": "const Needle = 1;\n// needle in js\n",
    "README.md": "# Title\n\nThe needle is documented here.\n",
    "notes.log": "needle in an ignored log\n",
    "build/out.py": "needle = 'ignored build output'\n",
    "node_modules/pkg/index.js": "module.exports = 'needle';\n",
    "src/.gitignore": "secret.py\n!keep.log\n",
    "src/main.py": "".join(f"line {i}\n" for i in range(1, 13)).replace("line 5", "needle 5")
    + "needle at the end\n",
    "src/secret.py": "needle = 'hidden by the nested gitignore'\n",
    "src/keep.log": "needle kept by a negation\n",
    "src/util.ts": "export const NEEDLE = 'x';\nexport const other = 2;\n",
    "src/deep/x.py": "def f():\n    pass\n    # Needle here\n    return None\n",
    "src/a-b.py": "needle\n",
    ".hidden/h.py": "needle in a hidden dir\n",
    "bin.dat": b"needle\x00\x01\x02binary",
    "multi.txt": "start\nfoo\nbar\nend\nfoo\nbaz\n",
    ".git/config": "needle in git metadata\n",
}


def make_ctx(tmp_path: Path, **kw: Any) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ToolContext(workspace=ws, **kw)


def build(root: Path, files: dict[str, str | bytes]) -> None:
    for i, (name, data) in enumerate(sorted(files.items())):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))


@pytest.fixture
def corpus(tmp_path: Path) -> ToolContext:
    ctx = make_ctx(tmp_path)
    build(ctx.workspace, CORPUS)
    return ctx


async def call(tool: Tool, ctx: ToolContext, **args: Any) -> ToolResult:
    assert validate(tool.input_schema, args) is None  # the loop validates before running
    return await tool.run(args, ctx)


def lines_of(result: ToolResult) -> list[str]:
    assert isinstance(result.content, str)
    return result.content.splitlines()


def test_schemas_are_strict() -> None:
    for tool, required in ((GLOB, ["pattern"]), (GREP, ["pattern"])):
        assert isinstance(tool, Tool) and tool.read_only is True
        assert tool.input_schema["required"] == required
        assert tool.input_schema["additionalProperties"] is False
    assert validate(GREP.input_schema, {"pattern": "x", "output_mode": "lines"}) is not None
    assert validate(GREP.input_schema, {"pattern": "x", "-A": -1}) is not None
    assert GREP.summary({"pattern": "foo", "path": "src"}) == "foo in src"


# --- Glob ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/*.py", None, ["src/a-b.py", "src/deep/x.py", "src/main.py", ".hidden/h.py", "a.py"]),
        ("*.py", None, ["a.py"]),
        ("src/*.py", None, ["src/a-b.py", "src/main.py"]),
        ("**/*.log", None, ["src/keep.log"]),
        ("*.{md,js}", None, ["b.js", "README.md"]),
        ("**/x.py", "src", ["src/deep/x.py"]),
        ("*.py", "src/deep", ["src/deep/x.py"]),
        ("node_modules/**", None, ["node_modules/pkg/index.js"]),  # asked for explicitly
        ("**/*.rs", None, []),
        ("nowhere/*.py", None, []),
    ],
)
async def test_glob_honours_gitignore_and_sorts_newest_first(
    corpus: ToolContext, pattern: str, path: str | None, expected: list[str]
) -> None:
    args = {"pattern": pattern} | ({"path": path} if path else {})
    out = lines_of(await call(GLOB, corpus, **args))
    ws = corpus.workspace
    if not expected:
        assert out == ["No files found"]
        return
    # newest first: CORPUS files get increasing mtimes in sorted-name order
    by_age = sorted(expected, key=lambda p: os.stat(ws / p).st_mtime, reverse=True)
    assert out == [str(ws / p) for p in by_age]


async def test_glob_truncates_with_a_note_and_refuses_outside(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, limits=ToolLimits(glob_max_results=3))
    build(ctx.workspace, {f"f{i}.txt": "" for i in range(5)})
    out = lines_of(await call(GLOB, ctx, pattern="*.txt"))
    assert out[:3] == [str(ctx.workspace / f"f{i}.txt") for i in (4, 3, 2)]
    assert out[3].startswith("(Results are truncated")
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(GLOB, ctx, pattern="*", path=str(tmp_path))
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(GLOB, ctx, pattern=f"{tmp_path}/*")
    out = lines_of(await call(GLOB, ctx, pattern=f"{ctx.workspace}/f[0-1].txt"))
    assert out == [str(ctx.workspace / "f1.txt"), str(ctx.workspace / "f0.txt")]


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.py", ["a.py", ".x.py"], ["d/a.py", "a.pyc"]),
        ("**/*.py", ["a.py", "d/e/a.py"], ["a.txt"]),
        ("src/**", ["src/a", "src/d/e"], ["lib/a"]),
        ("a/**/b", ["a/b", "a/x/y/b"], ["a/xb"]),
        ("f?[0-9][!x].{c,h}", ["fa12.c", "fb34.h"], ["fa1x.c", "f/12.c", "fa12.cc"]),
    ],
)
def test_glob_pattern_translation(pattern: str, matches: list[str], misses: list[str]) -> None:
    glob = compile_glob(pattern)
    for path in matches:
        assert path.startswith(glob.prefix) and glob.regex.match(path[len(glob.prefix) :])
    for path in misses:
        rest = path[len(glob.prefix) :] if path.startswith(glob.prefix) else None
        assert rest is None or not glob.regex.match(rest)


def test_brace_expansion() -> None:
    assert expand_braces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"]
    assert expand_braces("{x}") == ["{x}"] and expand_braces("a{b") == ["a{b"]
    with pytest.raises(ToolError, match="alternatives"):
        expand_braces("{a,b}" * 10)
    assert split_globs("*.ts *.tsx,*.js") == ("*.ts", "*.tsx", "*.js")
    assert split_globs("*.{ts,tsx}") == ("*.{ts,tsx}",)


async def test_glob_reads_the_repository_root_above_but_not_a_stray_parent(
    tmp_path: Path,
) -> None:
    # a workspace inside a git repository: the repository's root .gitignore applies
    build(tmp_path / "repo", {".git/HEAD": "", ".gitignore": "*.tmp\n", "ws/a.tmp": "", "ws/b": ""})
    ctx = ToolContext(workspace=tmp_path / "repo" / "ws")
    assert lines_of(await call(GLOB, ctx, pattern="*")) == [str(ctx.workspace / "b")]
    # no repository: an ignore file above the workspace (say ~/.gitignore) is not read
    build(tmp_path / "home", {".gitignore": "*\n", "proj/a.py": ""})
    ctx = ToolContext(workspace=tmp_path / "home" / "proj")
    assert lines_of(await call(GLOB, ctx, pattern="*")) == [str(ctx.workspace / "a.py")]


def test_walk_prunes_ignored_directories(tmp_path: Path) -> None:
    build(tmp_path, {".gitignore": "node_modules/\n", "a.txt": "", "node_modules/x/y.txt": ""})
    entered: list[str] = []

    def keep(path: str, rel: str, is_dir: bool, rules: IgnoreRules) -> bool:
        if is_dir:
            entered.append(rel)
        return not rules.ignored(path, is_dir)

    files = [rel for _p, rel in walk_files(str(tmp_path), IgnoreRules(), keep=keep)]
    assert sorted(files) == [".gitignore", "a.txt"]
    assert entered == ["node_modules"]  # asked about, refused, never read


# --- Grep ----------------------------------------------------------------------------------

GREP_CASES: list[dict[str, Any]] = [
    {"pattern": "needle"},
    {"pattern": "needle", "output_mode": "count"},
    {"pattern": "needle", "output_mode": "content"},
    {"pattern": "needle", "output_mode": "content", "-n": False},
    {"pattern": "NEEDLE", "-i": True},
    {"pattern": "needle", "-i": True, "output_mode": "content"},
    {"pattern": "needle", "output_mode": "content", "-C": 2},
    {"pattern": "needle", "output_mode": "content", "-A": 1, "-B": 3, "-C": 9},
    {"pattern": "foo", "output_mode": "content", "-A": 1, "path": "multi.txt"},
    {"pattern": "needle", "glob": "*.py"},
    {"pattern": "needle", "glob": "*.{js,ts}", "-i": True, "output_mode": "content"},
    {"pattern": "needle", "glob": "!*.py"},
    {"pattern": "needle", "glob": "*.log"},  # a whitelisting glob beats .gitignore (as in rg)
    {"pattern": "needle", "type": "py", "output_mode": "count"},
    {"pattern": "needle", "type": "md", "output_mode": "content"},
    {"pattern": "needle", "path": "src"},
    {"pattern": "needle", "path": "node_modules"},
    {"pattern": "needle", "path": "src/main.py", "output_mode": "content"},
    {"pattern": r"foo\s+bar"},  # never across lines without multiline
    {"pattern": r"foo\nbar", "multiline": True, "output_mode": "content"},
    {"pattern": "start.*end", "multiline": True, "output_mode": "count"},
    {"pattern": "o.b|a|z", "multiline": True, "output_mode": "count"},  # counts matches
    {"pattern": "o|a", "multiline": True, "output_mode": "count"},  # cannot span: counts lines
    {"pattern": "o.b|a", "multiline": True, "output_mode": "content", "-C": 1},
    {"pattern": "^needle", "output_mode": "content"},
    {"pattern": "line \\d+$", "output_mode": "content", "head_limit": 3},
    {"pattern": "no such text"},
]


@pytest.mark.skipif(not HAS_RG, reason="ripgrep is not available")
@pytest.mark.parametrize(
    "args", GREP_CASES, ids=lambda a: " ".join(f"{k}={v}" for k, v in a.items())
)
async def test_fallback_output_matches_ripgrep(corpus: ToolContext, args: dict[str, Any]) -> None:
    rg_out = await call(GrepTool("rg"), corpus, **args)
    py_out = await call(GrepTool("python"), corpus, **args)
    assert py_out.content == rg_out.content


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_skips_ignored_hidden_git_and_binary(corpus: ToolContext, backend: str) -> None:
    out = lines_of(await call(GrepTool(backend), corpus, pattern="needle", **{"-i": True}))
    ws = corpus.workspace
    expected = [".hidden/h.py", "README.md", "a.py", "b.js", "src/a-b.py", "src/deep/x.py"]
    expected += ["src/keep.log", "src/main.py", "src/util.ts"]
    assert out == [f"Found {len(expected)} files"] + [str(ws / p) for p in expected]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pattern", ["(unclosed", "a{2,1}", "[z-a]"])
async def test_bad_pattern_is_a_tool_error(corpus: ToolContext, backend: str, pattern: str) -> None:
    with pytest.raises(ToolError, match="(?i)regex"):
        await call(GrepTool(backend), corpus, pattern=pattern)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_caps_output(tmp_path: Path, backend: str) -> None:
    ctx = make_ctx(tmp_path, limits=ToolLimits(output_max_chars=1000, read_max_line_chars=200))
    build(ctx.workspace, {"big.txt": "match me\n" * 10_000, "long.txt": "match" + "x" * 500})
    out = await call(GrepTool(backend), ctx, pattern="match", output_mode="content")
    assert isinstance(out.content, str) and len(out.content) < 1300
    assert "[Results truncated at" in out.content and "(the cap)" in out.content
    out = await call(GrepTool(backend), ctx, pattern="x{10}", output_mode="content")
    line = f"{ctx.workspace / 'long.txt'}:1:match{'x' * 500}"
    assert out.content == f"{line[:200]}… [{len(line) - 200} more chars]"
    out = await call(GrepTool(backend), ctx, pattern="match", head_limit=1)
    assert lines_of(out)[0] == str(ctx.workspace / "big.txt")
    assert "head_limit=1" in lines_of(out)[-1]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_refuses_missing_and_outside_paths(corpus: ToolContext, backend: str) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await call(GrepTool(backend), corpus, pattern="x", path="missing")
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(GrepTool(backend), corpus, pattern="x", path="/")
    with pytest.raises(ToolError, match="unrecognized file type"):
        await call(GrepTool(backend), corpus, pattern="x", type="klingon")


async def test_a_capped_search_ends_even_when_its_pipe_was_paused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rg killed at the cap with its stdout reader paused (a full buffer: asyncio stops
    reading the pipe) must still end: Python 3.11's wait() returns only once every pipe is
    closed, so the rest is read first (it hung about once in 400 capped searches)."""
    import asyncio

    import tools.grep_rg as grep_rg

    if not HAS_RG:
        pytest.skip("no rg")
    spawned: list[Any] = []
    real_spawn, real_kill = asyncio.create_subprocess_exec, os.kill

    async def spawn(*args: Any, **kw: Any) -> Any:
        spawned.append(await real_spawn(*args, **kw))
        return spawned[-1]

    def kill(pid: int, sig: int) -> None:
        reader = spawned[-1].stdout  # paused as StreamReader.feed_data does at a full buffer
        reader._paused = True
        reader._transport.pause_reading()
        real_kill(pid, sig)

    monkeypatch.setattr(grep_rg.asyncio, "create_subprocess_exec", spawn)
    monkeypatch.setattr(grep_rg.os, "kill", kill)
    ctx = make_ctx(tmp_path, limits=ToolLimits(output_max_chars=1000, read_max_line_chars=200))
    build(ctx.workspace, {"big.txt": "match me\n" * 100_000})
    out = await asyncio.wait_for(
        call(GrepTool("rg"), ctx, pattern="match", output_mode="content"), 30
    )
    assert "[Results truncated at" in str(out.content)
