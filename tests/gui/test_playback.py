"""``Playback``'s commands reach the player from the event loop, never inside the Python call.

PySide holds the interpreter lock through QMediaPlayer's calls (all but ``setSource``), and the
FFmpeg backend's threads sometimes need that lock while a seek or a stop waits on them: a seek
from the player's keys once froze the window for good. These tests hold the rule that prevents
it, and what a listener sees because of it (two quick presses of play come back to the start).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QPalette
from pytestqt.qtbot import QtBot

from castdeck.ui import multimedia
from castdeck.ui.listen.playback import Playback
from castdeck.ui.listen.player_bar import PlayerBar
from tests.gui.conftest import until
from tests.helpers import mp3_bytes
from tests.runner import RUNTIME

QMediaPlayer = multimedia.require().QMediaPlayer


async def load(tmp_path: Path) -> Playback:
    path = tmp_path / "tone.mp3"
    path.write_bytes(mp3_bytes(seconds=30.0))
    playback = Playback()
    playback.load(path)
    await until(lambda: playback.duration > 29)
    return playback


@pytest.mark.asyncio
async def test_each_command_runs_from_the_event_loop_after_the_call_returns(tmp_path: Path) -> None:
    loaded = await load(tmp_path)
    player = loaded.player
    Playing = QMediaPlayer.PlaybackState.PlayingState

    loaded.play()
    assert player.playbackState() != Playing  # asked for, not yet run
    await until(lambda: player.playbackState() == Playing)
    await until(lambda: loaded.position() > 0.2)

    loaded.seek(20.0)
    assert loaded.position() == pytest.approx(20.0, abs=0.05)  # the clock moves at once
    assert player.position() < 15_000  # the player has not been asked yet
    await until(lambda: player.position() >= 20_000)

    loaded.set_rate(1.5)
    assert player.playbackRate() == 1.0 and loaded.rate == 1.5
    await until(lambda: player.playbackRate() == 1.5)

    loaded.pause()
    assert player.playbackState() == Playing
    await until(lambda: player.playbackState() == QMediaPlayer.PlaybackState.PausedState)

    loaded.stop()
    await until(lambda: player.playbackState() == QMediaPlayer.PlaybackState.StoppedState)
    loaded.close()
    assert player.source().isEmpty()


@pytest.mark.asyncio
async def test_two_quick_presses_of_play_come_back_to_where_they_began(tmp_path: Path) -> None:
    loaded = await load(tmp_path)
    changes: list[bool] = []
    loaded.playingChanged.connect(changes.append)

    loaded.toggle()
    loaded.toggle()  # before the player ran the first: this one pauses what the first started
    await until(lambda: loaded.commands_pending == 0)
    await until(lambda: len(changes) >= 2)
    assert changes == [True, False]
    assert not loaded.playing

    loaded.toggle()
    await until(lambda: loaded.playing)
    loaded.toggle()
    loaded.toggle()  # pause, then play again
    await until(lambda: loaded.commands_pending == 0)
    await until(lambda: changes[-1:] == [True])
    assert loaded.playing
    loaded.close()


@pytest.mark.asyncio
async def test_skipping_is_offered_only_where_it_moves_and_the_icons_follow_the_bar(
    qtbot: QtBot, tmp_path: Path
) -> None:
    loaded = Playback()
    bar = PlayerBar(loaded, RUNTIME.settings)
    qtbot.addWidget(bar)
    bar.show()
    path = tmp_path / "tone.mp3"
    path.write_bytes(mp3_bytes(seconds=30.0))
    loaded.load(path)
    await until(bar.isEnabled)  # enabled once the length is known
    back, forward = bar.back_button, bar.forward_button
    # at 0:00 going back would do nothing: disabled, and it says why
    assert not back.isEnabled() and back.toolTip() == "Back 10 seconds (J): already at the start"
    assert forward.isEnabled() and forward.toolTip() == "Forward 10 seconds (L)"
    # the icons were drawn while the bar was disabled: in the enabled colour all the same
    normal = forward.icon().pixmap(22, 22, QIcon.Mode.Normal).toImage()
    text = bar.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText)
    assert normal.pixelColor(11, 11).alpha() == 255 and normal.pixelColor(11, 11).rgb() == text.rgb()

    qtbot.mouseClick(forward, Qt.MouseButton.LeftButton)
    await until(lambda: loaded.position() == pytest.approx(10.0, abs=0.05))
    assert back.isEnabled() and back.toolTip() == "Back 10 seconds (J)"
    loaded.seek(loaded.duration)
    assert not forward.isEnabled() and forward.toolTip() == "Forward 10 seconds (L): already at the end"
    qtbot.mouseClick(back, Qt.MouseButton.LeftButton)
    await until(lambda: loaded.position() == pytest.approx(loaded.duration - 10.0, abs=0.05))
    assert forward.isEnabled() and back.isEnabled()
    await until(lambda: loaded.commands_pending == 0)
    loaded.close()
