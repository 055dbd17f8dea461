"""Writes that a race cannot redirect: every directory is opened through its parent's fd.

The permission check and the path resolver look at a path; the write happens a moment later.
If a directory on the way is swapped for a symlink in between, a plain ``open(path)`` follows
it and the file lands wherever the link points. Here the parent directory of the target is
reached by ``openat(..., O_DIRECTORY | O_NOFOLLOW)`` one component at a time from the root the
path lies under (the workspace, an added directory, or ``/`` for an approved outside path), and
the temporary file is created, filled and renamed relative to that directory's fd. A component
that is no longer a directory (or has become a symlink) stops the write with a ToolError the
model can read; nothing is written.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from tools.base import ToolError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _root_for(path: Path, roots: tuple[Path, ...]) -> Path:
    """The deepest root that contains ``path`` (``/`` when none does)."""
    best = Path("/")
    for root in roots:
        if (root == path or root in path.parents) and len(root.parts) > len(best.parts):
            best = root
    return best


def _moved(label: str, where: Path) -> ToolError:
    return ToolError(
        f"Could not write {label}: {where} changed while the file was being written (it is no "
        "longer a plain directory: a symlink or a file took its place). Nothing was written; "
        "check the directory and try again."
    )


def open_parent(path: Path, roots: tuple[Path, ...], label: str, *, create: bool) -> int:
    """Open the directory that will hold ``path``, walking from its root without following
    symlinks; missing directories are created when ``create``.

    Args:
        path: the real path of the file to write.
        roots: the workspace roots (``ctx.roots()``).
        label: the path as the model knows it (for messages).
        create: create missing parent directories.

    Returns:
        A directory fd the caller closes.

    Raises:
        ToolError: a component is missing (and not ``create``), a symlink or not a directory.
    """
    root = _root_for(path.parent, roots)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    where = root
    try:
        for part in path.parent.relative_to(root).parts:
            where = where / part
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise ToolError(f"Could not write {label}: {where} does not exist.") from None
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile: opening it below checks what it is
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise _moved(label, where) from exc
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise _moved(label, where) from exc
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_in_dir(dir_fd: int, name: str, data: bytes, old: os.stat_result | None) -> os.stat_result:
    """Write ``data`` to ``name`` in ``dir_fd`` via a temporary file and an atomic rename.

    The mode (and owner, when allowed) of ``old`` is kept; a new file gets ``0o666 & ~umask``.
    Returns the new file's stat (taken through ``dir_fd``, not by path).
    """
    tmp = f".{name}.{secrets.token_hex(4)}.eddy-tmp"
    fd = os.open(tmp, _NEW_FILE_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            os.fchmod(f.fileno(), stat.S_IMODE(old.st_mode) if old else 0o666 & ~_umask())
            if old is not None and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(f.fileno(), old.st_uid, old.st_gid)
                except OSError:
                    pass
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def safe_write(
    path: Path, data: bytes, old: os.stat_result | None, roots: tuple[Path, ...], label: str
) -> os.stat_result:
    """Write ``data`` to the real path ``path`` so that no symlink swapped in on the way can
    redirect it (see the module docstring). Parent directories are created for a new file.
    Returns the written file's stat.

    Raises:
        ToolError: a directory on the way changed; OSError: the write itself failed.
    """
    dir_fd = open_parent(path, roots, label, create=old is None)
    try:
        return write_in_dir(dir_fd, path.name, data, old)
    finally:
        os.close(dir_fd)
