"""Light or dark: what every colour choice of the app asks of the palette."""

from __future__ import annotations

from PySide6.QtGui import QPalette

__all__ = ["is_dark"]


def is_dark(palette: QPalette) -> bool:
    """The palette's base (the background of text) is dark: colours take their lighter shade."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128
