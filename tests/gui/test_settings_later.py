"""Settings changed often (the volume, a pane's view, the upload concurrency, the first steps) are
written off the UI thread (``castdeck.services.settings_later``): a QSettings write ends in two
``fdatasync`` calls, which took up to half a second under disk load."""

from __future__ import annotations

import configparser
import threading
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QAbstractSlider
from pytestqt.qtbot import QtBot

from castdeck.services import settings_later
from castdeck.ui.listen.playback import Playback
from castdeck.ui.listen.player_bar import VOLUME_KEY, PlayerBar


def settings_file() -> Path:
    return Path(QSettings().fileName())


def on_disk(key: str) -> str | None:
    """``key`` as the settings file on disk holds it (QSettings objects in one process share what
    they hold in memory: the file itself is read here)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(settings_file(), encoding="utf-8")
    section, name = key.split("/")
    return parser.get(section, name, fallback=None)


def test_a_remembered_value_is_answered_at_once_and_written_by_another_thread() -> None:
    before = len(settings_later.writes())
    for step in range(50):
        settings_later.remember("test/number", step)
        assert settings_later.recall("test/number") == step
    settings_later.remember("test/text", "last")

    assert settings_later.flush()
    assert on_disk("test/number") == "49"
    assert on_disk("test/text") == "last"
    done = settings_later.writes()[before:]
    assert done, "nothing was written"
    assert {ident for ident, _ in done}.isdisjoint({threading.get_ident()})


def test_recall_falls_back_to_the_settings_and_the_default() -> None:
    QSettings().setValue("test/stored", "kept")
    assert settings_later.recall("test/stored", "default") == "kept"
    assert settings_later.recall("test/missing", "default") == "default"
    given = QSettings(str(settings_file().with_name("other.ini")), QSettings.Format.IniFormat)
    given.setValue("test/stored", "other")
    assert settings_later.recall("test/stored", None, given) == "other"


def test_dragging_the_volume_writes_nothing_on_the_ui_thread(qtbot: QtBot) -> None:
    playback = Playback()
    bar = PlayerBar(playback)
    qtbot.addWidget(bar)
    bar.show()
    assert settings_later.flush()
    path = settings_file()
    before = path.read_bytes() if path.exists() else b""
    written = len(settings_later.writes())

    for _ in range(30):  # a drag (or an arrow key held down): dozens of values, one after the other
        bar.volume.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepSub)
    assert bar.volume.value() == 50
    assert playback.output.volume() == 0.5
    assert settings_later.recall(VOLUME_KEY) == 50

    again = PlayerBar(Playback())  # another player made now opens at the volume just chosen
    qtbot.addWidget(again)
    assert again.volume.value() == 50

    assert settings_later.flush()
    assert on_disk(VOLUME_KEY) == "50"
    assert path.read_bytes() != before
    done = settings_later.writes()[written:]
    assert done and all(ident != threading.get_ident() for ident, _ in done)
