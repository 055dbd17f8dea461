"""Images for the front ends: a paste that is an image file's path, and the chip shown for it;
an image that arrives inline (an editor's, an Agent SDK's), saved to a file.

The prompt shows ``[image 1: shot.png 640x480]`` where the path was pasted and sends the
path itself (quoted when it has spaces); the engine attaches the image it names
(``agent.prompt.images``), so every front end attaches images the same way. An inline image
is saved under the project's data directory and named by its path in the prompt, so it is
attached the same way too.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from agent.paths import project_data_dir
from agent.prompt.images import IMAGE_SUFFIXES

MIME_SUFFIXES = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
}
"""The image types the API reads, and the suffix a saved one gets."""


@dataclass(frozen=True)
class PastedImage:
    """An image file a paste names: its absolute path and size in pixels."""

    path: Path
    width: int
    height: int

    def chip(self, number: int) -> str:
        """The placeholder the prompt shows: ``[image 1: shot.png 640x480]``."""
        return f"[image {number}: {self.path.name} {self.width}x{self.height}]"

    def as_prompt_text(self) -> str:
        """What the prompt sends in the chip's place: the path, quoted if it must be."""
        text = str(self.path)
        return f'"{text}"' if any(c.isspace() for c in text) else text


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)  # quotes and "\ " as terminals write a dropped path
    except ValueError:
        return []


def _image_size(path: Path) -> tuple[int, int] | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:  # reads the header only
            return image.size
    except (OSError, UnidentifiedImageError, ValueError):
        return None


def pasted_images(text: str, base: Path) -> list[PastedImage] | None:
    """The images a paste names when every word of it is an image file's path (a drop of one
    or several files), else None (an ordinary paste)."""
    words = _words(text.strip())
    if not words or len(words) > 20:
        return None
    found = []
    for word in words:
        raw = unquote(urlsplit(word).path) if word.startswith("file://") else word
        if os.path.splitext(raw)[1].lower() not in IMAGE_SUFFIXES:
            return None
        path = Path(os.path.expanduser(raw))
        path = path if path.is_absolute() else base / path
        size = _image_size(path) if path.is_file() else None
        if size is None:
            return None
        found.append(PastedImage(path.resolve(), *size))
    return found


def attached_image_lines(prompt: str, workspace: Path) -> list[str]:
    """The chips of the images a sent prompt attaches (agent.prompt.images finds the same
    files), for line mode to print under it: ``[image 1: shot.png 640x480]``; a file that is
    not a readable image gets no chip (the engine attaches a note instead)."""
    from agent.prompt.images import image_paths

    lines: list[str] = []
    for path in image_paths(prompt, workspace):
        size = _image_size(path)
        if size is not None:
            lines.append(PastedImage(path, *size).chip(len(lines) + 1))
    return lines


def image_result_line(display: dict[str, Any]) -> str:
    """A Read of an image, in one line: ``Read image 640x480 (image/png, 12.0 KB)``."""
    size = display.get("size")
    kb = f", {size / 1024:.1f} KB" if isinstance(size, int) else ""
    return (
        f"Read image {display.get('width', '?')}x{display.get('height', '?')} "
        f"({display.get('media_type', 'image')}{kb})"
    )


def attachments_dir(workspace: Path) -> Path:
    """Where images sent inline with prompts are kept (a directory the session may read)."""
    return project_data_dir(workspace) / "attachments"


def save_inline_image(data: str, mime_type: str, workspace: Path) -> str:
    """Save a base64 image sent with a prompt; the text that stands for it in the prompt (its
    path, which attaches it), or a note saying why it could not be kept."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "(An image was attached but its data was not valid base64.)"
    suffix = MIME_SUFFIXES.get(mime_type)
    if suffix is None:
        return f"(An image of type {mime_type} was attached; eddy reads PNG, JPEG, GIF, WebP.)"
    folder = attachments_dir(workspace)
    path = folder / (hashlib.sha256(raw).hexdigest()[:16] + suffix)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_bytes(raw)
    except OSError as exc:
        return f"(An image was attached but could not be saved: {exc.strerror or exc}.)"
    return f"(The user attached an image: {path} — Read it to see it.)"
