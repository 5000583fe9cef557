"""``ListenWindow``: an episode's audio player with its transcript lighting up word by word.

Opened from the Episodes pane on any episode with audio. The audio and word timestamps come from
the media cache or the service (:class:`~castdeck.services.media_cache.EpisodeMedia`), so a
cached episode plays and reads offline. The transcript follows the playback; exports (SRT,
WebVTT, text, JSON) are written from the same words.

Keyboard: Space or K play/pause, J and L back/forward 10 s, Left/Right 5 s, Ctrl+F search
(Escape leaves it), F3 next match, Ctrl+Shift+C copy the selection with times.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.errors import CastdeckError
from castdeck.api.models import Episode
from castdeck.services.media_cache import EpisodeMedia, ListenMedia
from castdeck.services.tasks import TaskScope, close_owned
from castdeck.services.transcript_files import save_transcript

from .. import multimedia
from ..accessible import shows_value
from ..file_dialogs import use_folder
from ..screen_fit import fit_window, release_when_hidden
from ..widgets import Banner, heading_label, player_missing_label
from .playback import Playback
from .player_bar import PlayerBar, player_shortcuts
from .search_bar import SearchBar
from .transcript_view import TranscriptView

__all__ = ["EXPORTS", "ListenWindow"]

log = logging.getLogger(__name__)

EXPORTS = {
    "srt": ("Subtitles (SRT)…", "SubRip subtitles (*.srt)"),
    "vtt": ("Subtitles (WebVTT)…", "WebVTT subtitles (*.vtt)"),
    "txt": ("Text by speaker…", "Text (*.txt)"),
    "json": ("Words with times (JSON)…", "JSON (*.json)"),
}


JUMP_GAP = 8
"""Pixels above and below "Back to the word being heard", in the room kept for it under the text."""


class ListenWindow(QWidget):
    def __init__(self, media: EpisodeMedia, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("listen_window")
        self.setWindowTitle("Listen")
        self.setAccessibleName("Listen")
        self.resize(960, 680)
        self.media = media
        self.work = TaskScope(self)
        self.episode: Episode | None = None
        self.loaded: ListenMedia | None = None
        self.file_dialog: QFileDialog | None = None
        self._loading: asyncio.Task[None] | None = None

        self.player_problem = multimedia.missing("Playing the audio")
        """Why nothing can be played on this computer (QtMultimedia did not load), or None: the
        transcript still reads, searches, copies and exports."""
        self.playback = Playback(self) if self.player_problem is None else None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)

        header = QWidget(self)
        header.setObjectName("listen_header")
        header_layout = QHBoxLayout(header)
        header_layout.setContentsMargins(16, 10, 10, 6)
        titles = QVBoxLayout()
        titles.setSpacing(2)
        self.title = heading_label("", header, scale=1.4)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        shows_value(self.title, "Episode title")
        self.title.setWordWrap(True)
        titles.addWidget(self.title)
        self.status = QLabel("", header)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        shows_value(self.status, "Listening status")
        self.status.setStyleSheet("color: palette(placeholder-text);")
        titles.addWidget(self.status)
        header_layout.addLayout(titles, 1)

        def tool(text: str, name: str, tip: str) -> QToolButton:
            button = QToolButton(header)
            button.setText(text)
            button.setAccessibleName(name)
            button.setToolTip(tip)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            header_layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            return button

        self.follow_button = tool("Follow along", "Follow along", "Keep the word being heard in view")
        self.follow_button.setCheckable(True)
        self.follow_button.setChecked(True)
        self.search_button = tool("Search", "Search the transcript", "Search the transcript (Ctrl+F)")
        self.copy_button = tool(
            "Copy with times",
            "Copy the selection with times",
            "Copy the selected words with times (Ctrl+Shift+C)",
        )
        self.export_button = QPushButton("Export", header)
        self.export_button.setAccessibleName("Export the transcript")
        self.export_button.setToolTip("Save subtitles or text")
        header_layout.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignTop)
        menu = QMenu(self.export_button)
        for fmt, (label, _filter) in EXPORTS.items():
            menu.addAction(label, lambda fmt=fmt: self.ask_export(fmt))
        self.export_button.setMenu(menu)
        outer.addWidget(header)

        self.banner = Banner(self)
        banner_row = QHBoxLayout()
        banner_row.setContentsMargins(12, 0, 12, 4)
        banner_row.addWidget(self.banner)
        outer.addLayout(banner_row)

        self.view = TranscriptView(self)
        outer.addWidget(self.view, 1)
        self.placeholder = QLabel("", self.view.viewport())
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet("color: palette(placeholder-text); font-size: 12pt;")
        self.jump_button = QPushButton("↓  Back to the word being heard", self.view)
        self.jump_button.setAccessibleName("Back to the word being heard")
        self.jump_button.setToolTip("Scroll back and follow the playback again")
        self.jump_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump_button.setStyleSheet(
            "QPushButton { background: palette(highlight); color: palette(highlighted-text);"
            " border: none; border-radius: 14px; padding: 6px 16px; font-weight: bold; }"
        )
        self.jump_button.hide()
        self.view.installEventFilter(self)

        self.search_bar = SearchBar(self.view, self)
        self.search_bar.hide()
        outer.addWidget(self.search_bar)
        self.player_bar: PlayerBar | None = None
        self.player_missing: QLabel | None = None
        """In the player's place when nothing can be played here: why, and what to install."""
        if self.playback is not None:
            self.player_bar = PlayerBar(self.playback, self.media.session.runtime.settings, self)
            self.player_bar.setAutoFillBackground(True)
            outer.addWidget(self.player_bar)
        else:
            self.player_missing = player_missing_label(self.player_problem or "", self)
            self.player_missing.setContentsMargins(16, 8, 16, 10)
            self.player_missing.setAutoFillBackground(True)
            outer.addWidget(self.player_missing)

        self.follow_button.toggled.connect(self.view.set_following)
        self.view.followChanged.connect(self._follow_changed)
        self.jump_button.clicked.connect(lambda: self.view.set_following(True))
        self.search_button.clicked.connect(self.open_search)
        self.copy_button.clicked.connect(lambda: self.view.copy_selection(times=True))
        self.view.seekRequested.connect(self._seek_to_word)
        self.view.copyAvailable.connect(self.copy_button.setEnabled)
        self.copy_button.setEnabled(False)
        if self.playback is not None:
            self.playback.frame.connect(self.view.set_position)
            self.playback.playingChanged.connect(self._playing_changed)
            self.playback.message.connect(lambda text: self.banner.show_message(text, kind="warning"))
            player_shortcuts(self.playback, self)
        for keys, slot in (
            ("Ctrl+F", self.open_search),
            ("Escape", self._escape),
            ("Ctrl+Shift+C", lambda: self.view.copy_selection(times=True)),
            ("Alt+Down", lambda: self.view.step_turn(1)),  # a speaker's turn at a time (screen readers)
            ("Alt+Up", lambda: self.view.step_turn(-1)),
            ("Ctrl+T", self.view.go_to_heard_turn),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)
        self._set_ready(False)

    # --- opening an episode ----------------------------------------------------------------------------------

    def open_episode(self, episode: Episode) -> None:
        """Show ``episode``: its audio and transcript from the cache or the service."""
        if self._loading is not None and not self._loading.done():
            self._loading.cancel()
        if self.work.closed:  # the window was closed and is opened again: a new scope in its place
            self.work.deleteLater()
            self.work = TaskScope(self)
        if self.playback is not None:
            self.playback.stop()
        self.episode = episode
        self.loaded = None
        title = episode.title or "Untitled episode"
        self.title.setText(title)
        self.setWindowTitle(f"{title} — Listen")
        self.banner.hide()
        self._set_ready(False)
        self._show_placeholder("Opening the audio and transcript…")
        self.status.setText("Opening…")
        self._loading = self.work.start(self._load(str(episode.id)), on_error=self._failed, name="listen")

    async def _load(self, episode_id: str) -> None:
        try:
            media = await self.media.open(episode_id, progress=self._progress)
        except OSError as error:
            self._failed_text(f"The audio could not be stored on this computer: {error}")
            return
        self.show_media(media)

    def _progress(self, received: int, total: int | None) -> None:
        if total:
            self.status.setText(f"Downloading the audio… {received * 100 // total}%")
        else:
            self.status.setText(f"Downloading the audio… {received / 1_000_000:.1f} MB")

    def show_media(self, media: ListenMedia) -> None:
        self.loaded = media
        transcript = media.transcript
        self.view.set_transcript(transcript)
        if self.playback is not None:
            self.playback.load(media.audio)
        self._set_ready(True)
        if transcript.words:
            self.placeholder.hide()
        else:
            self._show_placeholder("This episode's audio has no words in its timestamps.")
        speakers = ", ".join(s.name for s in transcript.speakers)
        parts = [f"{len(transcript.words):,} words"] + ([speakers] if speakers else [])
        if media.offline:
            parts.append("offline: played from this computer's copy")
        elif media.from_cache:
            parts.append("from this computer's copy")
        self.status.setText(" · ".join(parts))

    def _failed(self, error: CastdeckError) -> None:
        self.banner.show_error(error, "Cannot listen to this episode")
        self._show_placeholder("Nothing to play.")
        self.status.setText("")

    def _failed_text(self, text: str) -> None:
        self.banner.show_message(text, kind="error")
        self._show_placeholder("Nothing to play.")
        self.status.setText("")

    def _set_ready(self, ready: bool) -> None:
        for control in (self.search_button, self.export_button, self.follow_button):
            control.setEnabled(ready)
        if not ready:
            self.view.clear_transcript()
            self.jump_button.hide()

    def _show_placeholder(self, text: str) -> None:
        self.placeholder.setText(text)
        self.placeholder.show()
        self._place_overlays()

    # --- playing and following -------------------------------------------------------------------------------

    def _seek_to_word(self, seconds: float) -> None:
        if self.playback is not None:
            self.playback.seek(seconds)
        else:
            self.view.set_position(seconds)  # no player: the word clicked is lit, as if heard
        self.view.set_following(True)

    def _playing_changed(self, _playing: bool) -> None:
        self._follow_changed(self.view.following)

    def _follow_changed(self, following: bool) -> None:
        blocked = self.follow_button.blockSignals(True)
        self.follow_button.setChecked(following)
        self.follow_button.blockSignals(blocked)
        shown = not following and self.view.current >= 0
        self.jump_button.setVisible(shown)
        # room under the text for the button, so that it covers no line of the transcript
        self.view.set_bottom_room(self.jump_button.sizeHint().height() + 2 * JUMP_GAP if shown else 0)
        self._place_overlays()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() == QEvent.Type.Resize:
            self._place_overlays()
        return super().eventFilter(watched, event)

    def _place_overlays(self) -> None:
        viewport = self.view.viewport().geometry()
        self.placeholder.setGeometry(0, 0, viewport.width(), viewport.height())
        hint = self.jump_button.sizeHint()
        self.jump_button.setGeometry(
            viewport.x() + (viewport.width() - hint.width()) // 2,
            viewport.y() + viewport.height() + JUMP_GAP,  # in the room kept under the text
            hint.width(),
            hint.height(),
        )
        self.jump_button.raise_()

    # --- search ----------------------------------------------------------------------------------------------

    def open_search(self) -> None:
        if self.view.transcript is not None:
            self.search_bar.open_search()

    def _escape(self) -> None:
        if self.search_bar.isVisible():
            self.search_bar.close_search()

    # --- export ----------------------------------------------------------------------------------------------

    def ask_export(self, fmt: str) -> QFileDialog:
        """Ask where to save the transcript as ``fmt`` (the dialog opens window-modally)."""
        label, name_filter = EXPORTS[fmt]
        title = (self.episode.title if self.episode is not None else None) or "transcript"
        safe = "".join(c if c.isalnum() or c in " -_." else "_" for c in title).strip() or "transcript"
        dialog = QFileDialog(self, label.rstrip("…"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(name_filter)
        dialog.setDefaultSuffix(fmt)
        use_folder(self.media.session.runtime.settings, dialog, "exports", f"{safe}.{fmt}")
        dialog.fileSelected.connect(
            lambda path: self.work.start(
                self.export_to(fmt, Path(path)), on_error=lambda e: self.banner.show_error(e, "Export failed")
            )
        )
        dialog.finished.connect(dialog.deleteLater)  # answered: gone (each export makes its own)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    async def export_to(self, fmt: str, path: Path) -> bool:
        """Write the transcript as ``fmt`` to ``path`` (off the UI thread); says what happened."""
        if self.loaded is None:
            return False
        transcript = self.loaded.transcript
        try:
            await save_transcript(path, transcript, fmt)
        except OSError as error:
            self.banner.show_message(f"Could not save {path.name}: {error.strerror or error}", kind="error")
            return False
        self.banner.show_message(f"Saved {path.name} ({EXPORTS[fmt][0].rstrip('…')}).", kind="info")
        return True

    # --- closing ---------------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        fit_window(self)
        super().showEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shut()
        super().closeEvent(event)
        if event.isAccepted():
            release_when_hidden(self)  # the pane keeps the window for the next listen

    def shut(self) -> None:
        """Stop playing and end the window's work (also when its owner closes)."""
        if self.playback is not None:
            self.playback.close()
        close_owned(self)
