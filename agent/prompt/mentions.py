"""@-mentions: ``@path`` in a prompt attaches that file's content to the prompt.

Only files inside the workspace are attached (a mention is not a way around the permission
layer), up to a size cap; the model receives each as a text block after the prompt, so the
prompt itself stays exactly what the user typed.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.prompt.images import IMAGE_SUFFIXES
from tools.base import ToolContext, ToolError

MENTION = re.compile(r"(?:(?<=\s)|^)@((?:[^\s\"']|\\ )+)")
MAX_BYTES = 256 * 1024


def mentioned_paths(text: str) -> list[str]:
    """The raw paths after ``@`` in ``text`` (trailing punctuation dropped), in order."""
    out = []
    for m in MENTION.finditer(text):
        raw = m.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        if raw and raw not in out:
            out.append(raw)
    return out


def attachments(text: str, workspace: Path) -> list[str]:
    """Text blocks for the files ``text`` mentions (missing, outside or binary: a note)."""
    ctx = ToolContext(workspace)
    blocks = []
    for raw in mentioned_paths(text):
        try:
            resolved = ctx.resolve(raw)
        except ToolError:
            continue
        path = resolved.path
        if not path.exists():
            continue  # "@someone" in prose is not a file
        if path.suffix.lower() in IMAGE_SUFFIXES and path.is_file():
            continue  # attached as an image (agent/prompt/images.py)
        if not resolved.inside:
            blocks.append(f"[@{raw} is outside the workspace and was not attached]")
            continue
        if path.is_dir():
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())[:200]
            blocks.append(f"Contents of directory @{raw}:\n" + "\n".join(names))
            continue
        try:
            data = path.read_bytes()[: MAX_BYTES + 1]
        except OSError as exc:
            blocks.append(f"[@{raw} could not be read: {exc.strerror}]")
            continue
        if b"\x00" in data[:8192]:
            blocks.append(f"[@{raw} is a binary file and was not attached]")
            continue
        body = data[:MAX_BYTES].decode("utf-8", errors="replace")
        note = (
            "\n[... cut at 256 KB: use Read with offset for the rest]"
            if len(data) > MAX_BYTES
            else ""
        )
        blocks.append(f"Contents of @{raw}:\n```\n{body}\n```{note}")
    return blocks
