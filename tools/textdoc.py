"""The load and save steps Edit, Write and MultiEdit share: a file loaded for changing as a
:class:`TextDoc`, the exact-string replacement, and the atomic save with its diff.

The file is decoded losslessly (see :mod:`tools.textfile`), the replacement is made on the text
as it is on disk (the model's ``\\n`` adapted to a ``\\r\\n`` file), and the result is encoded
back in the file's encoding and written atomically, keeping its mode bits.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.base import ToolContext, ToolError
from tools.client_files import goes_through_client, planned_text, write_through_client
from tools.safewrite import safe_write
from tools.textfile import (
    SNIFF_BYTES,
    UTF8,
    Encoding,
    detect_encoding,
    detect_newline,
    human_size,
    looks_binary,
    make_diff,
    os_errors,
    require_fresh,
    stat_regular,
    to_newline,
)

EDIT_MAX_BYTES = 64 * 1024 * 1024
"""Files larger than this are not loaded into memory to be changed as text."""


@dataclass
class TextDoc:
    """A file loaded for changing: its text exactly as on disk (decoded) and its format.

    Attributes:
        stat: the file's stat when loaded; None when it does not exist yet.
        opaque: the old content was not loaded (binary or huge; only Write replaces those).
    """

    path: Path
    label: str
    text: str
    encoding: Encoding
    newline: str
    stat: os.stat_result | None
    opaque: bool = False


def load_for_change(ctx: ToolContext, path: Path, label: str, *, whole: bool = False) -> TextDoc:
    """Load ``path`` to change it, after the stale-read check.

    Args:
        ctx: the tool context (its read records).
        path: the real path.
        label: the path as shown to the model.
        whole: the caller replaces the whole content (Write): binary or huge files are allowed
            and come back ``opaque``.

    Returns:
        The document; a missing file gives an empty one with ``stat=None``.
    """
    st = stat_regular(path, label)
    if st is None:
        return TextDoc(path, label, "", UTF8, "\n", None)
    require_fresh(ctx, path, st, label)
    if st.st_size > EDIT_MAX_BYTES:
        if whole:
            return TextDoc(path, label, "", UTF8, "\n", st, opaque=True)
        raise ToolError(
            f"{label} is {human_size(st.st_size)}, too large to edit in memory; use Bash "
            "(e.g. sed) for changes to a file this size."
        )
    with os_errors("read", label):
        data = path.read_bytes()
    if looks_binary(data[:SNIFF_BYTES], path):
        if whole:
            return TextDoc(path, label, "", UTF8, "\n", st, opaque=True)
        raise ToolError(f"{label} is a binary file; it cannot be changed as text.")
    enc = detect_encoding(data)
    try:
        text = enc.decode(data, exact=True)
    except UnicodeDecodeError as exc:
        msg = f"{label} is not valid {enc.label} ({exc.reason}); not changing it."
        raise ToolError(msg) from exc
    return planned_text(ctx, TextDoc(path, label, text, enc, detect_newline(text), st))


@dataclass
class Plan:
    """A file change worked out in full but not yet written: what ``save_text`` will write.

    Attributes:
        doc: the file as loaded.
        text: its new text.
        data: ``text`` encoded for the file.
        message: the tool's result text once saved, after its verb (Created / Updated).
    """

    doc: TextDoc
    text: str
    data: bytes
    message: str


Planner = Callable[[ToolContext, Path, dict[str, Any]], Plan]
"""Works out a call's change of the (real) path from its input; raises ToolError."""


def _plan_for_check(
    tool: str, planner: Planner, args: dict[str, Any], ctx: ToolContext, *, outside: bool
) -> Plan | str | None:
    """The plan of a call, its error text, or None when it must not be looked at yet.

    Unless ``outside``, a path outside the workspace that the user has not allowed is not
    looked at: the precheck's error goes to the model, and would tell it whether such a file
    exists before the user said it may look. The preview only goes to the user.
    """
    raw = args.get("file_path")
    if not isinstance(raw, str):
        return None
    try:
        rp = ctx.resolve(raw)
        if not (outside or rp.inside or ctx.allow_outside(tool, rp.path)):
            return None
        return planner(ctx, rp.path, args)
    except ToolError as exc:
        return str(exc) or f"{tool} cannot be made"
    except Exception:  # a check must never fail a call that could succeed: run decides
        return None


