"""Read: numbering, ranges and caps, refusals, encodings, binary and image files, path safety."""

from __future__ import annotations

import base64
import io
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.tool_hooks import OutsidePaths
from tools.base import Tool, ToolContext, ToolError, ToolLimits, ToolResult
from tools.image_block import IMAGE_MAX_BYTES
from tools.read import TOOL
from tools.schema import validate


def make_ctx(tmp_path: Path, **kw: Any) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ToolContext(workspace=ws, **kw)


async def read(ctx: ToolContext, **args: Any) -> ToolResult:
    assert validate(TOOL.input_schema, args) is None  # the loop validates before running
    return await TOOL.run(args, ctx)


def text_of(result: ToolResult) -> str:
    assert isinstance(result.content, str)
    return result.content


def test_read_is_a_read_only_tool_with_a_strict_schema() -> None:
    assert isinstance(TOOL, Tool)
    assert TOOL.name == "Read" and TOOL.read_only is True
    assert TOOL.input_schema["additionalProperties"] is False
    assert TOOL.input_schema["required"] == ["file_path"]
    assert validate(TOOL.input_schema, {"file_path": "a", "lines": 3}) is not None
    assert "cat -n" in TOOL.description and "offset" in TOOL.description


async def test_lines_are_numbered_like_cat_n(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "a.txt").write_text("first\n\tindented\n\nlast\n")
    out = text_of(await read(ctx, file_path="a.txt"))
    assert out == "     1\tfirst\n     2\t\tindented\n     3\t\n     4\tlast"


