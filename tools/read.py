"""Read: a file's lines in ``cat -n`` form, an image as an image block, a binary file described.

Files up to ``read_max_bytes`` are read whole. Larger ones are only read with offset/limit, and
then streamed in chunks, so a part of a multi-gigabyte file costs no more than the part itself
(plus the scan to reach it); a long line is kept only up to ``read_max_line_chars``.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolLimits, ToolResult
from tools.client_files import read_through_client
from tools.image_block import IMAGE_FILE_MAX_BYTES, encode_image
from tools.notebook import read_notebook
from tools.textfile import (
    SNIFF_BYTES,
    Encoding,
    detect_encoding,
    display_path,
    human_size,
    looks_binary,
    missing_message,
    os_errors,
    stat_regular,
    summary_path,
)

_CHUNK = 1 << 20
_LIMITS = ToolLimits()

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

_BINARY_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x7fELF", "ELF executable"),
    (b"MZ", "Windows executable"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip compressed data"),
    (b"BZh", "bzip2 compressed data"),
    (b"\xfd7zXZ\x00", "xz compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"Rar!\x1a\x07", "RAR archive"),
    (b"%PDF", "PDF document"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"ID3", "MP3 audio"),
    (b"OggS", "Ogg media"),
    (b"fLaC", "FLAC audio"),
    (b"II*\x00", "TIFF image"),
    (b"MM\x00*", "TIFF image"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
    (b"BM", "BMP image"),
)


def _nonblocking(path: str, flags: int) -> int:
    # Should the path turn into a FIFO between stat and open, opening must not hang.
    return os.open(path, flags | os.O_NONBLOCK)


def image_type(head: bytes) -> str | None:
    """The media type of a PNG/JPEG/GIF/WebP image, judged by its magic bytes."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((media for magic, media in _IMAGE_MAGIC if head.startswith(magic)), None)


def describe_binary(head: bytes, path: Path) -> str:
    """A short description of a binary file's format from its magic number (``file``-like)."""
    if head[257:262] == b"ustar":
        return "tar archive"
    if head[4:8] == b"ftyp":
        return "MP4/QuickTime media"
    if head[:4] == b"RIFF":
        return {b"WAVE": "WAV audio", b"AVI ": "AVI video"}.get(head[8:12], "RIFF data")
    for magic, what in _BINARY_MAGIC:
        if head.startswith(magic):
            return what
    if path.suffix.lower() in (".pyc", ".pyo"):
        return "Python bytecode"
    return f"{path.suffix.lower()} data" if path.suffix else "data"


def _stream_lines(
    f: IO[bytes], enc: Encoding, keep: int, size: int
) -> Iterator[tuple[str, int, bool]]:
    """Yield ``(line, length, more)`` for each line of ``f`` without holding more than a chunk.

    ``line`` keeps at most ``keep`` characters (no line break); ``length`` is the full length;
    ``more`` says whether anything follows the line.
    """
    dec = codecs.getincrementaldecoder(enc.codec)("replace")
    parts: list[str] = []
    kept = length = 0
    while True:
        chunk = f.read(_CHUNK)
        text = dec.decode(chunk, final=not chunk)
        pos = 0
        while True:
            nl = text.find("\n", pos)
            piece = text[pos:] if nl < 0 else text[pos:nl]
            length += len(piece)
            if kept < keep:
                parts.append(piece[: keep - kept])
                kept += len(parts[-1])
            if nl < 0:
                break
            yield "".join(parts), length, nl + 1 < len(text) or f.tell() < size
            parts, kept, length, pos = [], 0, 0, nl + 1
        if not chunk:
            if length:
                yield "".join(parts), length, False
            return


