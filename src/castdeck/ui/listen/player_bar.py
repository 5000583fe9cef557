"""The player's controls: play/pause, skip back and forward, a seek bar with elapsed and total
time, speed (0.5x to 2x) and volume. The bar only shows the playback's position: it sets the
position only when the listener seeks, and updates itself with its signals blocked."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractSlider,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.settings import Settings

from ..accessible import shows_value
from .icons import media_icon
from .playback import SPEEDS, Playback

__all__ = ["ARROW_SECONDS", "SKIP_SECONDS", "PlayerBar", "player_shortcuts", "time_text"]

SKIP_SECONDS = 10.0
ARROW_SECONDS = 5.0
SLIDER_UNITS_PER_SECOND = 10
AT_EDGE = 0.05
"""Seconds from the start or the end within which skipping that way would do nothing."""
BACK_TIP = "Back 10 seconds (J)"
FORWARD_TIP = "Forward 10 seconds (L)"


def time_text(seconds: float, *, hours: bool = False) -> str:
    whole = max(int(seconds), 0)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h or hours else f"{m:02d}:{s:02d}"


def player_shortcuts(
    playback: Playback, owner: QWidget, context: Qt.ShortcutContext = Qt.ShortcutContext.WindowShortcut
) -> list[QShortcut]:
    """The player's keys on ``owner``: Space or K play and pause, J and L go back and forward 10
    seconds, Left and Right 5 seconds (``context``: where they apply, the whole window by default)."""
    made = []
    for keys, slot in (
        ("Space", playback.toggle),
        ("K", playback.toggle),
        ("J", lambda: playback.skip(-SKIP_SECONDS)),
        ("L", lambda: playback.skip(SKIP_SECONDS)),
        ("Left", lambda: playback.skip(-ARROW_SECONDS)),
        ("Right", lambda: playback.skip(ARROW_SECONDS)),
    ):
        shortcut = QShortcut(QKeySequence(keys), owner)
        shortcut.setContext(context)
        shortcut.activated.connect(slot)
        made.append(shortcut)
    return made


class PlayerBar(QWidget):
    def __init__(
        self, playback: Playback, settings: Settings, parent: QWidget | None = None, *, compact: bool = False
    ) -> None:
        """``compact``: speed and volume on a second row (a narrow place, such as a pane's details).
        ``settings``: where the volume is kept (the next player opens at it)."""
        super().__init__(parent)
        self.playback = playback
        self.settings = settings
        self.setObjectName("player_bar")
        if compact:
            rows = QVBoxLayout(self)
            rows.setContentsMargins(0, 2, 0, 2)
            rows.setSpacing(0)
            layout = QHBoxLayout()
            second = QHBoxLayout()
            rows.addLayout(layout)
            rows.addLayout(second)
            second.addStretch(1)  # where a compact bar has room for its owner's text (insert at 0)
            for row in (layout, second):
                row.setSpacing(6)
        else:
            layout = second = QHBoxLayout(self)
            layout.setContentsMargins(8, 6, 8, 6)
            layout.setSpacing(6)
        self.second_row = second

        def tool(icon: str, name: str, tip: str, row: QHBoxLayout = layout) -> QToolButton:
            button = QToolButton(self)
            button.setProperty("mediaIcon", icon)
            button.setIcon(media_icon(icon, self.palette()))
            button.setIconSize(QSize(22, 22))
            button.setAutoRaise(True)
            button.setAccessibleName(name)
            button.setToolTip(tip)
            row.addWidget(button)
            return button

        self.back_button = tool("back", "Back 10 seconds", BACK_TIP)
        self.play_button = tool("play", "Play", "Play or pause (Space, K)")
        self.play_button.setIconSize(QSize(30, 30))
        self.forward_button = tool("forward", "Forward 10 seconds", FORWARD_TIP)
        self._edges: tuple[bool, bool] | None = None
        """Whether the position is at the start, at the end, as the skip buttons last said."""
        self.elapsed = QLabel("00:00", self)
        shows_value(self.elapsed, "Elapsed time")
        self.elapsed.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.elapsed.setMinimumWidth(self.fontMetrics().horizontalAdvance("0:00:00") + 4)
        layout.addWidget(self.elapsed)
        self.seek_bar = QSlider(Qt.Orientation.Horizontal, self)
        self.seek_bar.setAccessibleName("Playback position")
        self.seek_bar.setToolTip("Seek (Left and Right: 5 seconds)")
        self.seek_bar.setRange(0, 0)
        self.seek_bar.setSingleStep(5 * SLIDER_UNITS_PER_SECOND)
        self.seek_bar.setPageStep(30 * SLIDER_UNITS_PER_SECOND)
        self.seek_bar.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout.addWidget(self.seek_bar, 1)
        self.total = QLabel("00:00", self)
        shows_value(self.total, "Total time")
        self.total.setMinimumWidth(self.elapsed.minimumWidth())
        layout.addWidget(self.total)
        second.addSpacing(8)
        self.speed = QComboBox(self)
        self.speed.setAccessibleName("Playback speed")
        for rate in SPEEDS:
            self.speed.addItem(f"{rate:g}×", rate)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        second.addWidget(self.speed)
        self.mute_button = tool("volume", "Mute", "Mute or unmute", second)
        self.mute_button.setIconSize(QSize(20, 20))
        self.mute_button.setCheckable(True)
        self.volume = QSlider(Qt.Orientation.Horizontal, self)
        self.volume.setAccessibleName("Volume")
        self.volume.setToolTip("Volume")
        self.volume.setRange(0, 100)
        self.volume.setFixedWidth(96)
        self.volume.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        second.addWidget(self.volume)
        self.volume.setValue(settings.volume)
        playback.set_volume(self.volume.value() / 100)
        self.speed.setToolTip(
            "Playback speed; the voice keeps its pitch"
            if playback.pitch_kept()
            else "Playback speed (this system changes the pitch with the speed)"
        )

        self._shown_units = -(10**9)
        self._shown_second = -1
        self.play_button.clicked.connect(playback.toggle)
        self.back_button.clicked.connect(lambda: playback.skip(-SKIP_SECONDS))
        self.forward_button.clicked.connect(lambda: playback.skip(SKIP_SECONDS))
        self.seek_bar.actionTriggered.connect(self._slider_action)
        self.seek_bar.sliderReleased.connect(self._slider_released)
        self.seek_bar.sliderMoved.connect(lambda value: self._show_elapsed(value / SLIDER_UNITS_PER_SECOND))
        self.speed.currentIndexChanged.connect(lambda _i: playback.set_rate(float(self.speed.currentData())))
        self.volume.valueChanged.connect(self._volume_changed)
        self.mute_button.toggled.connect(self._mute)
        playback.playingChanged.connect(self._playing_changed)
        playback.durationChanged.connect(self._duration_changed)
        playback.frame.connect(self.show_position)
        self.setEnabled(False)

    # --- from the playback ---------------------------------------------------------------------------------

    def show_position(self, seconds: float) -> None:
        if self.seek_bar.isSliderDown():
            return
        units = int(seconds * SLIDER_UNITS_PER_SECOND)
        # move the handle only when it moves by a pixel (a long episode's bar barely moves a second)
        per_pixel = max(self.seek_bar.maximum() // max(self.seek_bar.width(), 1), 1)
        if abs(units - self._shown_units) >= per_pixel:
            self._shown_units = units
            blocked = self.seek_bar.blockSignals(True)
            self.seek_bar.setValue(units)
            self.seek_bar.blockSignals(blocked)
        self._show_elapsed(seconds)
        self._show_edges(seconds)

    def _show_edges(self, seconds: float) -> None:
        """Back at the start, or Forward at the end, would do nothing: each is disabled there and
        says why."""
        duration = self.playback.duration
        edges = (seconds <= AT_EDGE, duration > 0 and seconds >= duration - AT_EDGE)
        if edges == self._edges:
            return
        self._edges = edges
        at_start, at_end = edges
        self.back_button.setEnabled(not at_start)
        self.back_button.setToolTip(BACK_TIP + (": already at the start" if at_start else ""))
        self.forward_button.setEnabled(not at_end)
        self.forward_button.setToolTip(FORWARD_TIP + (": already at the end" if at_end else ""))

    def _show_elapsed(self, seconds: float) -> None:
        second = int(seconds)
        if second != self._shown_second:
            self._shown_second = second
            self.elapsed.setText(time_text(seconds, hours=self.playback.duration >= 3600))

    def _duration_changed(self, seconds: float) -> None:
        self.setEnabled(seconds > 0)
        blocked = self.seek_bar.blockSignals(True)
        self.seek_bar.setRange(0, int(seconds * SLIDER_UNITS_PER_SECOND))
        self.seek_bar.blockSignals(blocked)
        self.total.setText(time_text(seconds, hours=seconds >= 3600))
        self._shown_second = -1
        self._shown_units = -(10**9)
        self._show_elapsed(self.playback.position())
        self._show_edges(self.playback.position())

    def _playing_changed(self, playing: bool) -> None:
        self._set_icon(self.play_button, "pause" if playing else "play")
        self.play_button.setAccessibleName("Pause" if playing else "Play")

    # --- from the listener ---------------------------------------------------------------------------------

    def _slider_action(self, action: int) -> None:
        if action in (
            QAbstractSlider.SliderAction.SliderMove.value,
            QAbstractSlider.SliderAction.SliderNoAction.value,
        ):
            return
        self.playback.seek(self.seek_bar.sliderPosition() / SLIDER_UNITS_PER_SECOND)

    def _slider_released(self) -> None:
        self.playback.seek(self.seek_bar.sliderPosition() / SLIDER_UNITS_PER_SECOND)

    def _volume_changed(self, value: int) -> None:
        self.playback.set_volume(value / 100)
        self.settings.set_volume(value)  # written behind: a drag changes it dozens of times
        if value and self.mute_button.isChecked():
            self.mute_button.setChecked(False)

    def _mute(self, muted: bool) -> None:
        self.playback.set_muted(muted)
        self._set_icon(self.mute_button, "muted" if muted else "volume")
        self.mute_button.setAccessibleName("Unmute" if muted else "Mute")

    def _set_icon(self, button: QToolButton, icon: str) -> None:
        button.setProperty("mediaIcon", icon)
        button.setIcon(media_icon(icon, self.palette()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            for button in self.findChildren(QToolButton):
                icon = button.property("mediaIcon")
                if isinstance(icon, str):
                    button.setIcon(media_icon(icon, self.palette()))