@pytest.mark.parametrize(
    ("offset", "limit", "first", "last", "note"),
    [
        (None, None, 1, 3, "[showing lines 1-3 of 10; use offset=4 to continue]"),
        (4, None, 4, 6, "[showing lines 4-6 of 10; use offset=7 to continue]"),
        (9, None, 9, 10, None),
        (2, 2, 2, 3, "[showing lines 2-3 of 10; use offset=4 to continue]"),
        (None, 10, 1, 10, None),
        (0, 1, 1, 1, "use offset=2"),
    ],
)
async def test_offset_limit_and_default_cap(
    tmp_path: Path, offset: int | None, limit: int | None, first: int, last: int, note: str | None
) -> None:
    ctx = make_ctx(tmp_path, limits=ToolLimits(read_max_lines=3))
    (ctx.workspace / "ten.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    args: dict[str, Any] = {"file_path": "ten.txt"}
    if offset is not None:
        args["offset"] = offset
    if limit is not None:
        args["limit"] = limit
    out = text_of(await read(ctx, **args))
    numbered = [ln for ln in out.splitlines() if "\t" in ln]
    assert numbered[0] == f"{first:>6}\tline {first}"
    assert numbered[-1] == f"{last:>6}\tline {last}"
    assert len(numbered) == last - first + 1
    if note is None:
        assert "offset=" not in out
    else:
        assert note in out


async def test_offset_past_the_end_is_an_error_with_the_line_count(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "s.txt").write_text("a\nb\n")
    with pytest.raises(ToolError, match="only 2 lines; offset 5"):
        await read(ctx, file_path="s.txt", offset=5)


async def test_long_lines_are_cut_with_a_note(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, limits=ToolLimits(read_max_line_chars=10))
    (ctx.workspace / "w.txt").write_text("short\n" + "x" * 25 + "\n" + "y" * 10 + "\n")
    out = text_of(await read(ctx, file_path="w.txt"))
    lines = out.splitlines()
    assert lines[0] == "     1\tshort"
    assert lines[1].startswith("     2\t" + "x" * 10 + "…") and "x" * 11 not in lines[1]
    assert "25 characters" in lines[1]
    assert lines[2] == "     3\t" + "y" * 10  # exactly at the cap: not cut
    assert "1 line(s) longer than 10 characters were truncated" in out


async def test_crlf_lines_are_shown_without_carriage_returns(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert text_of(await read(ctx, file_path="w.txt")) == "     1\tone\n     2\ttwo"


@pytest.mark.parametrize(
    ("data", "expected", "note"),
    [
        (b"caf\xe9 na\xefve\n", "café naïve", "Latin-1"),
        ("smart \u201cquotes\u201d\n".encode("cp1252"), "smart “quotes”", "Windows-1252"),
        (b"h\xc3\xa9llo \xff w\xc3\xb6rld\n", "héllo \ufffd wörld", "not valid UTF-8"),
        (b"\xef\xbb\xbfbom text\n", "bom text", None),
        (b"\xff\xfe" + "utf16 ünï\n".encode("utf-16-le"), "utf16 ünï", "UTF-16-LE with BOM"),
        (b"\xfe\xff" + "big endian\n".encode("utf-16-be"), "big endian", "UTF-16-BE"),
        ("plain ✓ utf-8\n".encode(), "plain ✓ utf-8", None),
    ],
)
async def test_encodings_are_decoded_without_crashing(
    tmp_path: Path, data: bytes, expected: str, note: str | None
) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "enc.txt").write_bytes(data)
    out = text_of(await read(ctx, file_path="enc.txt"))
    assert out.splitlines()[0] == f"     1\t{expected}"
    assert "\ufeff" not in out
    if note:
        assert note in out
    else:
        assert "[" not in out


@pytest.mark.parametrize(
    ("name", "data", "description"),
    [
        ("prog", b"\x7fELF\x02\x01\x01" + b"\x00" * 200, "ELF executable"),
        ("a.zip", b"PK\x03\x04\x14\x00" + b"\x00" * 100, "ZIP archive"),
        ("blob.dat", b"abc\x00def" * 10, "data"),
        ("lib.so", b"no nul bytes but a binary extension", "data"),
        ("doc.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "PDF document"),
    ],
)
async def test_binary_files_are_described_not_dumped(
    tmp_path: Path, name: str, data: bytes, description: str
) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / name).write_bytes(data)
    out = text_of(await read(ctx, file_path=name))
    assert "binary file" in out and description in out and f"{len(data)} bytes" in out
    assert "\x00" not in out and "\t" not in out  # no numbered content


async def test_large_binary_size_is_human_readable(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = ctx.workspace / "big.bin"
    p.write_bytes(b"\x7fELF" + b"\x00" * 100)
    os.truncate(p, int(2.1 * 1024 * 1024))
    out = text_of(await read(ctx, file_path="big.bin"))
    assert "binary file (2.1 MB, ELF executable)" in out


def image_bytes(fmt: str, size: tuple[int, int] = (64, 48), mode: str = "RGB") -> bytes:
    """A real image made with Pillow (the tool decodes what it sends)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new(mode, size, (200, 30, 30) if mode == "RGB" else None).save(out, fmt)
    return out.getvalue()


PNG = image_bytes("PNG")


@pytest.mark.parametrize(
    ("name", "fmt", "media_type"),
    [
        ("pic.png", "PNG", "image/png"),
        ("photo.jpg", "JPEG", "image/jpeg"),
        ("anim.gif", "GIF", "image/gif"),
        ("img.webp", "WEBP", "image/webp"),
        ("misnamed.txt", "PNG", "image/png"),  # judged by magic bytes, not the name
    ],
)
async def test_images_come_back_as_image_blocks(
    tmp_path: Path, name: str, fmt: str, media_type: str
) -> None:
    ctx = make_ctx(tmp_path)
    data = image_bytes(fmt)
    (ctx.workspace / name).write_bytes(data)
    result = await read(ctx, file_path=name)
    assert isinstance(result.content, list) and len(result.content) == 1
    block = result.content[0]
    assert block["type"] == "image"
    assert block["source"]["type"] == "base64"
    assert block["source"]["media_type"] == media_type
    assert base64.b64decode(block["source"]["data"]) == data
    assert result.display is not None
    assert (result.display["width"], result.display["height"]) == (64, 48)


async def test_a_corrupt_image_is_an_error_not_a_block_the_api_would_refuse(
    tmp_path: Path,
) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "broken.png").write_bytes(PNG[:40])
    with pytest.raises(ToolError, match="not a valid image"):
        await read(ctx, file_path="broken.png")


async def test_a_too_wide_image_is_scaled_down_and_says_so(tmp_path: Path) -> None:
    from PIL import Image

    ctx = make_ctx(tmp_path)
    (ctx.workspace / "wide.png").write_bytes(image_bytes("PNG", (4000, 1000)))
    result = await read(ctx, file_path="wide.png")
    assert isinstance(result.content, list)
    block, note = result.content
    sent = Image.open(io.BytesIO(base64.b64decode(block["source"]["data"])))
    assert sent.size == (2000, 500)
    assert "scaled down from 4000x1000 to 2000x500" in note["text"]


async def test_an_image_over_the_byte_cap_is_reencoded_below_it(tmp_path: Path) -> None:
    from PIL import Image

    ctx = make_ctx(tmp_path)
    noise = Image.frombytes("RGB", (1400, 1400), os.urandom(1400 * 1400 * 3))
    out = io.BytesIO()
    noise.save(out, "PNG")
    assert len(out.getvalue()) > IMAGE_MAX_BYTES
    (ctx.workspace / "noise.png").write_bytes(out.getvalue())
    result = await read(ctx, file_path="noise.png")
    assert isinstance(result.content, list)
    block = result.content[0]
    assert len(base64.b64decode(block["source"]["data"])) <= IMAGE_MAX_BYTES
    assert block["source"]["media_type"] == "image/jpeg"


async def test_empty_file_says_so(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "empty.txt").write_bytes(b"")
    out = text_of(await read(ctx, file_path="empty.txt"))
    assert "empty" in out and "\t" not in out
    assert ctx.workspace / "empty.txt" in ctx.files.records


async def test_missing_file_names_a_similar_file(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "config.yaml").write_text("x: 1\n")
    with pytest.raises(ToolError, match=r"File does not exist: config\.yml.*config\.yaml"):
        await read(ctx, file_path="config.yml")
    with pytest.raises(ToolError, match=r"File does not exist: nothing\.txt\.$"):
        await read(ctx, file_path="nothing.txt")
    with pytest.raises(ToolError, match="does not exist either"):
        await read(ctx, file_path="no/such/dir/f.txt")


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _socket(p: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(p))
    s.close()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "is a directory, not a file; use Glob or Bash ls"),
        (_fifo, "is a FIFO"),
        (_socket, "is a socket"),
    ],
)
async def test_non_regular_files_are_refused_without_opening(
    tmp_path: Path, make: Any, message: str
) -> None:
    ctx = make_ctx(tmp_path)
    target = ctx.workspace / "x"  # short: unix socket paths are limited to ~100 bytes
    if len(str(target)) > 100:
        pytest.skip("tmp path too long for a unix socket")
    make(target)
    start = time.monotonic()
    with pytest.raises(ToolError, match=message):
        await read(ctx, file_path="x")  # a FIFO would block forever if opened
    assert time.monotonic() - start < 2
    assert target not in ctx.files.records


async def test_device_is_refused(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, paths=OutsidePaths(lambda _tool, _path: True))
    with pytest.raises(ToolError, match="is a device"):
        await read(ctx, file_path="/dev/null")


SIZE_2G = 2 * 1024**3


def _sparse(ctx: ToolContext) -> Path:
    p = ctx.workspace / "huge.log"
    p.write_text("".join(f"entry {i:05d} of the log\n" for i in range(1, 1001)))  # ~24 KB
    os.truncate(p, SIZE_2G)
    return p


async def test_2gb_sparse_file_without_offset_is_refused_quickly(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    _sparse(ctx)
    start = time.monotonic()
    with pytest.raises(ToolError) as err:
        await read(ctx, file_path="huge.log")
    assert time.monotonic() - start < 2
    assert "2.0 GB" in str(err.value) and "offset" in str(err.value) and "limit" in str(err.value)


async def test_2gb_sparse_file_with_offset_and_limit_streams_only_that_part(
    tmp_path: Path,
) -> None:
    ctx = make_ctx(tmp_path)
    _sparse(ctx)
    start = time.monotonic()
    out = text_of(await read(ctx, file_path="huge.log", offset=500, limit=3))
    assert time.monotonic() - start < 2
    lines = out.splitlines()
    assert lines[:3] == [
        "   500\tentry 00500 of the log",
        "   501\tentry 00501 of the log",
        "   502\tentry 00502 of the log",
    ]
    assert "use offset=503 to continue" in out and "2.0 GB" in out


async def test_streamed_read_reaches_the_end_and_cuts_long_lines(tmp_path: Path) -> None:
    limits = ToolLimits(read_max_bytes=100, read_max_line_chars=20)
    ctx = make_ctx(tmp_path, limits=limits)
    body = "".join(f"row {i}\n" for i in range(1, 51)) + "z" * 5000 + "\nlast"
    (ctx.workspace / "s.txt").write_text(body)
    with pytest.raises(ToolError, match="more than the 100 bytes"):
        await read(ctx, file_path="s.txt")
    out = text_of(await read(ctx, file_path="s.txt", offset=49, limit=10))
    lines = out.splitlines()
    assert lines[:2] == ["    49\trow 49", "    50\trow 50"]
    assert lines[2].startswith("    51\t" + "z" * 20 + "…") and "5000 characters" in lines[2]
    assert lines[3] == "    52\tlast"
    assert "offset=" not in out  # nothing more to read
    with pytest.raises(ToolError, match="only 52 lines"):
        await read(ctx, file_path="s.txt", offset=60, limit=1)


async def test_successful_read_is_remembered_for_later_edits(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    p = ctx.workspace / "m.txt"
    p.write_text("hello\n")
    assert p not in ctx.files.records
    await read(ctx, file_path=str(p))
    rec = ctx.files.records[p]
    assert rec.size == 6 and rec.mtime_ns == p.stat().st_mtime_ns


async def test_symlink_pointing_outside_is_refused(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    (ctx.workspace / "link.txt").symlink_to(secret)
    with pytest.raises(ToolError, match="outside the workspace"):
        await read(ctx, file_path="link.txt")
    assert TOOL.paths({"file_path": "link.txt"}, ctx)[0].inside is False
    assert secret not in ctx.files.records


@pytest.mark.parametrize("raw", ["../secret.txt", "sub/../../secret.txt", "{tmp}/secret.txt"])
async def test_paths_outside_are_refused_unless_allowed(tmp_path: Path, raw: str) -> None:
    raw = raw.format(tmp=tmp_path)
    (tmp_path / "secret.txt").write_text("top secret\n")
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "sub").mkdir()
    with pytest.raises(ToolError, match="outside the workspace"):
        await read(ctx, file_path=raw)
    asked: list[tuple[str, Path]] = []

    def allow(tool: str, path: Path) -> bool:
        asked.append((tool, path))
        return True

    ctx.paths = OutsidePaths(allow)
    assert "top secret" in text_of(await read(ctx, file_path=raw))
    assert asked == [("Read", (tmp_path / "secret.txt").resolve())]


async def test_symlink_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "real.txt").write_text("real\n")
    (ctx.workspace / "alias.txt").symlink_to(ctx.workspace / "real.txt")
    assert text_of(await read(ctx, file_path="alias.txt")) == "     1\treal"
    assert ctx.workspace / "real.txt" in ctx.files.records


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"file_path": "src/a.py"}, "src/a.py"),
        ({"file_path": "src/a.py", "offset": 10, "limit": 5}, "src/a.py (lines 10-14)"),
        ({"file_path": "a.py", "offset": 7}, "a.py (lines 7-)"),
        ({"file_path": os.path.join(os.getcwd(), "x", "y.py")}, os.path.join("x", "y.py")),
    ],
)
def test_summary(args: dict[str, Any], expected: str) -> None:
    assert TOOL.summary(args) == expected


async def test_a_long_read_stops_at_a_whole_line_and_keeps_its_continuation_note(
    tmp_path: Path,
) -> None:
    from agent.turn.runner import MAX_RESULT_CHARS

    ctx = make_ctx(tmp_path)
    lines = [f"line {i} " + "x" * 990 for i in range(1, 2001)]  # 2,000 lines of ~1,000 chars
    (ctx.workspace / "long.txt").write_text("\n".join(lines) + "\n")
    out = text_of(await read(ctx, file_path="long.txt"))
    assert len(out) < MAX_RESULT_CHARS  # the runner's blind cut never touches it
    body, note = out.rsplit("\n\n", 1)
    numbered = body.splitlines()
    shown = len(numbered)
    assert 10 < shown < 2000
    assert numbered[-1] == f"{shown:>6}\t{lines[shown - 1]}"  # the last line is whole
    assert note == (
        f"[showing lines 1-{shown} of 2000 (Read returns at most "
        f"{ctx.limits.read_max_chars} characters); use offset={shown + 1} to continue]"
    )
    on = text_of(await read(ctx, file_path="long.txt", offset=shown + 1))
    assert on.startswith(f"{shown + 1:>6}\t{lines[shown]}\n")


async def test_the_character_cap_counts_the_line_numbers_and_keeps_the_line_count_note(
    tmp_path: Path,
) -> None:
    ctx = make_ctx(tmp_path, limits=ToolLimits(read_max_chars=200, read_max_lines=50))
    (ctx.workspace / "n.txt").write_text("".join(f"{i}\n" for i in range(1, 101)))
    out = text_of(await read(ctx, file_path="n.txt"))
    body, note = out.rsplit("\n\n", 1)
    assert len(body) <= 200
    shown = len(body.splitlines())
    assert note.startswith(f"[showing lines 1-{shown} of 100 (Read returns at most 200 ")
    assert f"use offset={shown + 1} to continue]" in note


async def test_a_single_huge_line_is_cut_to_the_cap_with_a_note(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, limits=ToolLimits(read_max_line_chars=10**6, read_max_chars=5000))
    (ctx.workspace / "one.txt").write_text("y" * 300_000 + "\n" + "z" * 200 + "\n")
    out = text_of(await read(ctx, file_path="one.txt"))
    assert len(out) < 6000
    assert "[truncated: 300000 characters]" in out
    assert "use offset=2 to continue]" in out and "were truncated" in out
