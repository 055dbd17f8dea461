"""What the file tools share: decoding, line endings, atomic writes, diffs, the stale-read check.

Text is decoded so that writing it back gives the same bytes: the BOM is kept apart, UTF-8 with
stray bytes is decoded with ``surrogateescape`` (the bytes come back unchanged), and Latin-1 or
Windows-1252 files stay in their encoding. Line endings are left as they are in the text; the
edit tools adapt the model's ``\\n`` to the file's ``\\r\\n`` instead of rewriting every line.
"""

from __future__ import annotations

import codecs
import difflib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.base import ToolContext, ToolError

SNIFF_BYTES = 8192
"""How much of a file's start is inspected for NUL bytes and magic numbers."""

_BINARY_EXT_WORDS = (
    ".exe .dll .so .dylib .o .a .lib .obj .bin .class .jar .war .pyc .pyo .pyd .whl .egg "
    ".zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .iso .dmg .deb .rpm .apk "
    ".png .jpg .jpeg .gif .webp .bmp .ico .tif .tiff .psd .heic "
    ".mp3 .mp4 .m4a .wav .flac .ogg .opus .avi .mov .mkv .webm "
    ".pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods "
    ".woff .woff2 .ttf .otf .eot .sqlite .sqlite3 .db .wasm .pickle .pkl .npy .npz"
)
BINARY_EXTENSIONS = frozenset(_BINARY_EXT_WORDS.split())
"""Extensions treated as binary even without NUL bytes in the first few KB."""

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NON_ASCII_DECODED = re.compile("[^\x00-\x7f\udc80-\udcff]")
_C1_BYTES = re.compile(b"[\x80-\x9f]")


@dataclass(frozen=True)
class Encoding:
    """How a file's bytes map to text.

    Attributes:
        codec: a Python codec name without BOM handling (``utf-8``, ``utf-16-le``, ``latin-1``).
        bom: the byte-order mark the file starts with (kept on write), or ``b""``.
        lossy: the bytes are not all valid in ``codec`` (UTF-8 with stray bytes).
    """

    codec: str
    bom: bytes = b""
    lossy: bool = False

    @property
    def label(self) -> str:
        """A human name, e.g. ``UTF-8 with BOM``."""
        name = {"latin-1": "Latin-1", "cp1252": "Windows-1252"}.get(self.codec, self.codec.upper())
        return f"{name} with BOM" if self.bom else name

    def decode(self, data: bytes, *, exact: bool) -> str:
        """Decode ``data`` (BOM included). ``exact`` keeps stray bytes so ``encode`` restores them.

        Raises:
            UnicodeDecodeError: ``exact`` and the bytes are not valid UTF-16/UTF-32.
        """
        body = data[len(self.bom) :] if self.bom and data.startswith(self.bom) else data
        if not exact:
            return body.decode(self.codec, "replace")
        return body.decode(self.codec, "surrogateescape" if self.codec == "utf-8" else "strict")

    def encode(self, text: str) -> bytes:
        """Encode ``text`` back, BOM first.

        Raises:
            UnicodeEncodeError: ``text`` has characters the codec cannot represent.
        """
        errors = "surrogateescape" if self.codec == "utf-8" else "strict"
        return self.bom + text.encode(self.codec, errors)


UTF8 = Encoding("utf-8")


def detect_encoding(data: bytes, *, complete: bool = True) -> Encoding:
    """Guess the encoding of ``data``: a BOM, else UTF-8, else Latin-1/Windows-1252, else UTF-8
    with the undecodable bytes kept aside.

    Args:
        data: the file's bytes, or (``complete=False``) the first part of them.
        complete: whether ``data`` is the whole file (a cut multi-byte character at the end of
            a partial sample is not an error).
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return Encoding(codec, bom)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=complete)
        return UTF8
    except UnicodeDecodeError:
        pass
    if _NON_ASCII_DECODED.search(data.decode("utf-8", "surrogateescape")):
        return Encoding("utf-8", lossy=True)  # mostly UTF-8 with a few stray bytes
    if not _C1_BYTES.search(data):
        return Encoding("latin-1")
    try:
        data.decode("cp1252")
        return Encoding("cp1252")
    except UnicodeDecodeError:
        return Encoding("utf-8", lossy=True)


def looks_binary(head: bytes, path: Path) -> bool:
    """Whether a file is binary: a NUL byte in its first bytes (no UTF-16/32 BOM), or its name."""
    if any(head.startswith(bom) for bom, codec in _BOMS if codec != "utf-8"):
        return False
    return b"\x00" in head[:SNIFF_BYTES] or path.suffix.lower() in BINARY_EXTENSIONS


def detect_newline(text: str) -> str:
    """The file's predominant line ending: ``\\r\\n`` or ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def to_newline(text: str, newline: str) -> str:
    """``text`` with every line break written as ``newline``."""
    text = text.replace("\r\n", "\n")
    return text if newline == "\n" else text.replace("\n", newline)


