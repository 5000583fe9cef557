"""The local checks a file passes before any upload request: size, type by extension and by
signature, no video (spec 2.4's file rules; an episode cover's own). No network: a file refused
here is refused with its reason before the service hears of it.
"""

from __future__ import annotations

import mimetypes
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import UploadError
from .models.files import (
    JPEG,
    PNG,
    RESEARCH_MIME_TYPES,
    SNIFF_BYTES,
    VISUAL_MIME_TYPES,
    WEBP,
    canonical_mime,
    file_extension,
    is_acceptable_file_name,
    is_video_mime,
    mime_for_filename,
    signature_matches,
    sniff_mime,
)
from .models.limits import MAX_UPLOAD_BYTES, MIN_UPLOAD_BYTES

__all__ = ["IMAGE_TYPES", "MAX_IMAGE_BYTES", "LocalFile", "check_image_file", "check_source_file"]

MAX_IMAGE_BYTES = 10 * 1024 * 1024
"""Episode cover images: at most 10 MB (the sandbox's fixed choice, 10 MiB)."""

IMAGE_TYPES = {".jpg": JPEG, ".jpeg": JPEG, ".png": PNG, ".webp": WEBP}


@dataclass(frozen=True)
class LocalFile:
    """A file that passed the local checks: what the reservation declares and how to notice changes."""

    path: Path
    name: str
    mime_type: str
    size: int
    mtime_ns: int


# --- local checks ---------------------------------------------------------------------------------------------


def _stat_regular(path: Path) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UploadError("the file does not exist", path=str(path)) from None
    except PermissionError:
        raise UploadError("the file cannot be read (permission denied)", path=str(path)) from None
    except OSError as exc:
        raise UploadError(f"the file cannot be read ({exc.strerror or exc})", path=str(path)) from None
    if stat.S_ISDIR(info.st_mode):
        raise UploadError("this is a folder, not a file", path=str(path))
    if not stat.S_ISREG(info.st_mode):
        raise UploadError("this is not a regular file", path=str(path))
    return info


def _read_head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(SNIFF_BYTES)
    except PermissionError:
        raise UploadError("the file cannot be read (permission denied)", path=str(path)) from None
    except OSError as exc:
        raise UploadError(f"the file cannot be read ({exc.strerror or exc})", path=str(path)) from None


def _video_refusal(path: Path) -> UploadError:
    return UploadError(
        "video files are not accepted; extract the audio track (for example as MP3) and upload that instead",
        path=str(path),
    )


def check_source_file(
    path: Path,
    *,
    prepare_visuals: bool = False,
    visual_types: Mapping[str, tuple[str, ...]] | None = None,
) -> LocalFile:
    """Check a file for a source upload without sending anything; raises :class:`UploadError`.

    With ``prepare_visuals`` the file must be one of ``visual_types`` (default: the spec's full
    visual table; pass ``VOICEOVER_VISUAL_MIME_TYPES`` for the narrower list that is safe everywhere).
    Blocking (it reads the first bytes): call it through ``asyncio.to_thread`` on a loop.
    """
    info = _stat_regular(path)
    name = path.name
    guessed = mimetypes.guess_type(name)[0] or ""
    if is_video_mime(guessed):
        raise _video_refusal(path)
    if info.st_size < MIN_UPLOAD_BYTES:
        raise UploadError("the file is empty", path=str(path))
    if info.st_size > MAX_UPLOAD_BYTES:
        raise UploadError(
            f"the file is {info.st_size:,} bytes; the service accepts at most {MAX_UPLOAD_BYTES:,} "
            "bytes (100 MiB)",
            path=str(path),
        )
    if not is_acceptable_file_name(name):
        raise UploadError(
            "the file name is not acceptable (at most 255 characters, no separators)", path=str(path)
        )
    if prepare_visuals:
        table = visual_types if visual_types is not None else VISUAL_MIME_TYPES
    else:
        table = RESEARCH_MIME_TYPES
    by_extension = mime_for_filename(name)
    mime = canonical_mime(by_extension, table) if by_extension else None
    if mime is None:
        ext = file_extension(name) or "(no extension)"
        purpose = "visual sources (prepare_visuals)" if prepare_visuals else "uploads"
        known = ", ".join(sorted({e for exts in table.values() for e in exts}))
        raise UploadError(f"{ext} files are not supported for {purpose}; supported: {known}", path=str(path))
    head = _read_head(path)
    sniffed = sniff_mime(head, name)
    if sniffed is not None and is_video_mime(sniffed):
        raise _video_refusal(path)
    if not signature_matches(head, mime, name):
        looks = f"they look like {sniffed}" if sniffed else "their type is not recognised"
        raise UploadError(f"the contents do not match its type, {mime} ({looks})", path=str(path))
    return LocalFile(path, name, mime, info.st_size, info.st_mtime_ns)


def check_image_file(path: Path) -> LocalFile:
    """Check an episode cover image (JPEG, PNG or WebP, at most 10 MB); raises :class:`UploadError`."""
    info = _stat_regular(path)
    mime = IMAGE_TYPES.get(file_extension(path.name))
    if mime is None:
        raise UploadError("a cover image must be a .jpg, .jpeg, .png or .webp file", path=str(path))
    if info.st_size == 0:
        raise UploadError("the image is empty", path=str(path))
    if info.st_size > MAX_IMAGE_BYTES:
        raise UploadError(
            f"the image is {info.st_size:,} bytes; covers can be at most {MAX_IMAGE_BYTES:,} bytes (10 MB)",
            path=str(path),
        )
    head = _read_head(path)
    if not signature_matches(head, mime):
        sniffed = sniff_mime(head, path.name)
        looks = f"they look like {sniffed}" if sniffed else "their type is not recognised"
        raise UploadError(f"the contents do not match the image type {mime} ({looks})", path=str(path))
    return LocalFile(path, path.name, mime, info.st_size, info.st_mtime_ns)
