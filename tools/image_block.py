"""Images as API content blocks: checked by decoding them, and downscaled when too big.

An image the API cannot decode, or one over its limits, would make every later request of the
session fail (the block stays in the history), so each image is decoded with Pillow before it
is sent: a corrupt file is an error, and one larger than ``IMAGE_MAX_BYTES`` or with an edge
over ``MAX_EDGE`` pixels is scaled down (and re-encoded) until it fits.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any

from tools.base import ToolError
from tools.textfile import human_size

IMAGE_MAX_BYTES = 5 * 1024 * 1024 * 3 // 4
"""The largest image sent: its base64 form is 5 MB, the API's limit per image."""
IMAGE_FILE_MAX_BYTES = 64 * 1024 * 1024
"""Larger image files are refused without decoding them."""
MAX_EDGE = 2000
"""Longest edge sent, in pixels (the API refuses more than 8000 and, with many images in a
request, more than 2000; it scales anything above about 1568 down itself)."""

_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
MEDIA_TYPES = frozenset(_FORMATS.values())


@dataclass(frozen=True)
class EncodedImage:
    """An image ready to send.

    Attributes:
        block: the API ``image`` block (base64 source).
        media_type: the type sent (a downscaled image may change type: PNG or JPEG).
        width, height: the size sent, in pixels.
        original: the file's own size in pixels.
        nbytes: the bytes sent (before base64).
    """

    block: dict[str, Any]
    media_type: str
    width: int
    height: int
    original: tuple[int, int]
    nbytes: int

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != self.original

    def note(self) -> str:
        """A line for the model when the image was scaled down, else ""."""
        if not self.resized:
            return ""
        w, h = self.original
        return f"[image scaled down from {w}x{h} to {self.width}x{self.height} to fit the limits]"


def _block(data: bytes, media: str) -> dict[str, Any]:
    source = {"type": "base64", "media_type": media, "data": base64.b64encode(data).decode()}
    return {"type": "image", "source": source}


def encode_image(data: bytes, label: str) -> EncodedImage:
    """Check ``data`` is a PNG/JPEG/GIF/WebP image and make it fit; see the module docstring.

    Raises:
        ToolError: not a decodable image of those types, or it cannot be made to fit.
    """
    from PIL import Image

    if len(data) > IMAGE_FILE_MAX_BYTES:
        raise ToolError(
            f"{label} is an image of {human_size(len(data))}, more than the "
            f"{human_size(IMAGE_FILE_MAX_BYTES)} eddy decodes; make a smaller copy with Bash "
            "(e.g. ImageMagick) and use that."
        )
    try:
        image = Image.open(io.BytesIO(data))
        media = _FORMATS.get(str(image.format))
        image.load()  # a truncated or corrupt file fails here, not at the API
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise ToolError(f"{label} is not a valid image ({exc}); it was not sent.") from None
    if media is None:
        raise ToolError(f"{label} is a {image.format} image; only PNG, JPEG, GIF, WebP are sent.")
    size = image.size
    if len(data) <= IMAGE_MAX_BYTES and max(size) <= MAX_EDGE:
        return EncodedImage(_block(data, media), media, *size, size, len(data))
    return _downscale(image, media, label)


def _downscale(image: Any, media: str, label: str) -> EncodedImage:
    """Scale ``image`` down (first frame of an animation) until it fits the limits."""
    from PIL import Image

    original = image.size
    frame = image.convert("RGBA" if _has_alpha(image) else "RGB")
    scale = min(1.0, MAX_EDGE / max(original))
    for _ in range(8):
        size = (max(1, round(original[0] * scale)), max(1, round(original[1] * scale)))
        resized = frame.resize(size, Image.Resampling.LANCZOS)
        out = io.BytesIO()
        # keep transparency (PNG); photos and the like compress far better as JPEG
        if resized.mode == "RGBA":
            resized.save(out, "PNG", optimize=True)
            kind = "image/png"
        else:
            resized.save(out, "JPEG", quality=85)
            kind = "image/jpeg"
        data = out.getvalue()
        if len(data) <= IMAGE_MAX_BYTES:
            return EncodedImage(_block(data, kind), kind, *size, original, len(data))
        scale *= 0.7
    raise ToolError(f"{label} could not be scaled down below {human_size(IMAGE_MAX_BYTES)}.")


def _has_alpha(image: Any) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
