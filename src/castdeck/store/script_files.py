"""Script files on disk: read them as text, write them atomically, notice when they changed.

A write goes to a temporary file in the same folder, is flushed and fsynced, then renamed over the
target (and the folder fsynced where the platform allows), so a crash leaves either the old file or
the new one, never half of each. A file's :class:`Fingerprint` (size, modification time and a hash
of the content) says whether it changed on disk since it was opened or saved.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAX_SCRIPT_FILE_BYTES",
    "Fingerprint",
    "ScriptFileError",
    "fingerprint",
    "read_script_file",
    "write_atomic",
]

MAX_SCRIPT_FILE_BYTES = 4 * 1024 * 1024
"""Larger files are not scripts (a script holds at most 75,000 characters; this leaves room)."""


class ScriptFileError(OSError):
    """A script file cannot be read or written; the message says why in words."""


@dataclass(frozen=True)
class Fingerprint:
    size: int
    mtime_ns: int
    sha256: str

    def to_dict(self) -> dict[str, object]:
        return {"size": self.size, "mtime_ns": self.mtime_ns, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: dict[str, object] | None) -> Fingerprint | None:
        if not data:
            return None
        try:
            return cls(int(str(data["size"])), int(str(data["mtime_ns"])), str(data["sha256"]))
        except (KeyError, TypeError, ValueError):
            return None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fingerprint(path: Path) -> Fingerprint | None:
    """The file as it is now, or None when it is gone."""
    try:
        stat = path.stat()
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ScriptFileError(f"Cannot read {path}: {error.strerror or error}") from error
    return Fingerprint(stat.st_size, stat.st_mtime_ns, _digest(data))


def read_script_file(path: Path) -> tuple[str, Fingerprint]:
    """The text of a script file (UTF-8, with or without a byte-order mark) and its fingerprint."""
    try:
        stat = path.stat()
        if stat.st_size > MAX_SCRIPT_FILE_BYTES:
            raise ScriptFileError(
                f"{path.name} is {stat.st_size:,} bytes; a script file may have at most "
                f"{MAX_SCRIPT_FILE_BYTES:,}."
            )
        data = path.read_bytes()
    except ScriptFileError:
        raise
    except IsADirectoryError as error:
        raise ScriptFileError(f"{path} is a folder, not a script file.") from error
    except OSError as error:
        raise ScriptFileError(f"Cannot read {path}: {error.strerror or error}") from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScriptFileError(
            f"{path.name} is not UTF-8 text (byte {error.start + 1} cannot be read); save it as UTF-8."
        ) from error
    if "\x00" in text:
        raise ScriptFileError(f"{path.name} holds binary data, not script text.")
    return text, Fingerprint(stat.st_size, stat.st_mtime_ns, _digest(data))


def write_atomic(path: Path, text: str) -> Fingerprint:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the new fingerprint."""
    data = text.encode("utf-8")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
        mode = (path.stat().st_mode & 0o777) if path.exists() else 0o666  # new files: the umask applies
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
        stat = path.stat()
    except OSError as error:
        raise ScriptFileError(f"Cannot write {path}: {error.strerror or error}") from error
    return Fingerprint(stat.st_size, stat.st_mtime_ns, _digest(data))


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
