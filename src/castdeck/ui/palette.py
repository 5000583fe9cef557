"""Light or dark: what every colour choice of the app asks of the palette, and the app's own
colours (a problem's red, a success's green…) in the shade each scheme can read.

A colour of a tone is never written as a literal where text is drawn: ``tone("problem")`` gives
the shade for the palette in use (the light scheme's #c62828 reads at about 2 to 1 on a dark
window). :func:`retone` turns the shades in a style sheet or a label's markup to another scheme's,
so what was set before the system turned dark follows it (``widgets.follow_palette``).
"""

from __future__ import annotations

import re

from PySide6.QtGui import QGuiApplication, QPalette

__all__ = ["TONES", "is_dark", "retone", "tone"]

TONES: dict[str, tuple[str, str]] = {
    "problem": ("#c62828", "#ef9a9a"),
    "success": ("#2a7230", "#81c784"),
    "warning": ("#9a5800", "#ffb74d"),
    "info": ("#1565c0", "#64b5f6"),
    "quiet": ("#6d4c41", "#bcaaa4"),
}
"""Each tone's shade on a light base, and on a dark one: each reads at 4.5 to 1 or more on the
backgrounds of its scheme (the light window's #efefef, the dark one's #2b2b2b)."""

_SHADE = re.compile("|".join(shade for pair in TONES.values() for shade in pair), re.IGNORECASE)


def is_dark(palette: QPalette) -> bool:
    """The palette's base (the background of text) is dark: colours take their lighter shade."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def tone(name: str, palette: QPalette | None = None) -> str:
    """The shade of the tone ``name`` for ``palette`` (by default the application's)."""
    light, dark = TONES[name]
    return dark if is_dark(palette if palette is not None else QGuiApplication.palette()) else light


def retone(text: str, dark: bool) -> str:
    """``text`` (a style sheet, a label's markup) with every tone's shade in the scheme's own."""
    wanted = {light: (dark_ if dark else light) for light, dark_ in TONES.values()}
    wanted |= {dark_: (dark_ if dark else light) for light, dark_ in TONES.values()}
    return _SHADE.sub(lambda m: wanted[m.group(0).lower()], text)
