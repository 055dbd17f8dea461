"""Write, Edit and MultiEdit: stale-read protection, matching, formats kept, atomicity, hooks."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.tool_hooks import Hooks, OutsidePaths
from tools import edit as edit_mod
from tools import multiedit as multiedit_mod
from tools import read as read_mod
from tools import write as write_mod
from tools.base import Tool, ToolContext, ToolError, ToolResult
from tools.schema import validate

READ, WRITE, EDIT, MULTI = read_mod.TOOL, write_mod.TOOL, edit_mod.TOOL, multiedit_mod.TOOL


def make_ctx(tmp_path: Path, **kw: Any) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ToolContext(workspace=ws, **kw)


async def call(tool: Tool, ctx: ToolContext, **args: Any) -> ToolResult:
    assert validate(tool.input_schema, args) is None  # the loop validates before running
    return await tool.run(args, ctx)


async def seen(ctx: ToolContext, name: str, data: bytes | str) -> Path:
    """Create a workspace file and Read it, as the model would before changing it."""
    p = ctx.workspace / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        p.write_text(data)
    else:
        p.write_bytes(data)
    await call(READ, ctx, file_path=name)
    return p


def leftovers(d: Path) -> list[str]:
    return [n for n in os.listdir(d) if n.endswith(".eddy-tmp")]


@pytest.mark.parametrize(
    ("tool", "name", "required"),
    [
        (WRITE, "Write", ["file_path", "content"]),
        (EDIT, "Edit", ["file_path", "old_string", "new_string"]),
        (MULTI, "MultiEdit", ["file_path", "edits"]),
    ],
)
def test_change_tools_are_not_read_only_and_have_strict_schemas(
    tool: Tool, name: str, required: list[str]
) -> None:
    assert isinstance(tool, Tool)
    assert tool.name == name and tool.read_only is False
    assert tool.input_schema["required"] == required
    assert tool.input_schema["additionalProperties"] is False
    assert "Read" in tool.description


def test_multiedit_schema_needs_at_least_one_well_formed_edit() -> None:
    schema = MULTI.input_schema
    assert validate(schema, {"file_path": "f", "edits": []}) is not None
    assert validate(schema, {"file_path": "f", "edits": [{"old_string": "a"}]}) is not None
    bad = {"file_path": "f", "edits": [{"old_string": "a", "new_string": "b", "x": 1}]}
    assert validate(schema, bad) is not None


# --- Write ------------------------------------------------------------------------------------


async def test_write_creates_a_new_file_and_its_directories(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    result = await call(WRITE, ctx, file_path="pkg/sub/new.py", content="a = 1\nb = 2\n")
    p = ctx.workspace / "pkg/sub/new.py"
    assert p.read_text() == "a = 1\nb = 2\n"
    assert result.content == "Created pkg/sub/new.py (2 lines)"
    assert result.display is not None
    assert result.display["kind"] == "diff" and result.display["created"] is True
    assert result.display["path"] == str(p)
    assert (result.display["added"], result.display["removed"]) == (2, 0)
    assert "+a = 1" in result.display["diff"]
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~_umask()
    assert p in ctx.files.records and leftovers(p.parent) == []


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


async def test_write_to_an_unread_existing_file_is_refused(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = ctx.workspace / "keep.txt"
    p.write_text("user's work\n")
    with pytest.raises(ToolError, match="has not been read.*Read it first"):
        await call(WRITE, ctx, file_path="keep.txt", content="clobbered\n")
    assert p.read_text() == "user's work\n"


async def test_write_after_read_replaces_and_keeps_mode_and_crlf(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "run.sh", b"#!/bin/sh\r\necho old\r\n")
    p.chmod(0o755)
    await call(READ, ctx, file_path="run.sh")  # chmod changed ctime only; re-read anyway
    result = await call(WRITE, ctx, file_path="run.sh", content="#!/bin/sh\necho new\n")
    assert p.read_bytes() == b"#!/bin/sh\r\necho new\r\n"
    assert stat.S_IMODE(p.stat().st_mode) == 0o755
    assert result.display is not None and result.display["created"] is False
    assert (result.display["added"], result.display["removed"]) == (1, 1)
    assert str(result.content).startswith("Updated run.sh")


async def test_write_keeps_latin1_when_possible_and_falls_back_to_utf8(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "l1.txt", b"caf\xe9\n")
    await call(WRITE, ctx, file_path="l1.txt", content="thé\n")
    assert p.read_bytes() == b"th\xe9\n"
    result = await call(WRITE, ctx, file_path="l1.txt", content="arrow →\n")
    assert p.read_bytes() == "arrow →\n".encode()
    assert "UTF-8" in str(result.content)


async def test_write_to_a_directory_is_refused(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "d").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await call(WRITE, ctx, file_path="d", content="x")


# --- stale-read protection ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (WRITE, {"content": "new\n"}),
        (EDIT, {"old_string": "one", "new_string": "uno"}),
        (MULTI, {"edits": [{"old_string": "one", "new_string": "uno"}]}),
    ],
)
async def test_changes_after_read_are_protected(tmp_path: Path, tool: Tool, args: dict) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "f.txt", "one\ntwo\n")
    p.write_text("one\ntwo\nuser added this\n")  # the user edits the file meanwhile
    with pytest.raises(ToolError, match="modified since you last read it.*Read it again"):
        await call(tool, ctx, file_path="f.txt", **args)
    assert p.read_text() == "one\ntwo\nuser added this\n"
    await call(READ, ctx, file_path="f.txt")
    await call(tool, ctx, file_path="f.txt", **args)
    assert p.read_text() != "one\ntwo\nuser added this\n"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (EDIT, {"old_string": "one", "new_string": "uno"}),
        (MULTI, {"edits": [{"old_string": "one", "new_string": "uno"}]}),
    ],
)
async def test_edit_of_an_unread_file_is_refused(tmp_path: Path, tool: Tool, args: dict) -> None:
    ctx = make_ctx(tmp_path)
    p = ctx.workspace / "f.txt"
    p.write_text("one\n")
    with pytest.raises(ToolError, match="has not been read"):
        await call(tool, ctx, file_path="f.txt", **args)
    assert p.read_text() == "one\n"


async def test_own_writes_need_no_reread(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    await call(WRITE, ctx, file_path="w.py", content="x = 1\n")
    await call(EDIT, ctx, file_path="w.py", old_string="x = 1", new_string="x = 2")
    await call(MULTI, ctx, file_path="w.py", edits=[{"old_string": "2", "new_string": "3"}])
    await call(WRITE, ctx, file_path="w.py", content="x = 4\n")
    assert (ctx.workspace / "w.py").read_text() == "x = 4\n"


# --- Edit matching -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "replace_all", "after", "message"),
    [
        ("beta\n", "BETA\n", False, "alpha\nBETA\ngamma\nbeta2\n", "Updated f.txt (1 replacement)"),
        ("alpha\nbeta\n", "", False, "gamma\nbeta2\n", "Updated f.txt (1 replacement)"),
        ("beta", "B", True, "alpha\nB\ngamma\nB2\n", "Updated f.txt (2 replacements)"),
        ("gamma", "g1\ng2", False, "alpha\nbeta\ng1\ng2\nbeta2\n", "(1 replacement)"),
    ],
)
async def test_edit_replaces(
    tmp_path: Path, old: str, new: str, replace_all: bool, after: str, message: str
) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "f.txt", "alpha\nbeta\ngamma\nbeta2\n")
    args: dict[str, Any] = {"file_path": "f.txt", "old_string": old, "new_string": new}
    if replace_all:
        args["replace_all"] = True
    result = await call(EDIT, ctx, **args)
    assert p.read_text() == after
    assert message in str(result.content)


@pytest.mark.parametrize(
    ("content", "old", "new", "error"),
    [
        ("x = 1\nx = 1\nx = 1\n", "x = 1", "x = 2", r"Found 3 matches.*replace_all"),
        ("a\nb\n", "zzz", "y", r"not found"),
        ("    indented()\n", "  indented()\n  ", "x", r"whitespace"),
        ("def f():\n    return 1\n", "def f():\n  return 1", "x", r"whitespace"),
        ("say('hi')\n", "say(\u2018hi\u2019)", "x", r"quote"),
        ("value = 1\n", "     1\tvalue = 1", "value = 2", r"line-number prefix"),
        ("same\n", "same", "same", r"identical"),
        ("content\n", "", "more", r"old_string is empty"),
    ],
)
async def test_edit_failures_explain_and_change_nothing(
    tmp_path: Path, content: str, old: str, new: str, error: str
) -> None:
    calls: list[list[Path]] = []

    async def hook(paths: list[Path]) -> None:
        calls.append(paths)

    ctx = make_ctx(tmp_path, checkpoints=Hooks(before_change=hook))
    p = await seen(ctx, "f.py", content)
    before = p.stat().st_mtime_ns
    with pytest.raises(ToolError, match=error):
        await call(EDIT, ctx, file_path="f.py", old_string=old, new_string=new)
    assert p.read_text() == content and p.stat().st_mtime_ns == before
    assert calls == []  # the checkpoint hook is not called for a failed change
    assert leftovers(ctx.workspace) == []


async def test_edit_on_a_missing_file(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    with pytest.raises(ToolError, match="File does not exist: nope.py"):
        await call(EDIT, ctx, file_path="nope.py", old_string="a", new_string="b")
    result = await call(EDIT, ctx, file_path="new/nope.py", old_string="", new_string="print(1)\n")
    assert (ctx.workspace / "new/nope.py").read_text() == "print(1)\n"
    assert result.content == "Created new/nope.py"
    assert result.display is not None and result.display["created"] is True


async def test_edit_refuses_binary_files(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "b.bin", b"abc\x00def")
    with pytest.raises(ToolError, match="binary"):
        await call(EDIT, ctx, file_path="b.bin", old_string="abc", new_string="xyz")
    assert p.read_bytes() == b"abc\x00def"


async def test_edit_display_is_a_unified_diff_with_counts(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    await seen(ctx, "d.py", "a\nb\nc\nd\n")
    result = await call(EDIT, ctx, file_path="d.py", old_string="b\nc", new_string="B")
    assert result.display is not None
    d = result.display
    assert (d["kind"], d["added"], d["removed"], d["created"]) == ("diff", 1, 2, False)
    assert d["path"] == str(ctx.workspace / "d.py")
    assert "--- a/d.py" in d["diff"] and "+++ b/d.py" in d["diff"]
    assert "\n-b\n-c\n+B\n" in d["diff"]


# --- formats kept ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "old", "new", "after"),
    [
        # CRLF file edited with \n strings: matched, and CRLF written
        (b"one\r\ntwo\r\nthree\r\n", "one\ntwo", "1\n2", b"1\r\n2\r\nthree\r\n"),
        (b"one\r\ntwo\r\n", "two\n", "two\nmore\n", b"one\r\ntwo\r\nmore\r\n"),
        # mixed endings: the strings as given still match
        (b"a\r\nb\nc\n", "b\nc", "B\nC", b"a\r\nB\nC\n"),
        # trailing newline kept, and its absence too
        (b"x\ny\n", "y", "Y", b"x\nY\n"),
        (b"x\ny", "y", "Y", b"x\nY"),
        # Latin-1 stays Latin-1; UTF-8 BOM kept; stray bytes in UTF-8 survive
        (b"caf\xe9\nbar\n", "bar", "b\xe4r", b"caf\xe9\nb\xe4r\n"),
        (b"\xef\xbb\xbfname = 1\n", "1", "2", b"\xef\xbb\xbfname = 2\n"),
        (b"ok \xc3\xa9 \xff end\n", "end", "fin", b"ok \xc3\xa9 \xff fin\n"),
        (b"\xff\xfe" + "α\r\nβ\r\n".encode("utf-16-le"), "β", "γ",
         b"\xff\xfe" + "α\r\nγ\r\n".encode("utf-16-le")),
    ],
)  # fmt: skip
async def test_edit_keeps_line_endings_encoding_and_trailing_newline(
    tmp_path: Path, data: bytes, old: str, new: str, after: bytes
) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "f.txt", data)
    await call(EDIT, ctx, file_path="f.txt", old_string=old, new_string=new)
    assert p.read_bytes() == after


async def test_edit_refuses_characters_the_encoding_cannot_hold(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "l1.txt", b"caf\xe9\n")
    with pytest.raises(ToolError, match="Latin-1.*'→'"):
        await call(EDIT, ctx, file_path="l1.txt", old_string="caf", new_string="→")
    assert p.read_bytes() == b"caf\xe9\n"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (EDIT, {"old_string": "old", "new_string": "new"}),
        (MULTI, {"edits": [{"old_string": "old", "new_string": "new"}]}),
        (WRITE, {"content": "#!/bin/sh\necho new\n"}),
    ],
)
@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640])
async def test_mode_bits_are_kept(tmp_path: Path, tool: Tool, args: dict, mode: int) -> None:
    ctx = make_ctx(tmp_path)
    p = ctx.workspace / "tool.sh"
    p.write_text("#!/bin/sh\necho old\n")
    p.chmod(mode)
    await call(READ, ctx, file_path="tool.sh")
    await call(tool, ctx, file_path="tool.sh", **args)
    assert "new" in p.read_text()
    assert stat.S_IMODE(p.stat().st_mode) == mode
    assert leftovers(ctx.workspace) == []


# --- MultiEdit ---------------------------------------------------------------------------------


async def test_multiedit_applies_edits_in_order(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "m.py", "def old():\n    return old_value\n")
    edits = [
        {"old_string": "def old()", "new_string": "def new()"},
        {"old_string": "old_value", "new_string": "value"},
        {"old_string": "value", "new_string": "v", "replace_all": True},  # sees edit 2's text
    ]
    result = await call(MULTI, ctx, file_path="m.py", edits=edits)
    assert p.read_text() == "def new():\n    return v\n"
    assert result.content == "Updated m.py (3 edits, 3 replacements)"


@pytest.mark.parametrize(
    ("edits", "error"),
    [
        ([{"old_string": "a", "new_string": "A"}, {"old_string": "zz", "new_string": "Z"}],
         r"Edit 2 of 2 failed: old_string was not found"),
        ([{"old_string": "a", "new_string": "A"}, {"old_string": "b", "new_string": "b"}],
         r"Edit 2 of 2 failed: old_string and new_string are identical"),
        ([{"old_string": "c", "new_string": "C"}, {"old_string": "x", "new_string": "y"},
          {"old_string": "a", "new_string": "A"}],
         r"Edit 1 of 3 failed: Found 2 matches"),
        ([{"old_string": "a", "new_string": "Q"}, {"old_string": "a", "new_string": "R"}],
         r"Edit 2 of 2 failed: old_string was not found"),  # edit 1 consumed the only "a"
    ],
)  # fmt: skip
async def test_multiedit_is_all_or_nothing(tmp_path: Path, edits: list, error: str) -> None:
    calls: list[list[Path]] = []

    async def hook(paths: list[Path]) -> None:
        calls.append(paths)

    ctx = make_ctx(tmp_path, checkpoints=Hooks(before_change=hook))
    p = await seen(ctx, "m.txt", "a\nb\nc\nc\n")
    with pytest.raises(ToolError, match=error) as err:
        await call(MULTI, ctx, file_path="m.txt", edits=edits)
    assert "No edits were applied" in str(err.value)
    assert p.read_text() == "a\nb\nc\nc\n"
    assert calls == []


async def test_multiedit_crlf_and_creation(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = await seen(ctx, "w.txt", b"k1: v\r\nk2: v\r\n")
    edits = [
        {"old_string": "k1: v\nk2", "new_string": "k1: x\nk2"},
        {"old_string": "k2: v", "new_string": "k2: y"},
    ]
    await call(MULTI, ctx, file_path="w.txt", edits=edits)
    assert p.read_bytes() == b"k1: x\r\nk2: y\r\n"
    create = [
        {"old_string": "", "new_string": "hello\nworld\n"},
        {"old_string": "world", "new_string": "there"},
    ]
    result = await call(MULTI, ctx, file_path="fresh.txt", edits=create)
    assert (ctx.workspace / "fresh.txt").read_text() == "hello\nthere\n"
    assert result.display is not None and result.display["created"] is True
    with pytest.raises(ToolError, match="File does not exist"):
        await call(MULTI, ctx, file_path="gone.txt", edits=[{"old_string": "a", "new_string": "b"}])


# --- checkpoints -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (WRITE, {"content": "after\n"}),
        (EDIT, {"old_string": "before", "new_string": "after"}),
        (MULTI, {"edits": [{"old_string": "before", "new_string": "after"}]}),
    ],
)
async def test_before_change_sees_the_old_file(tmp_path: Path, tool: Tool, args: dict) -> None:
    snapshots: list[tuple[list[Path], str]] = []

    async def hook(paths: list[Path]) -> None:
        snapshots.append((paths, paths[0].read_text()))

    ctx = make_ctx(tmp_path, checkpoints=Hooks(before_change=hook))
    p = await seen(ctx, "c.txt", "before\n")
    await call(tool, ctx, file_path="c.txt", **args)
    assert snapshots == [([p], "before\n")]
    assert p.read_text() == "after\n"


async def test_before_change_for_a_new_file_and_for_refusals(tmp_path: Path) -> None:
    calls: list[list[Path]] = []

    async def hook(paths: list[Path]) -> None:
        assert not paths[0].exists()
        calls.append(paths)

    ctx = make_ctx(tmp_path, checkpoints=Hooks(before_change=hook))
    await call(WRITE, ctx, file_path="n.txt", content="x\n")
    assert calls == [[ctx.workspace / "n.txt"]]
    (ctx.workspace / "unread.txt").write_text("u\n")
    with pytest.raises(ToolError):
        await call(WRITE, ctx, file_path="unread.txt", content="y\n")
    with pytest.raises(ToolError):
        await call(WRITE, ctx, file_path="../out.txt", content="y\n")
    assert len(calls) == 1


# --- paths -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (WRITE, {"content": "pwned\n"}),
        (EDIT, {"old_string": "", "new_string": "pwned\n"}),
        (MULTI, {"edits": [{"old_string": "", "new_string": "pwned\n"}]}),
    ],
)
@pytest.mark.parametrize("raw", ["../outside.txt", "link/outside.txt", "{tmp}/outside.txt"])
async def test_changes_outside_the_workspace_are_refused_unless_allowed(
    tmp_path: Path, tool: Tool, args: dict, raw: str
) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "link").symlink_to(tmp_path)  # a symlink inside pointing outside
    raw = raw.format(tmp=tmp_path)
    target = tmp_path / "outside.txt"
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(tool, ctx, file_path=raw, **args)
    assert not target.exists()
    assert tool.paths({"file_path": raw, **args}, ctx)[0].inside is False
    ctx.paths = OutsidePaths(lambda name, path: name == tool.name and path == target)
    await call(tool, ctx, file_path=raw, **args)
    assert target.read_text() == "pwned\n"


async def test_symlinked_file_inside_is_changed_through_its_target(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    real = await seen(ctx, "real.txt", "v1\n")
    (ctx.workspace / "alias.txt").symlink_to(real)
    await call(EDIT, ctx, file_path="alias.txt", old_string="v1", new_string="v2")
    assert (ctx.workspace / "alias.txt").is_symlink()
    assert real.read_text() == "v2\n"


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        (WRITE, {"file_path": "a/b.py", "content": ""}, "a/b.py"),
        (EDIT, {"file_path": "b.py", "old_string": "x", "new_string": "y"}, "b.py"),
        (MULTI, {"file_path": "c.py", "edits": [{}, {}]}, "c.py (2 edits)"),
    ],
)
def test_summary(tool: Tool, args: dict, expected: str) -> None:
    assert tool.summary(args) == expected
