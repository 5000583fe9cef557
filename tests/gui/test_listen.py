"""The Listen window against real sandbox audio: the highlighted word follows the playback, a
click seeks, follow mode pauses when the reader scrolls, search, keyboard, exports read back by
independent parsers, offline playback from the cache, a signed address that stopped working,
and an audio device that goes away."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QAccessible, QColor, QGuiApplication, QPalette, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QLineEdit, QPushButton, QSlider
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.services.tasks import owned_scopes
from castdeck.transcript import normalise
from castdeck.ui import multimedia
from castdeck.ui.listen.listen_window import ListenWindow
from tests.conftest import RunningSandbox
from tests.gui.accessibility import interface_of, problems
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import make_pane
from tests.gui.listen_helpers import generate_spoken_episode, loaded, server_words
from tests.subtitle_parsers import parse_srt, parse_vtt


@pytest.fixture(scope="module")
def spoken(sandbox: RunningSandbox) -> dict[str, Any]:
    return generate_spoken_episode(sandbox, "Listening to the tide")


@pytest.fixture
def episode(spoken: dict[str, Any]) -> Episode:
    return Episode.model_validate(spoken)


async def open_window(qtbot: QtBot, background: Background, episode: Episode, size: tuple[int, int] = (960, 680)) -> ListenWindow:  # fmt: skip
    window = ListenWindow(background.media)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    window.open_episode(episode)
    return await loaded(window)


@pytest.fixture
def light_palette() -> Iterator[None]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.palette()
    yield
    app.setPalette(before)


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, color in (
        (QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed"),
        (QPalette.ColorRole.Base, "#17181a"), (QPalette.ColorRole.AlternateBase, "#2a2b2e"),
        (QPalette.ColorRole.Text, "#e8eaed"), (QPalette.ColorRole.Button, "#2d2e31"),
        (QPalette.ColorRole.ButtonText, "#e8eaed"), (QPalette.ColorRole.Highlight, "#3d6fb6"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.PlaceholderText, "#9aa0a6"),
        (QPalette.ColorRole.Mid, "#5f6368"),
    ):  # fmt: skip
        palette.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b6e73"))
    return palette


# --- playing ---------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_listen_from_the_pane_lights_each_word_as_it_is_heard(
    qtbot: QtBot, session: Session, background: Background, episode: Episode, sandbox: RunningSandbox,
    shot: Any, light_palette: None,
) -> None:  # fmt: skip
    pane = await make_pane(qtbot, session, background)
    pane.reveal(str(episode.id))
    await until(lambda: pane.details.value_of("Episode ID") == str(episode.id))
    listen = await until(lambda: listen_button(pane))
    assert listen.isEnabled()
    shot(pane, "listen-episodes-pane")
    listen.click()
    window = pane.listen_window
    assert window is not None
    await loaded(window)
    truth = normalise(server_words(sandbox, str(episode.id)))
    assert window.view.transcript is not None
    assert [w.text for w in window.view.transcript.words] == [w.text for w in truth.words]
    assert window.title.text() == episode.title
    assert f"{len(truth.words):,} words" in window.status.text()

    seen: list[tuple[float, int, int]] = []  # extrapolated position, highlighted word, backend's position

    def frame(seconds: float) -> None:
        if window.playback.playing:
            seen.append((seconds, window.view.current, window.playback.player.position()))

    window.playback.frame.connect(frame)
    window.playback.play()
    await until(lambda: window.playback.playing)
    await until(lambda: len({index for _, index, _ in seen}) >= 6, timeout=20)
    shot(window, "listen-light")
    window.playback.pause()
    await until(lambda: not window.playback.playing)
    assert seen[-1][0] > seen[0][0] + 0.5  # positions advance (silently, where there is no audio device)
    for seconds, index, _ in seen:
        assert index == truth.word_at(seconds)  # the highlight is the word at the clock, every frame
    for _, index, backend_ms in seen:
        assert abs(index - truth.word_at(backend_ms / 1000)) <= 1  # within one word of what is heard
    indexes = [index for _, index, _ in seen]
    assert indexes == sorted(indexes)  # never steps back while playing
    assert window.view.extraSelections()[-1].cursor.selectedText() == truth.words[window.view.current].text
    window.close()
    assert not window.playback.timer.isActive()
    await until(lambda: window.windowHandle() is None)  # kept hidden without its backing store
    assert pane.listen_current() is window  # closed and opened again: the same window, loaded afresh
    await loaded(window)
    assert window.view.current == -1 and window.view.transcript is not None
    window.close()
    await quiet()  # the pane's reads of the episode (details, analytics) end inside the test


@pytest.mark.asyncio
async def test_dark_palette_mid_playback(
    qtbot: QtBot, background: Background, episode: Episode, shot: Any, light_palette: None
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setPalette(dark_palette())
    window = await open_window(qtbot, background, episode)
    assert window.view.current_format.background().color() != QColor("#ffe082")  # the dark-palette colours
    window.playback.seek(12.0)
    window.playback.play()
    await until(lambda: window.playback.position() > 13.0, timeout=20)
    shot(window, "listen-dark")
    window.close()


@pytest.mark.asyncio
async def test_clicking_a_word_plays_from_it(qtbot: QtBot, background: Background, episode: Episode) -> None:
    window = await open_window(qtbot, background, episode)
    transcript = window.view.transcript
    assert transcript is not None
    target = len(transcript.words) // 2
    QTest.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     window.view.point_of_word(target))  # fmt: skip
    assert window.playback.position() == pytest.approx(transcript.words[target].start, abs=0.002)
    assert window.view.current == target
    await until(lambda: abs(window.playback.player.position() / 1000 - transcript.words[target].start) < 0.06)
    # a drag selects text and does not seek
    start, end = window.view.point_of_word(3), window.view.point_of_word(6)
    QTest.mousePress(window.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(window.view.viewport(), end)
    QTest.mouseRelease(window.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    assert window.view.current == target
    assert list(window.view.selected_words()) == [3, 4, 5, 6]
    window.close()


def listen_button(pane: Any) -> QPushButton | None:
    """The Listen button shown in the pane's details (in the Audio row), if any."""
    shown = [
        b
        for b in pane.details.findChildren(QPushButton)
        if b.accessibleName() == "Listen to the episode" and b.isVisible()
    ]
    assert len(shown) <= 1
    return shown[0] if shown else None


