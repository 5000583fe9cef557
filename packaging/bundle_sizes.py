"""How big the app is, per part: Qt, FFmpeg (twice: Qt's player and PyAV's renderer), eSpeak NG,
Python, and the rest; and the size of each archive a creator downloads."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["PARTS", "part_of", "part_sizes", "report"]

_FFMPEG = r"(lib)?(avcodec|avformat|avutil|avdevice|avfilter|swresample|swscale)\b"
# The libraries PyAV's wheel carries beside its FFmpeg (codecs and what they link).
_PYAV_CODECS = (
    r"(lib)?(x264|x265|vpx|dav1d|SvtAv1Enc|opencore-amr\w*|mp3lame|opus|vpl|gnutls|nettle|hogweed|gmp"
    r"|unistring|drm|asound|Xau|xcb\w*|webp\w*|sharpyuv|lzma|zstd|aom|srt|speex|ogg|vorbis\w*)-[0-9a-f]{8}\b"
)

PARTS: list[tuple[str, str]] = [
    ("eSpeak NG (speech library and voices)", r"(^|/)espeakng_loader/"),
    ("FFmpeg in Qt (the player's)", rf"(^|/)PySide6/(.*/)?{_FFMPEG}|Qt6FFmpegStub"),
    (
        "FFmpeg in PyAV (rendering)",
        rf"(^|/)(av\.libs|av/\.dylibs)/|(^|/){_FFMPEG}-[0-9a-f]{{8}}|(^|/){_PYAV_CODECS}",
    ),
    ("PyAV bindings", r"(^|/)av/"),
    (
        "Qt (PySide6 and its Qt libraries)",
        r"(^|/)(PySide6|shiboken6)/|(^|/)(lib)?(Qt6|icu|pyside6|shiboken6)\w*",
    ),
    (
        "Python (interpreter, standard library, all Python code)",
        r"(^|/)(lib)?python3|(^|/)base_library\.zip$|(^|/)lib-dynload/|(^|/)Python\.framework/|(^|/)Python$"
        r"|(^|/)castdeck(-cli)?(\.exe)?$|^Contents/MacOS/|(^|/)_internal/[^/]+\.pyd$",
    ),
    ("NumPy", r"(^|/)numpy(\.libs)?/|(^|/)(lib)?scipy_openblas|(^|/)libgfortran|(^|/)libquadmath"),
    ("Pillow", r"(^|/)(PIL|pillow\.libs)/"),
    ("cryptography (for the Linux keyring)", r"(^|/)cryptography\w*/|_cffi_backend"),
    ("system libraries (X11/xcb, PulseAudio, GLib, ...)", r"(^|/)_internal/lib[^/]+\.so(\.[0-9]+)*$"),
    ("other Python packages", r""),
]
"""(part, pattern on the file's path inside the app folder, with / separators); first match wins."""
_COMPILED = [(name, re.compile(pattern)) for name, pattern in PARTS]


def part_of(relative: str) -> str:
    for name, pattern in _COMPILED:
        if pattern.search(relative):
            return name
    return PARTS[-1][0]


def part_sizes(folder: Path) -> dict[str, int]:
    """Bytes per part. Links count nothing (what they point at is counted once), and so does a
    second name of the same file."""
    sizes = {name: 0 for name, _ in PARTS}
    seen: set[tuple[int, int]] = set()
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        stat = path.lstat()
        if (stat.st_dev, stat.st_ino) in seen:
            continue
        seen.add((stat.st_dev, stat.st_ino))
        sizes[part_of(path.relative_to(folder).as_posix())] += stat.st_size
    return sizes


def _mb(size: int) -> str:
    return f"{size / 1_000_000:8.1f} MB"


def report(folder: Path, archives: list[Path]) -> str:
    sizes = part_sizes(folder)
    total = sum(sizes.values())
    lines = [f"Size of {folder.name} (unpacked, {total / 1_000_000:.1f} MB):"]
    for name, size in sizes.items():
        if size:
            lines.append(f"  {name:58}{_mb(size)} {100 * size / total:5.1f} %")
    lines.append(f"  {'total':58}{_mb(total)}")
    for archive in archives:
        size = archive.stat().st_size
        lines.append(f"Download {archive.name}: {size / 1_000_000:.1f} MB ({size / 1_048_576:.1f} MiB)")
    return "\n".join(lines) + "\n"
