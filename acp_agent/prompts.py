"""ACP prompt content -> the text of an eddy prompt.

eddy's prompts are text (``ops.SubmitPrompt``): text blocks are joined; an embedded resource
(the editor's selection or an open buffer) is inlined with its URI; a resource link names the
file as an ``@`` mention (eddy attaches mentioned workspace files itself); an image is saved
under the project's data directory, which the session may read, and the prompt tells the
model to Read it (the Read tool returns images to the model as image blocks).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import schema

from frontend.images import save_inline_image


def uri_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI (or of a plain absolute path), else None."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if not parsed.scheme and uri.startswith("/"):
        return Path(uri)
    return None


def _mention(uri: str, workspace: Path) -> str:
    path = uri_path(uri)
    if path is None:
        return uri
    try:
        return "@" + str(path.resolve().relative_to(workspace))
    except ValueError:
        return str(path)


def prompt_text(blocks: Sequence[Any], workspace: Path) -> str:
    """The prompt eddy sends for ACP content ``blocks``."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, schema.TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, schema.ResourceContentBlock):
            parts.append(_mention(block.uri, workspace))
        elif isinstance(block, schema.EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, schema.TextResourceContents):
                parts.append(f'\n<context uri="{resource.uri}">\n{resource.text}\n</context>\n')
            else:
                parts.append(_mention(resource.uri, workspace))
        elif isinstance(block, schema.ImageContentBlock):
            parts.append(save_inline_image(block.data, block.mime_type, workspace))
        elif isinstance(block, schema.AudioContentBlock):
            parts.append("(An audio clip was attached; eddy cannot listen to audio.)")
    return " ".join(p for p in parts if p).strip()
