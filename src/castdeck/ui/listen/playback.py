"""``Playback``: QMediaPlayer and QAudioOutput behind a position clock that runs between reports.

Qt reports the playback position every 50 to 100 ms depending on the backend. The clock keeps
the last reported position and a monotonic timer, and while (and only while) playing, a ~16 ms
precise frame timer emits the extrapolated position (:attr:`Playback.frame`), so a transcript
can light up each word as it is heard. The position never steps back by itself (a late report
does not make the highlight flicker); only a seek moves it backwards.

Audio devices come and go (headphones unplugged): the output follows the system's default
device; when no device is left, playback pauses with a message. Without any audio device at
all (a CI machine) the backend plays silently and positions still advance.

The player's commands (play, pause, stop, seek, speed) run from the event loop, never from the
Python call that asks for them: see :func:`queued`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    Q_ARG,
    QElapsedTimer,
    QGenericArgumentHolder,
    QMetaObject,
    QObject,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)

from .. import multimedia

if TYPE_CHECKING:
    from ..multimedia import QAudioDevice, QAudioOutput, QMediaDevices, QMediaPlayer

__all__ = ["FRAME_MS", "SPEEDS", "Playback", "queued"]

log = logging.getLogger(__name__)

FRAME_MS = 16
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)
SEEK_BACK_TOLERANCE = 0.25
"""A report this far behind the clock is a late report, not a jump: the clock does not step back."""
SEEK_SETTLE_MS = 400
"""Right after a seek the backend may still report the old position once: such reports (far from
where the seek went) are ignored for this long."""


def queued(player: QMediaPlayer, command: str, *args: QGenericArgumentHolder) -> None:
    """Have ``player`` run ``command`` (a slot: ``play``, ``setPosition``...) from the event loop.

    PySide holds the interpreter lock through every QMediaPlayer call except ``setSource``. The
    FFmpeg backend's threads sometimes need that lock for a moment: Qt calls virtual methods of
    the Python-made player, sink and output from those threads, and each first call looks for a
    Python override. A seek or a stop waits on those threads, so calling one from Python could
    freeze the window for good (a seek from the player's keys did, in a test run). Run from the
    event loop, the command holds no Python lock.
    """
    # (PySide's stubs name the method as bytes; at run time it must be a str)
    QMetaObject.invokeMethod(player, command, Qt.ConnectionType.QueuedConnection, *args)  # type: ignore[call-overload]


class Playback(QObject):
    frame = Signal(float)
    """The extrapolated position in seconds: every frame while playing, and after every seek."""
    playingChanged = Signal(bool)
    durationChanged = Signal(float)
    message = Signal(str)
    """Something the listener should know (device changes, a file that cannot be played)."""

    def __init__(self, parent: QObject | None = None, *, noun: str = "audio") -> None:
        """``noun`` names what is played in messages ("The audio cannot be played")."""
        super().__init__(parent)
        qt = multimedia.require()  # raises MultimediaMissing: build a Playback only where it loads
        self.noun = noun
        self._player_type: type[QMediaPlayer] = qt.QMediaPlayer
        self.player: QMediaPlayer = qt.QMediaPlayer(self)
        self.output: QAudioOutput = qt.QAudioOutput(self)
        self.player.setAudioOutput(self.output)
        self.devices: QMediaDevices = qt.QMediaDevices(self)
        self.list_outputs: Callable[[], list[Any]] = qt.QMediaDevices.audioOutputs
        self.default_output: Callable[[], Any] = qt.QMediaDevices.defaultAudioOutput
        self._device_id = bytes(self.output.device().id().data())
        self.devices.audioOutputsChanged.connect(self.outputs_changed)
        self.timer = QTimer(self)
        self.timer.setObjectName("transcript frame timer")
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._frame)
        self._clock = QElapsedTimer()
        self._since_seek = QElapsedTimer()
        self._reported = 0.0
        self._floor = 0.0
        self._duration = 0.0
        self._rate = 1.0
        self._sending = 0
        """Commands asked for that the player has not run yet (see :func:`queued`)."""
        self._wanted_playing = False
        """Whether the last play, pause or stop asked the player to play."""
        self.player.positionChanged.connect(self._reported_position)
        self.player.durationChanged.connect(self._duration_changed)
        self.player.playbackStateChanged.connect(self._state_changed)
        self.player.errorOccurred.connect(self._error)
        self.player.mediaStatusChanged.connect(self._status_changed)
        self._keep_pitch()

    # --- state ---------------------------------------------------------------------------------------------

    @property
    def playing(self) -> bool:
        return self.player.playbackState() == self._player_type.PlaybackState.PlayingState

    @property
    def commands_pending(self) -> int:
        """Commands asked for that the player has not run yet (see :func:`queued`)."""
        return self._sending

    @property
    def duration(self) -> float:
        return self._duration

    @property
    def rate(self) -> float:
        return self._rate

    def position(self) -> float:
        """Seconds: the last report plus the time since, at the playback rate, while playing."""
        if not self.playing or not self._clock.isValid():
            return self._reported
        now = self._reported + self._clock.elapsed() / 1000.0 * self._rate
        if self._duration:
            now = min(now, self._duration)
        return max(now, self._floor)

    # --- commands ------------------------------------------------------------------------------------------

    def _send(self, command: str, *args: QGenericArgumentHolder) -> None:
        self._sending += 1
        queued(self.player, command, *args)
        QMetaObject.invokeMethod(self, "_sent", Qt.ConnectionType.QueuedConnection)  # type: ignore[call-overload]

    @Slot()
    def _sent(self) -> None:
        self._sending -= 1

    def load(self, path: Path) -> None:
        """Play ``path`` from the start (stopped until :meth:`play`); a new source stops the old one."""
        self.timer.stop()
        self._reported = self._floor = 0.0
        self._wanted_playing = False
        self.player.setSource(QUrl.fromLocalFile(str(path)))  # PySide lets the lock go here

    def play(self) -> None:
        if self._duration and self.position() >= self._duration - 0.05:
            self.seek(0.0)
        self._wanted_playing = True
        self._send("play")

    def pause(self) -> None:
        self._wanted_playing = False
        self._send("pause")

    def toggle(self) -> None:
        """Pause when playing, else play. A second press before the player ran the first acts on
        what the first asked for, so two quick presses come back to where they began."""
        if self._wanted_playing if self._sending else self.playing:
            self.pause()
        else:
            self.play()

    def stop(self) -> None:
        self._wanted_playing = False
        self._send("stop")
        self.timer.stop()

    def seek(self, seconds: float) -> None:
        """Move to ``seconds`` (clamped to the audio); the only way the position is set."""
        upper = self._duration if self._duration else max(seconds, 0.0)
        seconds = min(max(seconds, 0.0), upper)
        self._send("setPosition", Q_ARG("qint64", round(seconds * 1000)))
        self._reported = self._floor = seconds
        self._clock.restart()
        self._since_seek.restart()
        self.frame.emit(seconds)

    def skip(self, delta: float) -> None:
        self.seek(self.position() + delta)

    def set_rate(self, rate: float) -> None:
        rate = min(max(rate, SPEEDS[0]), SPEEDS[-1])
        self._reported = self.position()
        self._clock.restart()
        self._rate = rate
        self._send("setPlaybackRate", Q_ARG(float, rate))

    def set_volume(self, volume: float) -> None:
        self.output.setVolume(min(max(volume, 0.0), 1.0))

    def set_muted(self, muted: bool) -> None:
        self.output.setMuted(muted)

    def pitch_kept(self) -> bool:
        return bool(getattr(self.player, "pitchCompensation", lambda: False)())

    def close(self) -> None:
        """Stop playing and release the file (the window closes)."""
        self.timer.stop()
        self._wanted_playing = False
        self.player.setSource(QUrl())  # stops; PySide lets the lock go here

    # --- reports from the backend ----------------------------------------------------------------------------

    def _keep_pitch(self) -> None:
        """Speed changes keep the voice's pitch where Qt offers it (Qt 6.10 and later)."""
        setter = getattr(self.player, "setPitchCompensation", None)
        availability = getattr(self.player, "pitchCompensationAvailability", None)
        if setter is None or availability is None:
            return
        if availability() != self._player_type.PitchCompensationAvailability.Unavailable:
            setter(True)

    def _reported_position(self, millis: int) -> None:
        seconds = millis / 1000.0
        settling = self._since_seek.isValid() and self._since_seek.elapsed() < SEEK_SETTLE_MS
        if settling and abs(seconds - self.position()) > 2 * SEEK_BACK_TOLERANCE:
            return  # the position from before the seek, reported late
        if self.playing:
            ahead = self.position()
            if ahead - SEEK_BACK_TOLERANCE < seconds < ahead:
                self._floor = ahead  # a late report: keep going from where the clock is
            else:
                self._floor = 0.0 if seconds < ahead else seconds
        else:
            self._floor = 0.0
        self._reported = seconds
        self._clock.restart()
        if not self.playing:
            self.frame.emit(seconds)

    def _frame(self) -> None:
        seconds = self.position()
        self._floor = seconds
        self.frame.emit(seconds)

    def _duration_changed(self, millis: int) -> None:
        self._duration = millis / 1000.0
        self.durationChanged.emit(self._duration)

    def _state_changed(self, state: QMediaPlayer.PlaybackState) -> None:
        playing = state == self._player_type.PlaybackState.PlayingState
        self._reported = self.player.position() / 1000.0 if not playing else self._reported
        self._clock.restart()
        if playing:
            self.timer.start()
        else:
            self.timer.stop()
            self._floor = 0.0
            self.frame.emit(self.position())
        self.playingChanged.emit(playing)

    def _status_changed(self, status: QMediaPlayer.MediaStatus) -> None:
        if status == self._player_type.MediaStatus.EndOfMedia:
            self._reported = self._duration
            self.frame.emit(self._duration)

    def _error(self, _error: QMediaPlayer.Error, text: str) -> None:
        log.warning("playback error: %s", text)
        self.message.emit(f"The {self.noun} cannot be played: {text or 'unknown error'}")

    # --- audio devices ---------------------------------------------------------------------------------------

    def outputs_changed(self) -> None:
        """The system's audio outputs changed: follow the new default device, or pause (with a
        message) when the device in use went away and none is left."""
        default = self.default_output()
        current = self._device_id
        ids = [bytes(device.id().data()) for device in self.list_outputs()]
        if default is None or default.isNull():
            if current and current not in ids:
                was_playing = self.playing
                self._device_id = b""
                if was_playing:
                    self.pause()
                self.message.emit(
                    "The audio device was disconnected"
                    + ("; playback paused. Press play to go on." if was_playing else ".")
                )
            return
        new = bytes(default.id().data())
        if new == current:
            return
        self._use(default)
        self._device_id = new
        self.message.emit(f"Playing on {default.description() or 'the default audio device'}.")

    def _use(self, device: QAudioDevice) -> None:
        self.output.setDevice(device)