def precheck_plan(
    tool: str, planner: Planner, args: dict[str, Any], ctx: ToolContext
) -> str | None:
    """Why ``planner`` fails for this call now (the error ``run`` would give), or None."""
    got = _plan_for_check(tool, planner, args, ctx, outside=False)
    return got if isinstance(got, str) else None


def preview_plan(tool: str, planner: Planner, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """The unified diff ``planner`` would write for this call now, or None."""
    got = _plan_for_check(tool, planner, args, ctx, outside=True)
    if not isinstance(got, Plan):
        return None
    return make_diff(got.doc.label, got.doc.text, got.text)[0]


def encode_for(doc: TextDoc, text: str) -> bytes:
    """Encode ``text`` in the document's encoding, or explain which characters do not fit."""
    try:
        return doc.encoding.encode(text)
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise ToolError(
            f"{doc.label} is encoded as {doc.encoding.label}, which cannot represent {bad!r}; "
            "use characters that exist in that encoding (or rewrite the file with Write)."
        ) from exc


async def save_text(ctx: ToolContext, doc: TextDoc, new_text: str, data: bytes) -> dict[str, Any]:
    """Write ``data`` (the encoded ``new_text``) over ``doc``; return the UI's diff display.

    Checks again that nobody changed the file since it was loaded, awaits the checkpoint hook,
    creates parent directories for a new file, writes atomically through directory fds (a
    symlink swapped in meanwhile cannot redirect it, see :mod:`tools.safewrite`) and records
    the new state.
    """
    path, label, old = doc.path, doc.label, doc.stat
    with os_errors("write", label):
        now = stat_regular(path, label)
        if old is None and now is not None:
            raise ToolError(f"{label} was created by another program meanwhile; Read it first.")
        if old is not None and (
            now is None or (now.st_mtime_ns, now.st_size) != (old.st_mtime_ns, old.st_size)
        ):
            raise ToolError(f"{label} changed on disk while being changed; Read it again.")
        if ctx.before_change is not None:
            await ctx.before_change([path])
        if goes_through_client(ctx, doc):  # an editor holds the file (ACP fs)
            await write_through_client(ctx, doc, data.decode("utf-8"))
        else:
            ctx.files.record(path, safe_write(path, data, old, ctx.roots(), label))
    diff, added, removed = make_diff(label, doc.text, new_text)
    return {
        "kind": "diff",
        "path": str(path),
        "diff": diff,
        "added": added,
        "removed": removed,
        "created": old is None,
    }


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text.translate(_QUOTES)).strip()


def _not_found(text: str, old: str) -> str:
    msg = "old_string was not found in the file."
    if re.search(r"^ *\d+\t", old, re.MULTILINE):
        msg += (
            " It seems to start with a line-number prefix from Read output (spaces, number, "
            "tab); leave the prefix out."
        )
    squashed = _squash(old)
    if squashed and squashed in _squash(text):
        msg += (
            " A match exists when whitespace and quote styles are ignored: copy the text "
            "exactly as it is in the file (indentation, tabs vs spaces, trailing spaces, line "
            "breaks, quote characters)."
        )
    else:
        msg += " Read the file again to see its current content and copy old_string exactly."
    return msg


def apply_edit(text: str, old: str, new: str, replace_all: bool, newline: str) -> tuple[str, int]:
    """Replace ``old`` with ``new`` in ``text``; return the new text and the replacement count.

    The model's line breaks are first adapted to the file's ``newline``; when that does not
    match (a file with mixed line endings) the strings are tried as given.

    Raises:
        ToolError: old and new are equal, old is empty, missing, or ambiguous without
            ``replace_all``.
    """
    if old == new:
        raise ToolError("old_string and new_string are identical; there is nothing to change.")
    if not old:
        raise ToolError(
            "old_string is empty, but the file already has content. Include the text to "
            "replace (or text next to where to insert) in old_string."
        )
    candidates = ((to_newline(old, newline), to_newline(new, newline)), (old, new))
    for o, n in candidates:  # noqa: B007 - the matching pair is used after the loop
        count = text.count(o)
        if count:
            break
    else:
        raise ToolError(_not_found(text, old))
    if count > 1 and not replace_all:
        raise ToolError(
            f"Found {count} matches of old_string, but replace_all is false. To change one "
            "occurrence, include more surrounding lines in old_string so that it matches "
            "exactly once; to change every occurrence, set replace_all to true."
        )
    return (text.replace(o, n) if replace_all else text.replace(o, n, 1)), count
