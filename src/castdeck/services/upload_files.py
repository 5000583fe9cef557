"""The local side of the upload queue: dropped paths walked to files and checked, and a queued
file re-checked before its bytes are sent. Everything here touches the disk: call it on a worker
thread (``asyncio.to_thread`` or ``session.on_disk``), never on the UI thread."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from castdeck.api import UploadError
from castdeck.api.local_files import LocalFile, check_source_file
from castdeck.api.models.files import VOICEOVER_VISUAL_MIME_TYPES
from castdeck.store.uploads import UploadItem

__all__ = ["MAX_DROP_FILES", "check_file", "file_problem", "scan_drop"]

MAX_DROP_FILES = 1000
"""Files taken from one drop; beyond that one refused row says the rest were left out."""


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def _expand(paths: list[Path], limit: int) -> tuple[list[Path], Path | None]:
    """Dropped paths to files, in order: folders walked (sorted, hidden entries and symlinked folders
    skipped). Returns at most ``limit`` files and the first path left out (None when none was)."""
    found: list[Path] = []

    def walk(folder: Path) -> Path | None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return None  # unreadable folder: nothing to add from it
        for entry in entries:
            if _is_hidden(entry.name):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                over = walk(Path(entry.path))
                if over is not None:
                    return over
                continue
            if entry.is_symlink() and Path(entry.path).is_dir():
                continue  # symlinked folders are not followed
            if len(found) >= limit:
                return Path(entry.path)
            found.append(Path(entry.path))
        return None

    for path in paths:
        if path.is_dir() and not path.is_symlink():
            over = walk(path)
        elif len(found) >= limit:
            over = path
        else:
            found.append(path)
            over = None
        if over is not None:
            return found, over
    return found, None


def check_file(path: Path, prepare_visuals: bool) -> LocalFile | UploadError:
    """The file as it can be uploaded, or why it cannot be."""
    try:
        return check_source_file(
            path, prepare_visuals=prepare_visuals, visual_types=VOICEOVER_VISUAL_MIME_TYPES
        )
    except UploadError as error:
        return error


def scan_drop(paths: list[Path], prepare_visuals: bool) -> list[tuple[Path, LocalFile | UploadError]]:
    """A drop's paths to checked files, in order; past :data:`MAX_DROP_FILES`, one refusal (the
    folder) says the rest were left out."""
    files, over = _expand([p.absolute() for p in paths], MAX_DROP_FILES)
    checked: list[tuple[Path, LocalFile | UploadError]] = [(p, check_file(p, prepare_visuals)) for p in files]
    if over is not None:
        checked.append(
            (
                over.parent,
                UploadError(
                    f"this drop holds more than {MAX_DROP_FILES:,} files; only the first {MAX_DROP_FILES:,} "
                    "were added. Add the rest in another drop.",
                    path=str(over.parent),
                ),
            )
        )
    return checked


def file_problem(item: UploadItem) -> str | None:
    """Why the file can no longer be sent as queued (None when it is unchanged)."""
    try:
        info = os.stat(item.path)
    except FileNotFoundError:
        return "The file was removed after it was added to the queue. Add it again to upload it."
    except OSError as exc:
        return f"The file cannot be read ({exc.strerror or exc})."
    if not stat.S_ISREG(info.st_mode):
        return "The file is no longer a regular file that can be read."
    if info.st_size != item.size or info.st_mtime_ns != item.mtime_ns:
        return (
            "The file changed after it was added to the queue; it was not uploaded. "
            "Choose Retry to upload its current version."
        )
    try:
        with open(item.path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        return f"The file cannot be read ({exc.strerror or exc})."
    return None
