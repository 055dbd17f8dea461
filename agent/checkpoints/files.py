"""The files of a checkpoint store: their names, their JSON form, how they are read and written.

Storage, under ``store_dir`` (one per session, next to its transcript): ``blobs/`` (contents,
by SHA-256, each stored once), ``checkpoints.json`` (the entries, rewritten atomically after
each change) and ``snapshot.json`` (the stat cache, so a resumed session need not read every
file again). :class:`~agent.checkpoints.engine.CheckpointStore` decides when; this module
does the IO.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.records import Entry
from agent.checkpoints.scan import Snapshot

LOG_NAME = "checkpoints.json"
INDEX_NAME = "snapshot.json"
VERSION = 1


def log_json(workspace: str, seq: int, entries: list[Entry]) -> dict[str, Any]:
    """What ``checkpoints.json`` holds: the entries, the workspace and the id counter."""
    return {
        "version": VERSION,
        "workspace": workspace,
        "seq": seq,
        "entries": [e.to_json() for e in entries],
    }


def write_json(store_dir: Path, name: str, data: Any) -> None:
    """Replace ``store_dir/name`` with ``data`` atomically (creating the directory).

    Raises:
        OSError: the file could not be written (disk full, permissions).
    """
    store_dir.mkdir(parents=True, exist_ok=True)
    path = store_dir / name
    tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)


def load_log(store_dir: Path) -> tuple[list[Entry], int, str | None] | None:
    """The entries and id counter kept in ``store_dir``; None when there is no log yet.

    An unreadable log is moved aside (``checkpoints.json.unreadable-<time>``): then the
    result is no entries, a counter of 0, and why (the third item, else None).
    """
    path = store_dir / LOG_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError(f"unknown version {data.get('version')!r}")
        entries = [Entry.from_json(e) for e in data.get("entries", [])]
        seq = int(data.get("seq", 0))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        aside = path.with_name(f"{LOG_NAME}.unreadable-{int(time.time())}")
        with contextlib.suppress(OSError):
            os.replace(path, aside)
        return [], 0, f"{path} could not be read ({exc}); it was moved to {aside}"
    return entries, seq, None


def load_index(store_dir: Path, has_blob: Callable[[str], bool]) -> Snapshot | None:
    """The saved stat cache (``snapshot.json``), or None when it is missing or unreadable."""
    try:
        data = json.loads((store_dir / INDEX_NAME).read_text(encoding="utf-8"))
        return Snapshot.from_json(data, has_blob)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def disk_usage(store_dir: Path, blobs: BlobStore) -> dict[str, int]:
    """Bytes on disk: ``blobs`` (and their ``blob_count``), ``log`` and ``index``."""
    count, size = blobs.disk_usage()
    out = {"blob_count": count, "blobs": size}
    for key, name in (("log", LOG_NAME), ("index", INDEX_NAME)):
        try:
            out[key] = (store_dir / name).stat().st_size
        except OSError:
            out[key] = 0
    return out