class ReadTool:
    """The Read tool (Claude Code's name and input fields)."""

    name = "Read"
    description = (
        "Reads a file from the local filesystem. file_path may be absolute or relative to the "
        "workspace root; files outside the workspace need the user's permission.\n"
        f"- By default reads up to {_LIMITS.read_max_lines} lines from the start of the file. "
        "For long files give offset (the 1-based line number to start at) and limit (how many "
        "lines); otherwise prefer reading the whole file.\n"
        "- Results use cat -n format: the line number right-aligned in 6 columns, a tab, then "
        "the line exactly as in the file. The number and tab are not part of the file: never "
        "include them in an Edit's old_string.\n"
        f"- Lines longer than {_LIMITS.read_max_line_chars} characters are truncated, with a "
        f"note; at most {_LIMITS.read_max_chars} characters are returned. A note says when "
        "more lines follow and which offset continues.\n"
        "- Images (PNG, JPEG, GIF, WebP) are shown to you as images. Other binary files are "
        "described, not dumped.\n"
        "- Jupyter notebooks (.ipynb) are shown as their cells (with ids) and outputs; use "
        "NotebookEdit to change a cell.\n"
        "- Reads files only, not directories: use Glob, Grep or Bash ls for those.\n"
        "- Call Read several times in one response to read several files in parallel. You must "
        "Read a file before changing it with Edit, MultiEdit or Write."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to read: absolute, or relative to the workspace root.",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "The line number to start reading from (1-based). Only for "
                "files too long to read at once.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "The number of lines to read. Only for files too long to read "
                "at once.",
            },
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }
    read_only = True

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The file this call reads."""
        return [ctx.resolve(args["file_path"])]

    def summary(self, args: dict[str, Any]) -> str:
        """The path, with the line range when offset/limit are given."""
        text = summary_path(args.get("file_path"))
        offset, limit = args.get("offset"), args.get("limit")
        if offset or limit:
            start = max(int(offset or 1), 1)
            end = f"-{start + int(limit) - 1}" if limit else "-"
            text += f" (lines {start}{end})"
        return text

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Read the file; see the description."""
        path = ctx.resolve_for(self.name, args["file_path"])
        buffered = await read_through_client(ctx, path)  # an editor's unsaved buffer
        result = await asyncio.to_thread(self._read, ctx, path, args, buffered)
        with os_errors("read", display_path(ctx, path)):
            ctx.files.remember(path)
        return result

    def _read(
        self, ctx: ToolContext, path: Path, args: dict[str, Any], buffered: str | None = None
    ) -> ToolResult:
        raw, label, limits = args["file_path"], display_path(ctx, path), ctx.limits
        st = stat_regular(path, label)
        if st is None:
            raise ToolError(missing_message(raw, path))
        size = st.st_size
        if size == 0:
            return ToolResult(f"{label} exists but is empty (0 bytes).")
        with os_errors("read", label), open(path, "rb", opener=_nonblocking) as f:
            head = f.read(SNIFF_BYTES)
            media = image_type(head)
            if media is not None:
                return self._image(f, head, media, size, label)
            if looks_binary(head, path):
                return ToolResult(
                    f"{label} is a binary file ({human_size(size)}, "
                    f"{describe_binary(head, path)}); its content is not shown."
                )
            whole = args.get("offset") is None and args.get("limit") is None
            if size <= limits.read_max_bytes and whole and path.suffix.lower() == ".ipynb":
                return read_notebook(head + f.read(), label)
            if buffered is not None and len(buffered) <= limits.read_max_bytes:
                return _whole(buffered.encode("utf-8"), args, limits, label)
            if size <= limits.read_max_bytes:
                return _whole(head + f.read(), args, limits, label)
            if args.get("offset") is None and args.get("limit") is None:
                raise ToolError(
                    f"{label} is {human_size(size)}, more than the "
                    f"{human_size(limits.read_max_bytes)} Read loads at once. Read part of it "
                    f"with offset and limit (e.g. offset=1, limit={limits.read_max_lines}), or "
                    "search it with Grep."
                )
            enc = detect_encoding(head + f.read(64 * 1024), complete=False)
            f.seek(len(enc.bom))
            return _streamed(f, enc, size, args, limits, label)

    @staticmethod
    def _image(f: IO[bytes], head: bytes, media: str, size: int, label: str) -> ToolResult:
        if size > IMAGE_FILE_MAX_BYTES:
            raise ToolError(
                f"{label} is a {media} image of {human_size(size)}, larger than the "
                f"{human_size(IMAGE_FILE_MAX_BYTES)} eddy decodes; make a smaller copy with "
                "Bash (e.g. ImageMagick) and Read that."
            )
        image = encode_image(head + f.read(), label)
        content: list[dict[str, Any]] = [image.block]
        if image.resized:
            content.append({"type": "text", "text": image.note()})
        display = {
            "kind": "image",
            "path": str(f.name),
            "media_type": image.media_type,
            "size": size,
            "width": image.width,
            "height": image.height,
        }
        return ToolResult(content, display=display)


