"""The app's own colours come in a shade for each scheme, and text set in one scheme can be turned
to the other's (what a window does when the system's scheme changes while it is open)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from castdeck.ui.palette import TONES, retone, tone


def contrast(a: str, b: str) -> float:
    def luminance(name: str) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

        color = QColor(name)
        r, g, b = (channel(c) for c in (color.redF(), color.greenF(), color.blueF()))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_tone_reads_on_the_background_of_its_scheme() -> None:
    for name, (light, dark) in TONES.items():
        assert contrast(light, "#efefef") >= 4.5, (name, light)  # Fusion's light window
        assert contrast(dark, "#2b2b2b") >= 4.5, (name, dark)  # a dark window
        assert contrast(dark, "#1e1e1e") >= 4.5, (name, dark)  # a dark base


def test_a_tone_takes_the_shade_of_the_palette() -> None:
    light, dark = QPalette(), QPalette()
    light.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    assert tone("problem", light) == "#c62828"
    assert tone("problem", dark) == "#ef9a9a"


def test_shades_set_in_one_scheme_turn_to_the_others() -> None:
    sheet = "QFrame#banner { border: 1px solid #C62828; } QLabel { color: #1565c0; background: #123456; }"
    assert retone(sheet, True) == (
        "QFrame#banner { border: 1px solid #ef9a9a; } QLabel { color: #64b5f6; background: #123456; }"
    )
    assert retone(retone(sheet, True), False) == sheet.replace("#C62828", "#c62828")
    markup = '<span style="color:#2a7230">●</span> Online'
    assert retone(markup, True) == '<span style="color:#81c784">●</span> Online'
    assert retone(markup, False) == markup
