"""Images in a prompt: a pasted or dropped image file path attaches the image.

Terminals paste a dropped file as its absolute path: plain, quoted, with ``\\ `` for spaces,
or as a ``file://`` URL. Each word of the prompt that is such a path (absolute, ``~/``, ``./``,
``../``, ``file://``) or an ``@`` mention, and names an existing PNG, JPEG, GIF or WebP file,
is attached as an image block after the prompt's text (which stays as typed, so the model
also knows the path). A bare name in prose ("the bug in logo.png") is not a paste: it is not
attached. The user put the path there, so a file outside the workspace is attached too
(a screenshot on the desktop); each image is decoded and scaled down to fit the API's limits
(:mod:`tools.image_block`), and one that cannot be is a note instead.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from agent.messages import Block, OtherBlock, TextBlock
from tools.base import ToolError
from tools.image_block import encode_image

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
MAX_IMAGES = 20
"""Images attached from one prompt at most (the API's per-request limits are about 100)."""

_PATH_STARTS = ("/", "~/", "./", "../")
_WORD = re.compile(r'"([^"\n]+)"|\'([^\'\n]+)\'|((?:\\ |\S)+)')


def _candidates(text: str) -> list[str]:
    """The words of ``text`` that could be image paths, unquoted and unescaped."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        raw = m.group(1) or m.group(2) or m.group(3).replace("\\ ", " ")
        raw = raw.rstrip(".,;:!?)")
        if raw.startswith("file://"):
            raw = unquote(urlsplit(raw).path)
        elif raw.startswith("@"):
            raw = raw[1:]
        elif not raw.startswith(_PATH_STARTS):
            continue  # a name in prose, not a pasted path
        if os.path.splitext(raw)[1].lower() in IMAGE_SUFFIXES and raw not in out:
            out.append(raw)
    return out


def image_paths(text: str, workspace: Path) -> list[Path]:
    """The image files ``text`` names (relative paths from ``workspace``), in order."""
    found: list[Path] = []
    for raw in _candidates(text):
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = workspace / path
        try:
            if path.is_file() and path not in found:
                found.append(path)
        except OSError:
            continue
    return found[:MAX_IMAGES]


def image_attachments(text: str, workspace: Path) -> list[Block]:
    """Image blocks for the image files ``text`` names; a text note for one that fails."""
    blocks: list[Block] = []
    for path in image_paths(text, workspace):
        try:
            image = encode_image(path.read_bytes(), path.name)
        except ToolError as exc:
            blocks.append(TextBlock(f"[image {path} was not attached: {exc}]"))
            continue
        except OSError as exc:
            blocks.append(TextBlock(f"[image {path} could not be read: {exc.strerror}]"))
            continue
        blocks.append(OtherBlock(image.block))
        if image.resized:
            blocks.append(TextBlock(f"{path.name}: {image.note()}"))
    return blocks
