"""The editor's files (ACP ``fs/read_text_file`` and ``fs/write_text_file``) for eddy's file
tools, when the client offers both (see tools/client_files.py for what goes through them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import schema


class EditorFiles:
    """``tools.client_files.ClientFiles`` over an ACP connection, for one session."""

    def __init__(self, conn: Any, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id

    async def read_text(self, path: Path) -> str | None:
        """The editor's text of ``path`` (its buffer if open, else the file)."""
        response = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
        return response.content

    async def write_text(self, path: Path, text: str) -> None:
        """Write through the editor; its refusal becomes an OSError."""
        try:
            await self.conn.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )
        except Exception as exc:  # a JSON-RPC error from the editor, or the connection gone
            raise OSError(str(exc)) from exc


def offers_files(capabilities: schema.ClientCapabilities | None) -> bool:
    """Whether the client can both read and write text files for eddy."""
    fs = capabilities.fs if capabilities is not None else None
    return bool(fs is not None and fs.read_text_file and fs.write_text_file)
