"""The one way a whole file is written: atomically, durably.

:func:`write_atomic` writes the bytes to a new temporary file in the target's folder (a name no
other writer uses), flushes and fsyncs it, renames it over the target and fsyncs the folder where
the platform has folder handles (POSIX). A crash or a full disk leaves the old file whole or the
new one whole, never a mix, and no temporary file behind. A file that existed keeps its
permissions; a new one gets the umask's. ``OSError`` is raised as it came (the caller words it).

Used by the script files, the transcript and analytics exports (the app's and the command line's)
and the media cache's records; files that arrive as a stream (downloads, pictures) are written to a
partial file and moved into place by their own code.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: Path, data: bytes, *, make_folder: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically. A missing folder is an error (a file the user
    named goes where they said), unless ``make_folder`` (the app's own files)."""
    folder = path.parent
    if make_folder:
        folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o666  # a new file: the umask applies
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (POSIX); Windows has no folder handles to sync."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
