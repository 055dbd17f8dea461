"""Files an editor holds (ACP's ``fs`` capability): Read sees its unsaved buffers, and Edit,
MultiEdit and Write change the file through it (it shows the change, with undo).

Only plain UTF-8 text files go this way; every check stays as for the disk (the path resolver,
permission rules, "read before you change it", the checkpoint before the change). The text a
Read got from the editor is kept per path: the next change is planned against it (precheck,
preview and run agree), and just before the write the editor is asked again, so an edit the
user made in the buffer since is noticed as a change on disk would be.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tools.base import ToolError

if TYPE_CHECKING:
    from tools.base import ToolContext
    from tools.textdoc import TextDoc


class ClientFiles(Protocol):
    """What an editor offers for files (an ACP client with ``fs`` read and write)."""

    async def read_text(self, path: Path) -> str | None:
        """The text of ``path`` as the editor has it (an unsaved buffer too), or None when
        the editor cannot say (the caller reads the disk)."""
        ...

    async def write_text(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` through the editor (it saves it to disk).

        Raises:
            OSError: the editor refused or failed.
        """
        ...


async def read_through_client(ctx: ToolContext, path: Path) -> str | None:
    """The editor's text for ``path`` (kept for the next change), or None: no editor, or it
    has no text for it."""
    files = ctx.client_files
    if files is None or not path.is_relative_to(ctx.workspace):
        return None
    try:
        text = await files.read_text(path)
    except Exception:  # the editor could not say: the disk decides
        text = None
    if text is None:
        ctx.client_texts.pop(path, None)
    else:
        ctx.client_texts[path] = text
    return text


def planned_text(ctx: ToolContext, doc: TextDoc) -> TextDoc:
    """``doc`` with the editor's text of it as last read, when it came from the editor."""
    text = ctx.client_texts.get(doc.path)
    if text is None or doc.opaque or doc.encoding.bom or doc.encoding.codec != "utf-8":
        return doc
    doc.text = text
    return doc


def goes_through_client(ctx: ToolContext, doc: TextDoc) -> bool:
    """Whether the change of ``doc`` is written by the editor (plain UTF-8 text only: the
    editor writes text, so another encoding or a byte-order mark is written on disk)."""
    if ctx.client_files is None or doc.opaque or not doc.path.is_relative_to(ctx.workspace):
        return False
    return doc.stat is None or (doc.encoding.codec == "utf-8" and not doc.encoding.bom)


async def write_through_client(ctx: ToolContext, doc: TextDoc, new_text: str) -> None:
    """Write ``new_text`` through the editor, after checking its buffer still holds what the
    change was planned against; record the file as the model now knows it."""
    files = ctx.client_files
    assert files is not None
    if doc.path in ctx.client_texts:
        now = await read_through_client(ctx, doc.path)
        if now is not None and now != doc.text:
            raise ToolError(
                f"{doc.label} was changed in the editor since you last read it. Read it again "
                "and make the change against its current content."
            )
    try:
        await files.write_text(doc.path, new_text)
    except OSError as exc:
        raise ToolError(f"The editor could not write {doc.label}: {exc}") from exc
    ctx.client_texts[doc.path] = new_text
    try:
        ctx.files.remember(doc.path)
    except OSError:  # the editor keeps it unsaved: the next change asks the editor again
        ctx.files.records.pop(doc.path, None)