def plural(n: int, word: str) -> str:
    """``1 replacement`` / ``2 replacements``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def human_size(n: int) -> str:
    """``2.1 MB`` style sizes (powers of 1024)."""
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def display_path(ctx: ToolContext, path: Path) -> str:
    """``path`` relative to the workspace when inside it, else absolute."""
    try:
        return str(path.relative_to(ctx.workspace))
    except ValueError:
        return str(path)


def summary_path(raw: Any) -> str:
    """A short form of a path the model gave, for one-line summaries (no context needed)."""
    text = str(raw or "")
    try:
        rel = os.path.relpath(text, os.getcwd()) if os.path.isabs(text) else text
    except ValueError:
        return text
    return text if rel.startswith("..") else rel


def kind_of(mode: int) -> str | None:
    """What a non-regular file is (``a directory``, ``a FIFO``...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def stat_regular(path: Path, label: str) -> os.stat_result | None:
    """``stat`` ``path``: None when it does not exist; ToolError when it is not a regular file."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ToolError(f"Cannot access {label}: {exc.strerror or exc}") from exc
    kind = kind_of(st.st_mode)
    if kind == "a directory":
        raise ToolError(f"{label} is a directory, not a file; use Glob or Bash ls to list it.")
    if kind:
        raise ToolError(f"{label} is {kind}, not a regular file; file tools only handle files.")
    return st


def missing_message(raw: str, path: Path) -> str:
    """ "File does not exist" with a hint: a similarly named file nearby, or the missing folder."""
    msg = f"File does not exist: {raw}"
    parent = path.parent
    if not parent.is_dir():
        return f"{msg} (its directory {parent} does not exist either)."
    try:
        names = [e.name for e in os.scandir(parent)]
    except OSError:
        return msg + "."
    same_stem = [n for n in names if Path(n).stem == path.stem and n != path.name]
    close = same_stem or difflib.get_close_matches(path.name, names, n=3, cutoff=0.75)
    if close:
        return f"{msg}. Did you mean {', '.join(str(parent / n) for n in close[:3])}?"
    return msg + "."


@contextmanager
def os_errors(action: str, label: str) -> Iterator[None]:
    """Turn OSError/UnicodeError inside the block into a ToolError naming the action."""
    try:
        yield
    except OSError as exc:
        raise ToolError(f"Could not {action} {label}: {exc.strerror or exc}") from exc
    except UnicodeError as exc:
        raise ToolError(f"Could not {action} {label}: {exc}") from exc


def require_fresh(ctx: ToolContext, path: Path, st: os.stat_result, label: str) -> None:
    """Refuse to change a file the model has not read, or that changed on disk since then."""
    rec = ctx.files.records.get(path)
    if rec is None:
        raise ToolError(
            f"{label} has not been read in this session. Read it first, then make the change; "
            "existing files are only changed after you have seen their current content."
        )
    if rec.mtime_ns != st.st_mtime_ns or rec.size != st.st_size:
        raise ToolError(
            f"{label} has been modified since you last read it (by the user or another "
            "program). Read it again and make the change against its current content."
        )


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes, old: os.stat_result | None) -> None:
    """Write ``data`` to ``path`` via a temp file in the same directory and ``os.replace``.

    Args:
        path: the (real) path to write.
        data: the new bytes.
        old: the stat of the file being replaced: its mode bits (and owner, when allowed) are
            kept. None for a new file, which gets the usual ``0o666 & ~umask``.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".eddy-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(old.st_mode) if old else 0o666 & ~_umask())
        if old is not None and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(tmp, old.st_uid, old.st_gid)
            except OSError:
                pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def make_diff(label: str, old: str, new: str) -> tuple[str, int, int]:
    """A unified diff of two texts (line endings normalised) and its added/removed line counts.

    The headers are git's ``a/path`` and ``b/path`` for a path relative to the workspace; an
    absolute path (outside it) is given as it is, never as ``a//tmp/x``.
    """
    a, b = _diff_lines(old), _diff_lines(new)
    before, after = (label, label) if os.path.isabs(label) else (f"a/{label}", f"b/{label}")
    lines = list(difflib.unified_diff(a, b, before, after))
    added = sum(1 for ln in lines[2:] if ln.startswith("+"))
    removed = sum(1 for ln in lines[2:] if ln.startswith("-"))
    return "".join(lines), added, removed


def _diff_lines(text: str) -> list[str]:
    lines = re.findall(r"[^\n]*\n|[^\n]+", text.replace("\r\n", "\n"))
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines
