"""``MediaPreview``: a finished Video, Short or Voiceover played in its pane's details.

The file comes from :class:`~castdeck.services.media_files.MediaFiles` (kept on this computer, or
downloaded from the address the service gives); until it plays, the item's still is shown. The
controls and keys are the Listen window's (:class:`~castdeck.ui.listen.player_bar.PlayerBar` on a
:class:`~castdeck.ui.listen.playback.Playback`, whose clock polls the position): Space or K play
and pause, J and L go 10 s back and forward, Left and Right 5 s, while the focus is in the
preview. When the service is still preparing the file, has none, or the download failed, that is
said in place of the picture, with what to do ("Check again", the studio, "Retry").

Every load gets a new number (its epoch); whatever an older load finds out afterwards is
dropped, so the newest request always wins however the loads interleave.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QPalette, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.errors import CastdeckError
from castdeck.api.models import MediaJob
from castdeck.services.media_files import MediaFile, MediaFileError, MediaFiles, Preparing, preparing_text

from .. import multimedia
from ..accessible import shows_value
from ..listen.playback import Playback
from ..listen.player_bar import PlayerBar, player_shortcuts
from ..palette import tone
from ..widgets import describe_error, open_web_link, player_missing_label
from .stills import Stills
from .video_view import VideoView

__all__ = ["MediaPreview"]

HEADLINES = {  # (text, its tone)
    "preparing": ("◌ Being prepared", "warning"),
    "unavailable": ("○ Only in the studio", "quiet"),
    "failed": ("✕ Could not get the file", "problem"),
    "offline": ("Offline", "quiet"),
}
MAX_AREA_HEIGHT = 360
Start = Callable[[Coroutine[Any, Any, None], str], "asyncio.Task[None]"]
STATUS_WIDTH_AT_MOST = 170
"""The most width the status beside speed and volume claims; a longer text wraps."""
STATUS_SAMPLES = (
    "Downloaded",
    "Offline copy",
    "This computer's copy",
    "Asking the service…",
    "Downloading… 100%",
)
"""The short statuses it says most: the width it keeps is the widest of them (the same whatever it
says now, so the details do not change width, and the picture height, as a download counts up)."""


class StatusLine(QLabel):
    """The preview's status beside speed and volume. It keeps the width of its usual short texts
    (at most :data:`STATUS_WIDTH_AT_MOST`), so "Downloaded" is never cut off where the details are
    narrow (their scroll area takes that width from the list beside them); a longer text wraps."""

    def minimumSizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        width = min(max(metrics.horizontalAdvance(text) for text in STATUS_SAMPLES) + 2, STATUS_WIDTH_AT_MOST)
        return QSize(width, super().minimumSizeHint().height())


class MediaPreview(QFrame):
    """The preview of one item at a time (``kind``: video, short or voiceover)."""

    stateChanged = Signal(str)
    """``idle``, ``loading``, ``ready``, ``preparing``, ``unavailable``, ``failed`` or ``offline``."""

    recheck_after: tuple[float, ...] = (5.0, 10.0, 20.0, 30.0)
    """Seconds before asking again while the service prepares the file (then every last one): a
    finished item's preview follows the file to ready without "Check again" (tests shorten it)."""

    def __init__(self, files: MediaFiles, stills: Stills, noun: str, start: Start,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("media_preview")
        self.setAccessibleName(f"{noun.capitalize()} preview")
        self.files = files
        self.stills = stills
        self.kind = stills.kind
        self.noun = noun
        self._start = start
        self.state = "idle"
        self.item: MediaJob | None = None
        self.file: MediaFile | None = None
        self.answer: Any = None
        """What the last load found: a MediaFile, Preparing, Unavailable or the error."""
        self._ident: tuple[str, str | None] | None = None
        self._epoch = 0
        self._task: asyncio.Task[None] | None = None
        self._still_task: asyncio.Task[None] | None = None
        self._rechecks = 0
        self._recheck_in = 0.0
        """Seconds the next ask was set for: said as set (the text does not count down)."""
        self._recheck = QTimer(self)
        self._recheck.setSingleShot(True)
        self._recheck.timeout.connect(self._recheck_now)

        self.player_problem = multimedia.missing(f"Playing {noun}s here")
        """Why nothing can be played on this computer (QtMultimedia did not load), or None."""
        self.playback = Playback(self, noun=noun) if self.player_problem is None else None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(4)
        self.area = QStackedWidget(self)
        self.area.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.video = VideoView(self.area)
        self.area.addWidget(self.video)
        self.notice = QFrame(self.area)
        self.notice.setObjectName("preview_notice")
        self.notice.setFrameShape(QFrame.Shape.StyledPanel)
        notice_layout = QVBoxLayout(self.notice)
        notice_layout.setContentsMargins(16, 12, 16, 12)
        notice_layout.addStretch(1)
        self.headline = QLabel(self.notice)
        shows_value(self.headline, "Preview headline")
        self.headline.setAlignment(Qt.AlignmentFlag.AlignCenter)
        notice_layout.addWidget(self.headline)
        self.message = QLabel(self.notice)
        shows_value(self.message, "Preview state")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        notice_layout.addWidget(self.message)
        actions = QHBoxLayout()
        actions.addStretch(1)
        self.action_button = QPushButton(self.notice)
        self.action_button.clicked.connect(self.load)
        actions.addWidget(self.action_button)
        self.studio_link = QLabel(self.notice)
        self.studio_link.setTextFormat(Qt.TextFormat.RichText)
        self.studio_link.setOpenExternalLinks(False)
        self.studio_link.linkActivated.connect(lambda href: open_web_link(href, self))
        self.studio_link.setAccessibleName(f"Open the {noun} in the studio")
        self.studio_link.hide()
        actions.addWidget(self.studio_link)
        actions.addStretch(1)
        notice_layout.addLayout(actions)
        notice_layout.addStretch(1)
        self.area.addWidget(self.notice)
        layout.addWidget(self.area)

        self.progress = QProgressBar(self)
        self.progress.setAccessibleName(f"Downloading the {noun} file")
        self.progress.setMaximumHeight(8)
        self.progress.setTextVisible(False)
        self.progress.hide()
        layout.addWidget(self.progress)
        self.status = StatusLine(self)
        shows_value(self.status, "Preview status")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.status.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # follows a palette change
        self.status.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.player_bar: PlayerBar | None = None
        self.player_missing: QLabel | None = None
        """In the player's place when nothing can be played here: why, and what to install."""
        self.shortcuts: list[QShortcut] = []
        if self.playback is not None:
            self.player_bar = PlayerBar(
                self.playback, self.files.session.runtime.settings, self, compact=True
            )
            layout.addWidget(self.player_bar)
            self.status.setParent(self.player_bar)  # left of speed and volume
            self.player_bar.second_row.insertWidget(0, self.status, 1)
            self.player_bar.second_row.setStretch(1, 0)  # the status takes the room the bar left free
            if self.video.sink is not None:
                self.playback.player.setVideoOutput(self.video.sink)
            self.playback.message.connect(self.status.setText)
            self.playback.playingChanged.connect(self._playing_changed)
            self.shortcuts = player_shortcuts(
                self.playback, self, Qt.ShortcutContext.WidgetWithChildrenShortcut
            )
        else:
            layout.addWidget(self.status)
            self.player_missing = player_missing_label(self.player_problem or "", self)
            layout.addWidget(self.player_missing)
        self.video.clicked.connect(self._clicked)
        stills.stillReady.connect(self._still_arrived)
        files.session.reconnected.connect(self._reconnected)
        self.hide()

    # --- which item ---------------------------------------------------------------------------------------

    @property
    def media_id(self) -> str | None:
        return self._ident[0] if self._ident is not None else None

    def show_item(self, item: MediaJob) -> None:
        """Show ``item``: a finished one is previewed (loaded once per attempt); others hide it."""
        if (item.status or "").lower() != "completed":
            self.leave()
            return
        self.item = item
        ident = (str(item.id), item.generation_id)
        self.show()
        if ident == self._ident and self.state != "idle":
            self._describe()
            return
        if ident[0] != self.media_id:
            self.video.set_still(None)  # another item's picture is not this one's
        self._ident = ident
        self._rechecks = 0
        self.load()

    def leave(self) -> None:
        """Nothing to preview: playback stops, the file is let go, the work ends."""
        self._epoch += 1
        self._cancel()
        self._recheck.stop()
        if self.playback is not None:
            self.playback.close()
        self.video.clear()
        self.video.set_still(None)
        self._ident = None
        self.file = self.answer = None
        self._set_state("idle")
        self.hide()

    def load(self) -> None:
        """Ask for the file anew (the first time, "Check again", "Retry"): this request wins over
        every earlier one still under way."""
        if self._ident is None:
            return
        self._epoch += 1
        epoch = self._epoch
        self._cancel()
        if self.playback is not None:
            self.playback.close()
        self.video.clear()
        self.file = self.answer = None
        self.progress.setRange(0, 0)
        self.progress.show()
        self.status.setText("Asking the service…")
        self.status.setToolTip(f"Asking the service where the {self.noun} file is")
        self.video.set_text(f"Opening the {self.noun}…")
        self.area.setCurrentWidget(self.video)
        self._set_state("loading")
        media_id = self._ident[0]
        self._task = self._start(self._load(epoch, media_id), "preview a media file")
        if self.video.still is None:
            self._still_task = self._start(self._show_still(epoch, media_id), "show a still")

    def _recheck_now(self) -> None:
        if self.state == "preparing":  # (the timer runs only while the preview is seen)
            self.load()  # the same item: the service may have the file by now

    def _cancel(self) -> None:
        for task in (self._task, self._still_task):
            if task is not None and not task.done():
                task.cancel()
        self._task = self._still_task = None

    def _reconnected(self) -> None:
        if self.state in ("offline", "failed") and self.isVisible():
            self.load()  # the service is back: the file can be had now

    # --- loading ------------------------------------------------------------------------------------------

    async def _load(self, epoch: int, media_id: str) -> None:
        def progress(received: int, total: int | None) -> None:
            if epoch != self._epoch:
                return
            if total:
                self.progress.setRange(0, 100)
                self.progress.setValue(received * 100 // total)
                self.status.setText(f"Downloading… {received * 100 // total}%")
            else:
                self.status.setText(f"Downloading… {received / 1_000_000:.1f} MB")

        try:
            answer = await self.files.fetch(self.kind, media_id, progress=progress)
        except (CastdeckError, OSError) as error:
            if epoch == self._epoch:
                self.answer = error
                offline = isinstance(error, MediaFileError) and error.offline
                self._set_state("offline" if offline else "failed")
                self._describe()
            return
        if epoch != self._epoch:
            return  # an older request: a newer one decides what is shown
        self.answer = answer
        if not isinstance(answer, MediaFile):
            self._set_state("preparing" if isinstance(answer, Preparing) else "unavailable")
            if isinstance(answer, Preparing):
                delay = self.recheck_after[min(self._rechecks, len(self.recheck_after) - 1)]
                self._rechecks += 1
                self._recheck_in = delay
                if self.isVisible():  # else showing it again asks (showEvent)
                    self._recheck.start(round(delay * 1000))
            self._describe()
            return
        self.file = answer
        if not answer.from_cache:
            self.stills.forget(media_id)  # a new file: its still is made from it
            self.video.set_still(None)
        if self.playback is not None:
            self.playback.load(answer.path)
        self._set_state("ready")
        self._describe()
        if self.video.still is None and (self._still_task is None or self._still_task.done()):
            self._still_task = self._start(self._show_still(epoch, media_id), "show a still")

    async def _show_still(self, epoch: int, media_id: str) -> None:
        """The kept still, read from disk; when there is none and the file is here, it is made
        (:meth:`_still_arrived` then shows it)."""
        image = await self.stills.full_image(media_id)
        if epoch != self._epoch:
            return
        if image is not None:
            self.video.set_still(image)
            self._describe()
        elif self.state == "ready":
            self.stills.request(media_id, now=True)

    def _still_arrived(self, media_id: str) -> None:
        if media_id != self.media_id or self.video.still is not None or self.state != "ready":
            return
        if self._still_task is None or self._still_task.done():
            self._still_task = self._start(self._show_still(self._epoch, media_id), "show a still")

    # --- what is said -------------------------------------------------------------------------------------

    def _set_state(self, state: str) -> None:
        if state != "loading":
            self.progress.hide()
        for bar in (self.player_bar, self.player_missing):
            if bar is not None:
                bar.setVisible(state in ("loading", "ready"))
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)

    def _describe(self) -> None:
        """Say the current state in the area, the status line and the accessible texts."""
        item, state, noun = self.item, self.state, self.noun
        title = (item.title if item is not None else None) or f"this {noun}"
        self.video.setAccessibleDescription(
            f"Still from {title}" if self.video.still is not None else f"Picture of {title}"
        )
        self.video.setToolTip(
            f"{title}: click or press Space to play or pause"
            if self.playback is not None
            else f"{title}: {self.player_problem}"
        )
        if state == "ready" and self.file is not None:
            self.area.setCurrentWidget(self.video)
            self.video.set_text(
                "" if self.playback is not None else "Castdeck cannot play it on this computer: see below."
            )
            if self.file.offline:
                short, full = "Offline copy", "Offline: played from this computer's copy of the file."
            elif self.file.from_cache:
                short, full = (
                    "This computer's copy",
                    "Played from the copy of the file kept on this computer.",
                )
            else:
                origin = self.file.origin if self.file.origin not in (None, "storage") else "the service"
                short, full = (
                    "Downloaded",
                    f"Downloaded from {origin}; kept on this computer (it plays offline too).",
                )
            self.status.setText(short)
            self.status.setToolTip(full)
            self.status.setAccessibleDescription(full)
            return
        if state not in HEADLINES:
            return
        headline, shade = HEADLINES[state]
        self.headline.setText(headline)
        self.headline.setStyleSheet(f"color: {tone(shade, self.palette())}; font-weight: bold;")
        studio = item.studio_url if item is not None else None
        button = ""
        if state == "preparing":
            reason = self.answer.reason if isinstance(self.answer, Preparing) else None
            seconds = max(1, round(self._recheck_in)) if self._recheck.isActive() else None
            later = f" Castdeck checks again in {seconds} s." if seconds else ""
            text = f"The service is still preparing this file ({preparing_text(reason)}).{later}"
            button = "Check again"
        elif state == "unavailable":
            text = "No downloadable file: open it in the studio."
        elif state == "offline":
            text = str(self.answer) if isinstance(self.answer, CastdeckError) else "Offline."
            button = "Retry"
        else:
            why = (
                describe_error(self.answer)[0] if isinstance(self.answer, BaseException) else "unknown error"
            )
            text = f"The {noun} file could not be downloaded: {why}"
            button = "Retry"
        self.message.setText(text)
        self.action_button.setText(button)
        self.action_button.setAccessibleName(f"{button} ({noun} file)" if button else "")
        self.action_button.setVisible(bool(button))
        self._set_studio(studio if state == "unavailable" else None)
        self.status.setText("")
        self.status.setToolTip("")
        self.area.setCurrentWidget(self.notice)

    def _set_studio(self, url: str | None) -> None:
        label = self.studio_link
        if url:
            safe = url.replace('"', "%22").replace("<", "%3C")
            color = self.palette().color(QPalette.ColorRole.Link).name()
            label.setText(f'<a href="{safe}" style="color: {color};">Open in the studio</a>')
            label.setToolTip(url)
        label.setVisible(bool(url))

    # --- playing ------------------------------------------------------------------------------------------

    def _clicked(self) -> None:
        if self.state == "ready" and self.playback is not None:
            self.playback.toggle()

    def _playing_changed(self, playing: bool) -> None:
        title = (self.item.title if self.item is not None else None) or self.noun
        self.video.setAccessibleDescription(f"Playing {title}" if playing else f"Paused: {title}")

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        height = min(max(self.width() * 9 // 16, 150), MAX_AREA_HEIGHT)
        if self.area.height() != height:
            self.area.setFixedHeight(height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.state in HEADLINES:
            self._describe()  # the headline's colour follows the palette

    def hideEvent(self, event: QHideEvent) -> None:
        if self.playback is not None and self.playback.playing:
            self.playback.pause()  # the pane was left or closed: nothing plays unseen
        # Nobody sees it: no asking again for a file being prepared (and nothing left ticking when
        # the window closes); showing it again asks at once.
        self._recheck.stop()
        super().hideEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.state == "preparing" and not self._recheck.isActive():
            self._recheck.start(0)  # it was out of sight when its next ask came due

    def release(self) -> None:
        """The pane goes away: stop and end the video worker."""
        self.leave()
        self.video.release()
