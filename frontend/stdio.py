"""stdin and stdout of a front end that speaks a protocol on them (``eddy --acp``, ``eddy
--input-format stream-json``).

stdout carries protocol lines only: the protocol gets a private copy of the stdout file
descriptor, and fd 1 itself is pointed at stderr before anything else runs, so a stray print
(eddy's, a library's, a child process that inherits fd 1) lands on stderr instead of corrupting
the stream. stdin is read by the event loop when it is a pipe, by a thread otherwise (a regular
file, which the loop cannot watch).
"""

from __future__ import annotations

import asyncio
import os
import sys

LINE_LIMIT = 50 * 1024 * 1024
"""The longest line read from stdin (images arrive inline, base64-encoded)."""


def protect_stdout() -> int:
    """Keep stdout for the protocol: a new fd for it, and fd 1 pointed at stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return protocol_fd


async def stdin_reader() -> asyncio.StreamReader:
    """A reader of the process's stdin on the running loop."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except ValueError:  # not a pipe
        _feed_from_thread(reader)
    return reader


def _feed_from_thread(reader: asyncio.StreamReader) -> None:
    """Read stdin in a thread (a regular file, which the loop cannot watch)."""
    import threading

    loop = asyncio.get_running_loop()

    def read() -> None:
        try:
            while data := sys.stdin.buffer.readline():
                loop.call_soon_threadsafe(reader.feed_data, data)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=read, daemon=True, name="eddy-stdin").start()
