"""Script files on disk: read them as text, write them atomically, notice when they changed.

A write is atomic (:mod:`castdeck.store.atomic`): a crash leaves either the old file or the new
one, never half of each. A file's :class:`Fingerprint` (size, modification time and a hash
of the content) says whether it changed on disk since it was opened or saved.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .atomic import write_atomic

__all__ = [
    "MAX_SCRIPT_FILE_BYTES",
    "Fingerprint",
    "ScriptFileError",
    "fingerprint",
    "read_script_file",
    "write_script_file",
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


def write_script_file(path: Path, text: str) -> Fingerprint:
    """Write ``text`` (UTF-8) to ``path`` atomically (:mod:`castdeck.store.atomic`); returns the new
    fingerprint. Raises :class:`ScriptFileError` with the reason."""
    data = text.encode("utf-8")
    try:
        write_atomic(path, data, make_folder=True)
        stat = path.stat()
    except OSError as error:
        raise ScriptFileError(f"Cannot write {path}: {error.strerror or error}") from error
    return Fingerprint(stat.st_size, stat.st_mtime_ns, _digest(data))
