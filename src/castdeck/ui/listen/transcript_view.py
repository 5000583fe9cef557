"""``TranscriptView``: the episode's words, one paragraph per speaker turn, the word being heard lit.

The text is built once (undo off; character formats only for the speaker headings) and never
changed while playing. The current word is one extra selection; the words already heard are a
second one that only changes their colour (extra selections are painted over the laid-out text,
so nothing is laid out again). The frame handler finds the word by binary search over the start
times and touches the view only when the word changes.

Follow mode keeps the current word in view; scrolling by hand (wheel, scroll bar, keys) pauses
it and :attr:`followChanged` tells the window to offer the way back. A click on a word (not a
drag that selects) asks to seek to its start (:attr:`seekRequested`).

For a screen reader, each paragraph is a speaker's turn: the view's accessible description says
which turn is being heard and who speaks ("Heard now: turn 3 of 12, Maya"), changed when the turn
changes (not at every word), and :meth:`go_to_turn` (the window's Alt+Up, Alt+Down and Ctrl+T)
selects a turn's words, which a reader reads, and says whose they are and when.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import (
    QAccessible,
    QAccessibleEvent,
    QColor,
    QContextMenuEvent,
    QGuiApplication,
    QKeyEvent,
    QMouseEvent,
    QPalette,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QWheelEvent,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from castdeck.transcript import DocumentPlan, Transcript, find_all, plan_document, timed_text, turns_said

from ..palette import is_dark
from .gutter import SpeakerGutter

__all__ = ["MAX_MARKED_MATCHES", "TranscriptView"]

MAX_MARKED_MATCHES = 2000
"""Search matches marked in the text at once (the count and next/previous cover all of them)."""
_SCROLL_KEYS = {
    Qt.Key.Key_PageUp,
    Qt.Key.Key_PageDown,
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
}


def _mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` of the way towards ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


class TranscriptView(QPlainTextEdit):
    seekRequested = Signal(float)
    followChanged = Signal(bool)
    currentWordChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName("Transcript")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.document().setDocumentMargin(18)
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF(), 9.0) * 1.2)
        self.setFont(font)
        self.transcript: Transcript | None = None
        self._bottom_room = 0
        """Pixels kept free under the text for the floating "Back to the word being heard"."""
        self.plan: DocumentPlan | None = None
        self.current = -1
        self.following = True
        self.matches: list[int] = []
        self.match_length = 0
        self.current_match = -1
        self._press: QPoint | None = None
        self._scrolling = False
        self._base: list[QTextEdit.ExtraSelection] = []
        self._search: list[QTextEdit.ExtraSelection] = []
        self.heard_turn = -1
        self.chosen_turn = -1
        """The turn the keyboard went to (:meth:`go_to_turn`), -1 before any."""
        self._formats()
        self.gutter = SpeakerGutter(self)
        self.updateRequest.connect(self.gutter.follow)
        self.verticalScrollBar().actionTriggered.connect(lambda _action: self._user_scrolled())

    # --- building --------------------------------------------------------------------------------------------

    def _formats(self) -> None:
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.Text)
        base = palette.color(QPalette.ColorRole.Base)
        dark = is_dark(palette)
        self.current_format = QTextCharFormat()
        self.current_format.setBackground(QColor("#8a6d00") if dark else QColor("#ffe082"))
        self.current_format.setForeground(QColor("#ffffff") if dark else QColor("#000000"))
        self.heard_format = QTextCharFormat()
        self.heard_format.setForeground(_mix(text, base, 0.38))
        self.match_format = QTextCharFormat()
        self.match_format.setBackground(QColor("#3b4d61") if dark else QColor("#d6e4f5"))
        self.current_match_format = QTextCharFormat()
        self.current_match_format.setBackground(QColor("#c77700") if dark else QColor("#ffb74d"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        """The palette changed (the system turned dark): the colours are all in the extra
        selections, so those are made again in the new ones. The text, the word being heard, the
        search and where the reader is stay as they were."""
        self._formats()
        if len(self._base) == 2:
            self._base[0].format = self.heard_format
            self._base[1].format = self.current_format
        if self.matches:
            self._mark_matches()  # sets the extra selections with the word's
        else:
            self.setExtraSelections(
                [self._base[0], *self._search, *self._base[1:]] if self._base else self._search
            )

    def set_transcript(self, transcript: Transcript) -> None:
        """Show ``transcript`` (built once; nothing is highlighted until a position arrives)."""
        self.transcript = transcript
        self.plan = plan = plan_document(transcript)
        self.gutter.set_plan(transcript, plan)
        self._apply_margins()
        self._place_gutter()
        document = self.document()
        document.clear()
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        words = QTextCharFormat()
        spacer = QTextCharFormat()
        spacer.setFontPointSize(max(self.font().pointSizeF() * 0.6, 5.0))
        block_format = QTextBlockFormat()
        for i, text in enumerate(plan.blocks):
            if i:
                cursor.insertBlock(block_format, spacer)  # the empty block between paragraphs
                cursor.insertBlock(block_format, words)
            cursor.insertText(text, words)
        cursor.endEditBlock()
        document.setModified(False)
        self.current = -1
        self.matches, self.current_match = [], -1
        self._base, self._search = [], []
        self.setExtraSelections([])
        self.moveCursor(QTextCursor.MoveOperation.Start)
        self.heard_turn = self.chosen_turn = -1
        self._say_turns()
        self.set_following(True)
        self.gutter.update()

    def clear_transcript(self) -> None:
        self.transcript = None
        self.plan = None
        self.current = -1
        self.heard_turn = self.chosen_turn = -1
        self._say_turns()
        self.gutter.set_plan(None, None)
        self._apply_margins()
        self._place_gutter()
        self.setPlainText("")

    def set_bottom_room(self, pixels: int) -> None:
        """Keep ``pixels`` below the text free (a button floats there): no line is covered."""
        if pixels != self._bottom_room:
            self._bottom_room = pixels
            self._apply_margins()

    def _apply_margins(self) -> None:
        left = self.gutter.width_for(self.transcript) if self.transcript is not None else 0
        self.setViewportMargins(left, 0, 0, self._bottom_room)
        self._place_gutter()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_gutter()

    def _place_gutter(self) -> None:
        rect = self.contentsRect()
        self.gutter.setGeometry(rect.left(), rect.top(), self.viewportMargins().left(), rect.height())

    # --- the word being heard --------------------------------------------------------------------------------

    def set_position(self, seconds: float) -> None:
        """The frame handler: light the word heard at ``seconds`` (nothing happens unless it changed)."""
        transcript = self.transcript
        if transcript is None:
            return
        index = transcript.word_at(seconds)
        if index != self.current:
            self._show_word(index)

    def _show_word(self, index: int) -> None:
        plan = self.plan
        assert plan is not None
        self.current = index
        if index < 0:
            self._base = []
        else:
            start = plan.word_positions[index]
            heard = QTextEdit.ExtraSelection()
            heard.cursor = QTextCursor(self.document())
            heard.cursor.setPosition(start, QTextCursor.MoveMode.KeepAnchor)
            heard.format = self.heard_format
            word = QTextEdit.ExtraSelection()
            word.cursor = QTextCursor(self.document())
            word.cursor.setPosition(start)
            word.cursor.setPosition(start + plan.word_lengths[index], QTextCursor.MoveMode.KeepAnchor)
            word.format = self.current_format
            self._base = [heard, word]
            if self.following:
                self._keep_in_view(start)
        self.setExtraSelections(
            [self._base[0], *self._search, *self._base[1:]] if self._base else self._search
        )
        turn = self.turn_of_word(index)
        if turn != self.heard_turn:
            self.heard_turn = turn
            self._say_turns()
        self.currentWordChanged.emit(index)

    # --- turns, for a screen reader ------------------------------------------------------------------------

    def turn_of_word(self, index: int) -> int:
        """The turn (paragraph) that word ``index`` is in; -1 for none."""
        return self.plan.paragraph_of_word(index) if self.plan is not None else -1

    def _say_turns(self) -> None:
        """The description a screen reader reads with the transcript: the turn gone to and the one
        being heard (announced when it changes)."""
        described = (
            turns_said(self.plan, self.transcript, self.chosen_turn, self.heard_turn)
            if self.plan is not None and self.transcript is not None
            else ""
        )
        if described != self.accessibleDescription():
            self.setAccessibleDescription(described)
            QAccessible.updateAccessibility(QAccessibleEvent(self, QAccessible.Event.DescriptionChanged))

    def go_to_turn(self, turn: int) -> None:
        """Select turn ``turn``'s words (clamped to the transcript), scrolled into view: the way a
        keyboard or a screen reader moves through the transcript. Following stops, as when
        scrolling by hand; "Back to the word being heard" resumes it."""
        plan = self.plan
        if plan is None or not plan.blocks:
            return
        turn = min(max(turn, 0), len(plan.blocks) - 1)
        self.chosen_turn = turn
        cursor = QTextCursor(self.document())
        cursor.setPosition(plan.block_positions[turn] + len(plan.blocks[turn]))
        cursor.setPosition(plan.block_positions[turn], QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        if self.following:
            self.set_following(False)
        self._keep_in_view(plan.block_positions[turn], force=True)
        self._say_turns()

    def step_turn(self, step: int) -> None:
        """The turn ``step`` turns after (before, when negative) the one gone to last, or else
        after the one being heard, or else the first."""
        if self.chosen_turn >= 0:
            self.go_to_turn(self.chosen_turn + step)
        elif self.heard_turn >= 0:
            self.go_to_turn(self.heard_turn + step)
        else:
            self.go_to_turn(0)

    def go_to_heard_turn(self) -> None:
        """Select the turn being heard (the first before anything is heard): read it again."""
        self.go_to_turn(max(self.heard_turn, 0))

    def current_word_text(self) -> str:
        if self.transcript is None or self.current < 0:
            return ""
        return self.transcript.words[self.current].text

    # --- follow mode ---------------------------------------------------------------------------------------

    def set_following(self, following: bool) -> None:
        changed = following != self.following
        self.following = following
        if following and self.chosen_turn >= 0:  # back with the word being heard: no turn gone to
            self.chosen_turn = -1
            self._say_turns()
        if following and self.plan is not None and self.current >= 0:
            self._keep_in_view(self.plan.word_positions[self.current], force=True)
        if changed:
            self.followChanged.emit(following)

    def _keep_in_view(self, position: int, *, force: bool = False) -> None:
        """Scroll (only when needed) so the character at ``position`` sits in the upper part of
        the view: when it is above the top or below three quarters of the height."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        rect = self.cursorRect(cursor)
        height = self.viewport().height()
        if not force and rect.top() >= 0 and rect.bottom() <= height * 0.75:
            return
        block = cursor.block()
        layout = block.layout()
        line = layout.lineForTextPosition(position - block.position()) if layout is not None else None
        line_number = block.firstLineNumber() + (
            line.lineNumber() if line is not None and line.isValid() else 0
        )
        lines_shown = max(height // max(self.fontMetrics().lineSpacing(), 1), 1)
        self._scrolling = True
        try:
            bar = self.verticalScrollBar()
            bar.setValue(max(line_number - lines_shown // 4, 0))
            # A block laid out for the first time can change the line count above it: check once.
            rect = self.cursorRect(cursor)
            if rect.top() < 0 or rect.bottom() > height:
                bar.setValue(
                    bar.value()
                    + int((rect.top() - height * 0.25) // max(self.fontMetrics().lineSpacing(), 1))
                )
        finally:
            self._scrolling = False

    def scroll_to_position(self, position: int) -> None:
        self._keep_in_view(position, force=True)

    def word_visible(self, index: int) -> bool:
        """Whether word ``index`` is inside the viewport (tests and the jump-back button)."""
        if self.plan is None or index < 0:
            return False
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.plan.word_positions[index])
        rect = self.cursorRect(cursor)
        return rect.top() >= 0 and rect.bottom() <= self.viewport().height()

    def _user_scrolled(self) -> None:
        if not self._scrolling and self.following:
            self.set_following(False)

    def wheelEvent(self, event: QWheelEvent) -> None:
        before = self.verticalScrollBar().value()
        super().wheelEvent(event)
        if self.verticalScrollBar().value() != before:
            self._user_scrolled()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        before = self.verticalScrollBar().value()
        super().keyPressEvent(event)
        if event.key() in _SCROLL_KEYS and self.verticalScrollBar().value() != before:
            self._user_scrolled()

    # --- clicking a word -------------------------------------------------------------------------------------

    def word_at_point(self, point: QPoint) -> int:
        if self.plan is None or not self.plan.word_positions:
            return -1
        position = self.cursorForPosition(point).position()
        return self.plan.word_at_position(position)

    def point_of_word(self, index: int) -> QPoint:
        """The middle of word ``index`` in viewport coordinates (tests click there)."""
        assert self.plan is not None
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.plan.word_positions[index] + max(self.plan.word_lengths[index] // 2, 0))
        return self.cursorRect(cursor).center()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position().toPoint() if event.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        point = event.position().toPoint()
        if press is None or event.button() != Qt.MouseButton.LeftButton or self.textCursor().hasSelection():
            return
        if (point - press).manhattanLength() > QGuiApplication.styleHints().startDragDistance():
            return
        index = self.word_at_point(point)
        if index >= 0 and self.transcript is not None:
            self.seekRequested.emit(self.transcript.words[index].start)

    # --- search ---------------------------------------------------------------------------------------------

    def search(self, needle: str) -> int:
        """Mark every match of ``needle`` (ignoring case); returns the count. The first match at or
        after the current word becomes current (and is scrolled to)."""
        self.matches = find_all(self.plan.text, needle) if self.plan is not None and needle else []
        self.match_length = len(needle)
        self.current_match = -1
        if self.matches:
            here = (
                self.plan.word_positions[self.current] if self.plan is not None and self.current >= 0 else 0
            )
            first = next((i for i, at in enumerate(self.matches) if at >= here), 0)
            self.go_to_match(first)
        else:
            self._mark_matches()
        return len(self.matches)

    def go_to_match(self, index: int) -> None:
        if not self.matches:
            return
        self.current_match = index % len(self.matches)
        self._mark_matches()
        self.set_following(False)
        self.scroll_to_position(self.matches[self.current_match])

    def next_match(self, step: int = 1) -> None:
        if self.matches:
            self.go_to_match(self.current_match + step)

    def _mark_matches(self) -> None:
        marked: list[QTextEdit.ExtraSelection] = []
        if self.matches:
            window = MAX_MARKED_MATCHES // 2
            low = max(self.current_match - window, 0)
            for i in range(low, min(low + MAX_MARKED_MATCHES, len(self.matches))):
                selection = QTextEdit.ExtraSelection()
                selection.cursor = QTextCursor(self.document())
                selection.cursor.setPosition(self.matches[i])
                selection.cursor.setPosition(
                    self.matches[i] + self.match_length, QTextCursor.MoveMode.KeepAnchor
                )
                selection.format = self.current_match_format if i == self.current_match else self.match_format
                marked.append(selection)
        self._search = marked
        self.setExtraSelections([self._base[0], *marked, *self._base[1:]] if self._base else marked)

    def clear_search(self) -> None:
        self.matches, self.current_match = [], -1
        self._mark_matches()

    # --- copying --------------------------------------------------------------------------------------------

    def selected_words(self) -> range:
        cursor = self.textCursor()
        if self.plan is None or not cursor.hasSelection():
            return range(0)
        return self.plan.words_between(cursor.selectionStart(), cursor.selectionEnd())

    def selection_text(self, *, times: bool) -> str:
        words = self.selected_words()
        if self.transcript is None or not words:
            return ""
        return timed_text(self.transcript, words.start, words.stop, times=times)

    def copy_selection(self, *, times: bool) -> bool:
        text = self.selection_text(times=times)
        if text:
            QGuiApplication.clipboard().setText(text)
        return bool(text)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.createStandardContextMenu(event.pos())
        menu.addSeparator()
        has_words = bool(self.selected_words())
        plain = menu.addAction("Copy words", lambda: self.copy_selection(times=False))
        plain.setEnabled(has_words)
        timed = menu.addAction("Copy with times", lambda: self.copy_selection(times=True))
        timed.setShortcut("Ctrl+Shift+C")
        timed.setEnabled(has_words)
        index = self.word_at_point(event.pos())
        if index >= 0 and self.transcript is not None:
            start = self.transcript.words[index].start
            menu.addAction("Play from here", lambda: self.seekRequested.emit(start))
        menu.popup(event.globalPos())
        menu.aboutToHide.connect(menu.deleteLater)
