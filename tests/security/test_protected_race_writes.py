"""Writes cannot be redirected by a race: a thread swaps a workspace directory with a symlink
to a directory outside (atomically, ``renameat2(RENAME_EXCHANGE)``) while Write runs; nothing
may ever land outside, and every lost race is a clear is_error result."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from pathlib import Path

import pytest

from tools.base import ToolContext, ToolError
from tools.safewrite import open_parent, safe_write
from tools.write import WriteTool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2")

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchanger() -> ctypes._CFuncPtr:  # type: ignore[name-defined]
    libc = ctypes.CDLL(None, use_errno=True)
    fn = libc.renameat2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return fn


class Swapper(threading.Thread):
    """Exchanges ``a`` and ``b`` in a loop until stopped; counts the swaps."""

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__(daemon=True)
        self.a, self.b = bytes(a), bytes(b)
        self.stop = threading.Event()
        self.swaps = 0
        self.fn = _exchanger()

    def run(self) -> None:
        while not self.stop.is_set():
            if self.fn(_AT_FDCWD, self.a, _AT_FDCWD, self.b, _RENAME_EXCHANGE) == 0:
                self.swaps += 1


def _landed(outside: Path) -> list[str]:
    return sorted(p.name for p in outside.rglob("*"))


async def test_a_directory_swapped_for_a_symlink_never_lets_a_write_land_outside(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    outside.mkdir()
    (ws / "swap").symlink_to(outside)
    ctx = ToolContext(ws)
    tool = WriteTool()
    swapper = Swapper(ws / "d", ws / "swap")
    swapper.start()
    written = refused = 0
    try:
        for i in range(400):
            try:
                result = await tool.run({"file_path": f"d/f{i}.txt", "content": "x"}, ctx)
            except ToolError as exc:  # the runner makes it an is_error result
                text = str(exc)
                assert "outside the workspace" in text or "changed while" in text, text
                refused += 1
            else:
                assert not result.is_error
                written += 1
            if swapper.swaps > 50 and refused and written > 5:
                break
    finally:
        swapper.stop.set()
        swapper.join()
    assert swapper.swaps > 0
    assert _landed(outside) == []
    inside = list((ws / "d").glob("f*.txt")) + list((ws / "swap").glob("f*.txt"))
    assert len(inside) == written  # (``d`` and ``swap`` may be either way round now)


def test_open_parent_refuses_a_symlinked_component(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    with pytest.raises(ToolError, match="changed while"):
        open_parent(ws / "link" / "x.txt", (ws,), "link/x.txt", create=True)
    with pytest.raises(ToolError, match="changed while"):
        safe_write(ws / "link" / "sub" / "x.txt", b"x", None, (ws,), "link/sub/x.txt")
    assert _landed(outside) == []


def test_safe_write_creates_parents_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "c.txt"
    safe_write(path, b"one", None, (tmp_path,), "a/b/c.txt")
    assert path.read_bytes() == b"one"
    os.chmod(path, 0o640)
    safe_write(path, b"two", path.stat(), (tmp_path,), "a/b/c.txt")
    assert path.read_bytes() == b"two" and path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in path.parent.iterdir()] == ["c.txt"]  # no temp file left