def wheel_up(widget: Any) -> None:
    point = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(point, widget.mapToGlobal(point), QPoint(0, 0), QPoint(0, 480),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)  # fmt: skip
    QApplication.sendEvent(widget, event)


@pytest.mark.asyncio
async def test_follow_mode_keeps_the_word_in_view_and_pauses_when_the_reader_scrolls(
    qtbot: QtBot, background: Background, episode: Episode
) -> None:
    window = await open_window(qtbot, background, episode, size=(620, 300))
    view = window.view
    transcript = view.transcript
    assert transcript is not None
    last = len(transcript.words) - 3
    assert not view.word_visible(last)  # the window is small: the end is out of view
    window.playback.seek(transcript.words[last].start + 0.01)
    assert view.current == last and view.following and view.word_visible(last)
    assert not window.jump_button.isVisible()

    wheel_up(view.viewport())
    assert not view.following
    assert not window.follow_button.isChecked()
    assert window.jump_button.isVisible()
    # it floats in room kept under the text: no line of the transcript is behind it
    viewport = view.viewport().geometry()
    assert window.jump_button.geometry().top() >= viewport.bottom()
    assert window.jump_button.geometry().bottom() <= view.rect().bottom()
    assert not view.word_visible(last)

    window.playback.seek(transcript.words[last + 1].start + 0.01)  # playback goes on: the view stays put
    assert view.current == last + 1 and not view.word_visible(last + 1)

    window.jump_button.click()
    assert view.following and window.follow_button.isChecked() and not window.jump_button.isVisible()
    assert view.word_visible(last + 1)

    window.playback.seek(transcript.words[2].start + 0.01)  # following again: a jump back is followed
    assert view.word_visible(2)
    window.close()


