"""Speaker colours that read well on light and dark palettes, the same for a speaker every time."""

from __future__ import annotations

import zlib

from PySide6.QtGui import QColor, QPalette

from castdeck.transcript import Speaker

from ..palette import is_dark

__all__ = ["speaker_colors"]

# (light palette, dark palette) pairs: distinct hues with enough contrast on white and on near-black
_HUES = [
    ("#1565c0", "#64b5f6"),  # blue
    ("#ad1457", "#f48fb1"),  # pink
    ("#2e7d32", "#81c784"),  # green
    ("#6a1b9a", "#ce93d8"),  # purple
    ("#e65100", "#ffb74d"),  # orange
    ("#00838f", "#4dd0e1"),  # teal
    ("#5d4037", "#bcaaa4"),  # brown
    ("#c62828", "#ef9a9a"),  # red
]


def speaker_colors(speakers: list[Speaker], palette: QPalette) -> list[QColor]:
    """One colour per speaker, chosen from the speaker's host id (or name), so a host keeps the
    same colour across episodes; two speakers of one episode never share one."""
    dark = is_dark(palette)
    taken: set[int] = set()
    out: list[QColor] = []
    for speaker in speakers:
        index = zlib.crc32((speaker.host_id or speaker.name).encode("utf-8")) % len(_HUES)
        for step in range(len(_HUES)):
            candidate = (index + step) % len(_HUES)
            if candidate not in taken or len(taken) >= len(_HUES):
                index = candidate
                break
        taken.add(index)
        out.append(QColor(_HUES[index][1 if dark else 0]))
    return out
