"""The typed settings (``castdeck.services.settings``): each value read as its type whatever the
file holds, kept across starts, and written off the UI thread (a QSettings write ends in two
``fdatasync`` calls, which took up to half a second under disk load)."""

from __future__ import annotations

import configparser
import threading
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QAbstractSlider
from pytestqt.qtbot import QtBot

from castdeck.services.settings import RENDER_KEY, VOLUME_KEY, Settings
from castdeck.ui.listen.playback import Playback
from castdeck.ui.listen.player_bar import PlayerBar


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
    settings = Settings()
    for step in range(50):
        settings.remember("test/number", step)
        assert settings.recall("test/number") == step
    settings.remember("test/text", "last")

    assert settings.flush()
    assert on_disk("test/number") == "49"
    assert on_disk("test/text") == "last"
    done = settings.writes()
    assert done, "nothing was written"
    assert {ident for ident, _ in done}.isdisjoint({threading.get_ident()})


def test_recall_falls_back_to_the_settings_and_the_default() -> None:
    QSettings().setValue("test/stored", "kept")
    settings = Settings()
    assert settings.recall("test/stored", "default") == "kept"
    assert settings.recall("test/missing", "default") == "default"
    other = settings_file().with_name("other.ini")
    given = Settings(lambda: QSettings(str(other), QSettings.Format.IniFormat))
    given.qsettings().setValue("test/stored", "other")
    assert given.recall("test/stored") == "other"


def test_each_value_reads_as_its_type_whatever_the_file_holds() -> None:
    """An edited (or older) settings file holds text where a number or a choice was: each reads
    as the default, or clamped into its range, never as something the widgets cannot take."""
    file = QSettings()
    for key, text in (("listen/volume", "loud"), ("uploads/concurrency", "99"), ("panes/episode/view", "grid"),
                      ("media/cache_megabytes", "2"), ("firstrun/steps_done", "hosts,,podcast"),
                      ("firstrun/guide_dismissed", "true"), ("scripts/last_podcast", "")):  # fmt: skip
        file.setValue(key, text)
    settings = Settings()
    assert settings.volume == 80
    assert settings.upload_concurrency(2) == 8
    assert settings.pane_view("episode") == "table"
    assert settings.media_cache_megabytes == 16
    assert settings.steps_done == {"hosts", "podcast"}
    assert settings.guide_dismissed is True
    assert settings.last_podcast is None
    assert settings.splitter_state("episode") is None
    settings.set_splitter_state("episode", QByteArray(b"\x00\xff"))
    assert settings.splitter_state("episode") == QByteArray(b"\x00\xff")
    settings.set_pane_view("episode", "cards")
    settings.set_steps_done(["hosts", "podcast", "episode"])
    assert settings.flush()
    again = Settings()  # the next start
    assert again.pane_view("episode") == "cards"
    assert again.steps_done == {"hosts", "podcast", "episode"}


def test_rendering_is_on_until_turned_off_and_the_choice_survives_a_restart() -> None:
    settings = Settings()
    assert settings.render_on_send is True  # never chosen
    settings.set_render_on_send(False)
    assert settings.render_on_send is False
    assert settings.flush()
    assert QSettings().value(RENDER_KEY) in (False, "false")  # on disk, read back as an INI file reads it
    assert Settings().render_on_send is False
    settings.set_render_on_send(True)
    assert settings.flush()
    assert Settings().render_on_send is True
    QSettings().setValue(RENDER_KEY, "off")  # as text, from an edited file
    assert Settings().render_on_send is False


def test_the_welcome_is_written_at_once() -> None:
    """The welcome's answer is read by the next start: written before the call returns."""
    settings = Settings()
    settings.mark_welcome_done(sandbox=True)
    assert on_disk("firstrun/welcome_done") == "true" and on_disk("firstrun/sandbox_chosen") == "true"
    assert Settings().welcome_done


def test_dragging_the_volume_writes_nothing_on_the_ui_thread(qtbot: QtBot) -> None:
    settings = Settings()
    playback = Playback()
    bar = PlayerBar(playback, settings)
    qtbot.addWidget(bar)
    bar.show()
    path = settings_file()
    before = path.read_bytes() if path.exists() else b""

    for _ in range(30):  # a drag (or an arrow key held down): dozens of values, one after the other
        bar.volume.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepSub)
    assert bar.volume.value() == 50
    assert playback.output.volume() == 0.5
    assert settings.recall(VOLUME_KEY) == 50

    again = PlayerBar(Playback(), settings)  # another player made now opens at the volume just chosen
    qtbot.addWidget(again)
    assert again.volume.value() == 50

    assert settings.flush()
    assert on_disk(VOLUME_KEY) == "50"
    assert path.read_bytes() != before
    done = settings.writes()
    assert done and all(ident != threading.get_ident() for ident, _ in done)