# --- search, keyboard, copy -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_search_counts_and_steps_through_matches(
    qtbot: QtBot, background: Background, episode: Episode, sandbox: RunningSandbox
) -> None:
    window = await open_window(qtbot, background, episode)
    words = [w["text"] for w in server_words(sandbox, str(episode.id))["words"]]
    expected = sum(len(re.findall("tide", w, flags=re.IGNORECASE)) for w in words)
    assert expected >= 3
    window.activateWindow()
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.search_bar
    assert bar.isVisible() and bar.edit.hasFocus()
    QTest.keyClicks(bar.edit, "TiDe")
    assert bar.count.text() == f"1 of {expected}"
    QTest.keyClick(bar.edit, Qt.Key.Key_Return)
    assert bar.count.text() == f"2 of {expected}"
    QTest.keyClick(bar.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    QTest.keyClick(bar.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == f"{expected} of {expected}"
    marked = [s.cursor.selectedText().lower() for s in window.view.extraSelections()]
    assert marked.count("tide") == expected
    QTest.keyClicks(bar.edit, "zzz")
    assert bar.count.text() == "No matches"
    QTest.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    assert window.view.matches == [] and window.view.extraSelections() == []
    window.close()


@pytest.mark.asyncio
async def test_keyboard_plays_seeks_and_every_control_is_named(
    qtbot: QtBot, background: Background, episode: Episode
) -> None:
    window = await open_window(qtbot, background, episode)
    window.activateWindow()
    window.view.setFocus()
    window.playback.seek(20.0)
    for key, expected in (
        (Qt.Key.Key_Right, 25.0),
        (Qt.Key.Key_Left, 20.0),
        (Qt.Key.Key_L, 30.0),
        (Qt.Key.Key_J, 20.0),
    ):
        QTest.keyClick(window.view, key)
        assert window.playback.position() == pytest.approx(expected, abs=0.01), key
        assert window.player_bar.elapsed.text() == f"00:{int(expected):02d}"
        assert abs(window.player_bar.seek_bar.value() - expected * 10) <= max(
            window.player_bar.seek_bar.maximum() // window.player_bar.seek_bar.width(), 1
        )
    assert not window.playback.timer.isActive()  # the frame timer runs only while playing
    QTest.keyClick(window.view, Qt.Key.Key_Space)
    await until(lambda: window.playback.playing)
    assert window.playback.timer.isActive()
    QTest.keyClick(window.view, Qt.Key.Key_K)
    await until(lambda: not window.playback.playing)
    assert not window.playback.timer.isActive()
    assert window.player_bar.play_button.accessibleName() == "Play"

    window.player_bar.speed.setCurrentIndex(window.player_bar.speed.findData(1.5))
    await until(lambda: window.playback.player.playbackRate() == 1.5)  # the player runs it from the loop
    assert window.playback.rate == 1.5
    assert window.playback.pitch_kept()  # Qt 6.10+ with the FFmpeg backend keeps the voice's pitch
    window.player_bar.volume.setValue(40)
    assert window.playback.output.volume() == pytest.approx(0.4)

    controls = [*window.findChildren(QAbstractButton), *window.findChildren(QSlider),
                *window.findChildren(QComboBox), *window.findChildren(QLineEdit)]  # fmt: skip
    # (a line edit's clear button is Qt's own, named by the line edit)
    unnamed = [c for c in controls if not c.accessibleName() and not isinstance(c.parent(), QLineEdit)]
    assert [(type(c).__name__, c.text() if isinstance(c, QAbstractButton) else "") for c in unnamed] == []
    window.close()


@pytest.mark.asyncio
async def test_copy_a_selection_with_and_without_times(
    qtbot: QtBot, background: Background, episode: Episode
) -> None:
    window = await open_window(qtbot, background, episode)
    transcript = window.view.transcript
    assert transcript is not None
    view = window.view
    start, end = view.point_of_word(1), view.point_of_word(4)
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(view.viewport(), end)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    assert window.copy_button.isEnabled()
    window.copy_button.click()
    words = " ".join(w.text for w in transcript.words[1:5])
    name = transcript.speaker_name(transcript.words[1].speaker)
    assert QGuiApplication.clipboard().text() == f"[00:00:00] {name}: {words}"
    assert view.copy_selection(times=False)
    assert QGuiApplication.clipboard().text() == words
    window.close()


# --- exports --------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_exports_from_the_viewer_parse_and_hold_every_word(
    qtbot: QtBot, background: Background, episode: Episode, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    window = await open_window(qtbot, background, episode)
    truth = normalise(server_words(sandbox, str(episode.id)))
    names = [s.name for s in truth.speakers]
    for fmt in ("srt", "vtt", "txt", "json"):
        dialog = window.ask_export(fmt)
        target = tmp_path / f"episode.{fmt}"
        dialog.selectFile(str(target))
        dialog.accept()
        # The file is written on a worker thread; the banner says so once the export has resumed
        # on the UI thread (until then it may still show the previous export's line).
        await until(
            lambda fmt=fmt: (
                window.banner.isVisible() and window.banner.text.startswith(f"Saved episode.{fmt}")
            )
        )
        assert target.is_file()
    srt = parse_srt((tmp_path / "episode.srt").read_text(encoding="utf-8"))
    srt_words = []
    for cue in srt:
        text = cue.text
        for name in names:
            text = text.removeprefix(f"{name}: ")
        srt_words += text.split()
    assert srt_words == [w for word in truth.words for w in word.text.split()]
    vtt = parse_vtt((tmp_path / "episode.vtt").read_text(encoding="utf-8"))
    assert [w for cue in vtt for w in cue.text.split()] == [w.text for w in truth.words]
    assert {cue.voice for cue in vtt} == set(names)
    assert vtt[0].start == pytest.approx(truth.words[0].start, abs=0.001)
    text = (tmp_path / "episode.txt").read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith(truth.speaker_name(truth.words[0].speaker) + " [00:00:00]")
    again = normalise(__import__("json").loads((tmp_path / "episode.json").read_text(encoding="utf-8")))
    assert again.words == truth.words
    window.close()


# --- the cache, offline, addresses that stop working, devices ------------------------------------------------


class KeyWatch(httpx.AsyncBaseTransport):
    """Notes, for each request, its path and whether it carried the API key."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[tuple[str, bool]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.url.path, "authorization" in request.headers))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.asyncio
async def test_a_cached_episode_plays_and_reads_offline(
    qtbot: QtBot, on_line: OnLine, episode: Episode
) -> None:
    media = on_line.background.media
    first = await open_window(qtbot, on_line.background, episode)
    assert first.loaded is not None and not first.loaded.from_cache
    assert media.downloads == 1
    words = first.view.toPlainText()
    first.close()

    on_line.line.down()
    window = await open_window(qtbot, on_line.background, episode)
    assert window.loaded is not None and window.loaded.offline and window.loaded.from_cache
    assert "offline" in window.status.text()
    assert media.downloads == 1  # nothing fetched again
    assert window.view.toPlainText() == words
    window.playback.play()
    await until(lambda: window.view.current >= 3, timeout=20)
    window.playback.pause()
    window.close()


@pytest.mark.asyncio
async def test_a_window_closed_and_opened_again_keeps_one_open_scope_of_work(
    qtbot: QtBot, background: Background, episode: Episode
) -> None:
    window = await open_window(qtbot, background, episode)
    for _ in range(3):  # the episodes pane reopens its one Listen window
        window.close()
        assert window.work.closed
        window.show()
        window.open_episode(episode)
        await loaded(window)
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assert owned_scopes(window) == [window.work]
        assert not window.work.closed
    await quiet()


@pytest.mark.asyncio
async def test_an_episode_not_cached_says_so_offline(qtbot: QtBot, on_line: OnLine, episode: Episode) -> None:
    on_line.line.down()
    window = ListenWindow(on_line.background.media)
    qtbot.addWidget(window)
    window.show()
    window.open_episode(episode)
    await until(window.banner.isVisible)
    assert "not cached yet" in window.banner.text
    assert window.loaded is None and not window.player_bar.isEnabled()
    window.close()


@pytest.mark.asyncio
async def test_an_expired_audio_address_is_read_afresh_never_with_the_key(
    qtbot: QtBot, on_line: OnLine, episode: Episode
) -> None:
    watch = KeyWatch(on_line.line.inner)
    on_line.line.inner = watch  # type: ignore[assignment]
    changed: list[str] = []

    def expire(body: dict[str, Any]) -> dict[str, Any]:
        if not changed:  # only the first read: the next one brings a fresh address
            url = body["data"]["audio_url"]
            body["data"]["audio_url"] = re.sub(r"expires=\d+", "expires=1000000000", url)
            changed.append(body["data"]["audio_url"])
        return body

    on_line.line.change_answers("GET", f"/v1/episodes/{episode.id}", expire)
    window = await open_window(qtbot, on_line.background, episode)
    assert changed
    audio = [s for s in on_line.line.sent if s.path.startswith("/files/")]
    assert [s.status for s in audio] == [403, 200]
    assert [path for path, keyed in watch.seen if path.startswith("/files/")] == [s.path for s in audio]
    assert not any(keyed for path, keyed in watch.seen if path.startswith("/files/"))  # never the key
    assert any(keyed for path, keyed in watch.seen if path.startswith("/v1/"))
    assert len(on_line.line.to("GET", f"/v1/episodes/{episode.id}")) == 2  # read again for a fresh address
    assert on_line.background.media.downloads == 2
    window.close()


@pytest.mark.asyncio
async def test_episode_without_audio_has_no_listen_and_says_why(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    draft = await session.client.episodes.create(podcast_id=(await anext(aiter(session.client.podcasts.list()))).id,
                                                 title="Nothing recorded yet")  # fmt: skip
    pane = await make_pane(qtbot, session, background)
    pane.reveal(str(draft.id))
    await until(lambda: pane.details.value_of("Episode ID") == str(draft.id))
    assert pane.details.value_of("Audio") == "—"
    assert listen_button(pane) is None
    assert pane.listen_current() is None
    window = ListenWindow(background.media)
    qtbot.addWidget(window)
    window.show()
    window.open_episode(draft)
    await until(window.banner.isVisible)
    assert "no audio yet" in window.banner.text
    window.close()
    await quiet()


@pytest.mark.asyncio
async def test_the_audio_device_going_away_pauses_with_a_message(
    qtbot: QtBot, background: Background, episode: Episode
) -> None:
    window = await open_window(qtbot, background, episode)
    playback = window.playback
    playback.play()
    await until(lambda: playback.playing)
    # Unplugging a device cannot be done here: the playback is told what QMediaDevices would say
    # (the device in use, "headphones", is gone and no default is left).
    playback._device_id = b"headphones"
    playback.list_outputs = lambda: []
    playback.default_output = multimedia.require().QAudioDevice
    playback.outputs_changed()
    await until(lambda: not playback.playing)
    assert (
        window.banner.isVisible() and "disconnected" in window.banner.text and "paused" in window.banner.text
    )
    position = playback.position()
    playback.play()  # without any device it still plays, silently, positions advancing
    await until(lambda: playback.position() > position + 0.3, timeout=20)
    playback.pause()
    window.close()


@pytest.mark.asyncio
async def test_a_screen_reader_hears_the_turn_being_heard_and_moves_by_turn(
    qtbot: QtBot, background: Background, episode: Episode
) -> None:
    """Each paragraph is a speaker's turn: the transcript says which turn is being heard, Alt+Down
    and Alt+Up select the next and previous turn's words (what a reader reads) with whose they are
    and when, Ctrl+T goes to the turn being heard; the whole window passes the accessibility walk."""
    window = await open_window(qtbot, background, episode)
    window.activateWindow()
    await until(window.isActiveWindow)
    view = window.view
    view.setFocus()
    plan, transcript = view.plan, view.transcript
    assert plan is not None and transcript is not None and len(plan.blocks) >= 3
    reader = interface_of(view)
    turns = len(plan.blocks)
    speaker = [transcript.speaker_name(s) for s in plan.block_speakers]

    def selected() -> str:
        """The words selected, as the accessible text reads them (the caret at the turn's start;
        PySide cannot call ``selection()``, whose offsets are C++ out-parameters)."""
        text = reader.textInterface()
        assert text is not None
        assert text.selectionCount() == 1
        start = text.cursorPosition()
        end = start + len(view.textCursor().selectedText())
        assert view.textCursor().selectionStart() == start
        return text.text(start, end)

    assert problems(window) == []
    third = plan.block_starts[2] + 0.01  # a moment into the third turn
    window.playback.seek(third)
    await until(lambda: view.heard_turn == 2)
    assert reader.text(QAccessible.Text.Description) == f"Heard now: turn 3 of {turns}, {speaker[2]}"

    QTest.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert selected() == plan.blocks[3]
    described = reader.text(QAccessible.Text.Description)
    assert described.startswith(f"Turn 4 of {turns}, {speaker[3]}, at ")
    assert described.endswith(f"Heard now: turn 3 of {turns}, {speaker[2]}")
    assert not view.following and window.jump_button.isVisible()  # moving by hand pauses following
    QTest.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    QTest.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert selected() == plan.blocks[1]
    for _ in range(3):  # no turn before the first: it stays there
        QTest.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert selected() == plan.blocks[0]
    assert view.word_visible(plan.block_first_word[0])
    QTest.keyClick(view, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert selected() == plan.blocks[2]
    assert reader.text(QAccessible.Text.Description).startswith(f"Turn 3 of {turns}, {speaker[2]}, at ")

    qtbot.mouseClick(window.jump_button, Qt.MouseButton.LeftButton)  # back to following: no turn gone to
    assert view.following
    assert reader.text(QAccessible.Text.Description) == f"Heard now: turn 3 of {turns}, {speaker[2]}"
    window.close()
