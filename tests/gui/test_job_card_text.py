"""A job card's text is wrapped once for a text and a size, and painted from that until either
changes (a card repaints whenever the cards around it move)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QImage
from pytestqt.qtbot import QtBot

from castdeck.ui.jobs.card import CardText

LONG = "Rendering the second scene of the video with its narration and the music bed, then the captions"


def made(qtbot: QtBot, text: str, width: int, *, right: bool = False, font: QFont | None = None) -> CardText:
    label = CardText(lines=2, right=right)
    qtbot.addWidget(label)
    if font is not None:
        label.setFont(font)
    label.setText(text)
    label.resize(width, label.sizeHint().height())
    return label


def pixels(label: CardText) -> QImage:
    label.resize(label.width(), label.sizeHint().height())  # as the card's layout gives it
    return label.grab().toImage()


def test_the_text_painted_follows_the_text_the_width_and_the_font(qtbot: QtBot) -> None:
    for right in (False, True):
        label = made(qtbot, LONG, 300, right=right)
        first = pixels(label)
        assert first == pixels(made(qtbot, LONG, 300, right=right))
        assert pixels(label) == first  # painted again from what was wrapped

        label.setText("Sent · waiting for the service")
        assert pixels(label) == pixels(made(qtbot, "Sent · waiting for the service", 300, right=right))
        assert pixels(label) != first

        label.setText(LONG)
        label.resize(180, label.height())  # narrower: wrapped again, the last line elided
        narrow = pixels(label)
        assert narrow == pixels(made(qtbot, LONG, 180, right=right)) and narrow != first.copy(0, 0, 180, 1000)

        bigger = QFont(label.font())
        bigger.setPointSizeF(bigger.pointSizeF() * 1.5)
        label.setFont(bigger)
        assert pixels(label) == pixels(made(qtbot, LONG, 180, right=right, font=bigger))
