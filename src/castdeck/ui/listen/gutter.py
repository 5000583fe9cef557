"""The speakers' names beside the transcript: painted in a margin, not part of the text.

Keeping the names out of the text lets the words already heard be dimmed with one extra
selection without dimming the names, and keeps each paragraph's text to its words. Only the
visible paragraphs are painted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QWidget

from castdeck.transcript import DocumentPlan, Transcript, clock

from .colors import speaker_colors

if TYPE_CHECKING:
    from .transcript_view import TranscriptView

__all__ = ["SpeakerGutter"]

MAX_WIDTH = 250
PADDING = 14
GAP = 10


class SpeakerGutter(QWidget):
    def __init__(self, view: TranscriptView) -> None:
        super().__init__(view)
        self.view = view
        self.setObjectName("speaker_gutter")
        self.setAccessibleName("Speakers")
        self.transcript: Transcript | None = None
        self.plan: DocumentPlan | None = None
        self.colors: list[QColor] = []

    def set_plan(self, transcript: Transcript | None, plan: DocumentPlan | None) -> None:
        self.transcript, self.plan = transcript, plan
        self._choose_colors()
        self.update()

    def _choose_colors(self) -> None:
        transcript = self.transcript
        self.colors = speaker_colors(transcript.speakers, self.palette()) if transcript is not None else []

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the system turned dark: the names' dark colours
            self._choose_colors()
            self.update()

    def _name_font(self) -> QFont:
        font = QFont(self.view.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 0.92)
        return font

    def _time_font(self) -> QFont:
        font = QFont(self.view.font())
        font.setPointSizeF(font.pointSizeF() * 0.78)
        return font

    def width_for(self, transcript: Transcript) -> int:
        """Room for the longest name and a time (at most :data:`MAX_WIDTH`; longer names are elided)."""
        metrics = QFontMetrics(self._name_font())
        widest = max((metrics.horizontalAdvance(s.name) for s in transcript.speakers), default=0)
        stamp = "00:00:00" if transcript.duration >= 3600 else "00:00"
        widest += QFontMetrics(self._time_font()).horizontalAdvance(stamp) + (GAP if widest else 0)
        return min(widest + 2 * PADDING + 4, MAX_WIDTH)

    def follow(self, rect: QRect, dy: int) -> None:
        """The view scrolled or repainted: the names move with the text."""
        if dy:
            self.scroll(0, dy)
        else:
            self.update(0, rect.y(), self.width(), rect.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.Base))
        transcript, plan = self.transcript, self.plan
        if transcript is None or plan is None:
            painter.end()
            return
        text_color = palette.color(QPalette.ColorRole.Text)
        muted = QColor(text_color)
        muted.setAlphaF(0.55)
        name_font, time_font = self._name_font(), self._time_font()
        stamp_width = QFontMetrics(time_font).horizontalAdvance(
            "00:00:00" if transcript.duration >= 3600 else "00:00"
        )
        named = bool(transcript.speakers)
        view = self.view
        block = view.firstVisibleBlock()
        offset = view.contentOffset()
        bottom = event.rect().bottom()
        width = self.width() - 2 * PADDING
        line_height = QFontMetrics(view.font()).height()
        while block.isValid():
            top = round(view.blockBoundingGeometry(block).translated(offset).top())
            if top > bottom:
                break
            number = plan.paragraph_of_block(block.blockNumber())
            if number is not None and number < len(plan.headings) and (plan.headings[number] or not named):
                row = QRect(PADDING, top, width, line_height)
                painter.setFont(time_font)
                painter.setPen(muted)
                stamp = clock(plan.block_starts[number], hours=transcript.duration >= 3600)[:-4]
                painter.drawText(row, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, stamp)
                if named:
                    speaker = plan.block_speakers[number]
                    known = speaker is not None and speaker < len(self.colors)
                    painter.setFont(name_font)
                    painter.setPen(self.colors[speaker] if known and speaker is not None else text_color)
                    name = painter.fontMetrics().elidedText(
                        plan.headings[number], Qt.TextElideMode.ElideRight, max(width - stamp_width - GAP, 10)
                    )
                    painter.drawText(row, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)
            block = block.next()
        painter.end()