def _finish(
    shown: list[tuple[str, int]], start: int, total: str, more: bool, enc: Encoding, lim: ToolLimits
) -> ToolResult:
    """``cat -n`` lines (6-wide number, tab, text) with notes on what was cut and what is left.

    The lines stop at the first one that would pass ``lim.read_max_chars`` (at least one line
    is shown, itself cut to fit), so the result always ends with its continuation note, whole.
    """
    out: list[str] = []
    cut = used = 0
    line_cap = max(min(lim.read_max_line_chars, lim.read_max_chars - 100), 1)
    for n, (line, length) in enumerate(shown, start):
        if line.endswith("\r"):
            line, length = line[:-1], length - 1
        long = length > line_cap
        if long:
            line = f"{line[:line_cap]}… [truncated: {length} characters]"
        numbered = f"{n:>6}\t{line}"
        if out and used + len(numbered) + 1 > lim.read_max_chars:
            more = True  # the character cap ends this read here: say where to read on
            break
        cut += long
        out.append(numbered)
        used += len(numbered) + 1
    notes = []
    if enc.lossy:
        notes.append("[the file is not valid UTF-8; undecodable bytes are shown as \ufffd]")
    elif enc.codec != "utf-8":
        notes.append(f"[decoded as {enc.label}; edits keep this encoding]")
    if more:
        end = start + len(out) - 1
        why = (
            ""
            if len(out) == len(shown)
            else f" (Read returns at most {lim.read_max_chars} characters)"
        )
        notes.append(
            f"[showing lines {start}-{end} of {total}{why}; use offset={end + 1} to continue]"
        )
    if cut:
        notes.append(
            f"[{cut} line(s) longer than {line_cap} characters were truncated; "
            "use Grep or Bash (e.g. cut -c) to see them in full]"
        )
    return ToolResult("\n".join(out) + "".join("\n\n" + n for n in notes))


def _past_end(label: str, lines: int, start: int) -> ToolError:
    return ToolError(
        f"{label} has only {lines} lines; offset {start} is past the end. Use an offset between "
        f"1 and {lines}."
    )


def _whole(data: bytes, args: dict[str, Any], lim: ToolLimits, label: str) -> ToolResult:
    enc = detect_encoding(data)
    lines = enc.decode(data, exact=False).split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return ToolResult(f"{label} exists but is empty (only a byte-order mark).")
    total, start = len(lines), max(args.get("offset") or 1, 1)
    if start > total:
        raise _past_end(label, total, start)
    shown = lines[start - 1 : start - 1 + (args.get("limit") or lim.read_max_lines)]
    keep = lim.read_max_line_chars + 1
    more = start + len(shown) - 1 < total
    return _finish([(ln[:keep], len(ln)) for ln in shown], start, str(total), more, enc, lim)


def _streamed(
    f: IO[bytes], enc: Encoding, size: int, args: dict[str, Any], lim: ToolLimits, label: str
) -> ToolResult:
    start, count = max(args.get("offset") or 1, 1), args.get("limit") or lim.read_max_lines
    shown: list[tuple[str, int]] = []
    seen, more = 0, False
    for line, length, after in _stream_lines(f, enc, lim.read_max_line_chars + 1, size):
        seen += 1
        if seen >= start:
            shown.append((line, length))
            more = after
            if len(shown) == count:
                break
    if not shown:
        raise _past_end(label, seen, start)
    total = f"a {human_size(size)} file (line count not known without reading it all)"
    return _finish(shown, start, total, more, enc, lim)


TOOL = ReadTool()
