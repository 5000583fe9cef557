"""Stills and the in-app preview of finished Videos, Shorts and Voiceovers, against the sandbox:
the still in the list and the details, playing with the Listen window's controls and keys, the
kept copy offline, the service still preparing the file ("Check again"), no file at all (the
studio), one download however many ask, and a newer request always winning over an older one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QSlider
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.media_files import MediaFile
from castdeck.services.session import ConnectionState, Session
from castdeck.store.cache import Cache
from castdeck.ui.panes.media import ShortsPane, VideosPane, VoiceoversPane
from castdeck.ui.preview.stills import AUDIO_TAG
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, open_session, quiet, until
from tests.gui.helpers import dark_palette
from tests.gui.media_preview_helpers import (
    TIDAL,
    downloadable,
    finished_video,
    hold_preparing,
    item_titled,
    open_media_pane,
    release_preparing,
    select,
    work_done,
)
from tests.helpers import mp3_bytes


@pytest.fixture
def light_palette() -> Iterator[None]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.palette()
    yield
    app.setPalette(before)


@pytest.fixture(scope="module")
def tidal(sandbox: RunningSandbox) -> dict[str, Any]:
    return downloadable(sandbox, "videos", TIDAL)


def positions_of(pane: Any) -> list[float]:
    seen: list[float] = []
    pane.preview.playback.frame.connect(seen.append)
    return seen


# --- stills and playing ---------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_finished_video_shows_its_still_and_plays_with_the_players_keys(
    qtbot: QtBot, session: Session, background: Background, tidal: dict[str, Any], shot: Any,
    light_palette: None,
) -> None:  # fmt: skip
    files = background.media_files
    pane = await open_media_pane(qtbot, session, background, VideosPane)
    item = item_titled(pane, TIDAL)
    assert pane.card_subtitle(item).startswith("Video · completed · ")
    assert pane.picture_text(item) == f"Still from {TIDAL}"
    # the list asks for the still while the details ask for the file: one download serves both
    assert pane.picture(item, QSize(160, 90)) is None
    await select(pane, tidal["id"])
    preview = pane.preview
    await until(lambda: preview.state == "ready", timeout=60)
    assert preview.isVisible() and preview.player_bar.isVisible()
    card = await until(lambda: pane.picture(item, QSize(160, 90)), timeout=60)
    assert 0 < card.width() <= 160 and 0 < card.height() <= 90
    assert card.width() / card.height() == pytest.approx(16 / 9, abs=0.05)  # the video's shape
    await until(lambda: preview.video.still is not None and preview.video.shown is not None, timeout=60)
    assert preview.video.accessibleDescription() == f"Still from {TIDAL}"
    still = await files.kept_still("video", tidal["id"])
    assert still is not None and still.name.endswith(".still.png") and not QImage(str(still)).isNull()
    assert files.downloads == 1 and pane.stills.made == 1
    assert preview.status.text() == "Downloaded" and "kept on this computer" in preview.status.toolTip()
    await until(lambda: preview.playback.duration > 0)
    shot(pane, "pane-videos-preview-still")

    # play: positions advance and frames of the video replace the still
    seen = positions_of(pane)
    preview.player_bar.play_button.click()
    await until(lambda: preview.playback.playing)
    await until(lambda: len(seen) > 5 and seen[-1] > seen[0] + 0.5, timeout=30)
    await until(lambda: preview.video.frames_shown > 0, timeout=30)
    assert preview.player_bar.play_button.accessibleName() == "Pause"
    # the keys of the Listen window, while the focus is in the preview
    pane.activateWindow()
    preview.video.setFocus()
    await until(preview.video.hasFocus)
    QTest.keyClick(preview.video, Qt.Key.Key_K)
    await until(lambda: not preview.playback.playing)
    assert not preview.playback.timer.isActive()  # the position clock runs only while playing
    before = preview.playback.position()
    QTest.keyClick(preview.video, Qt.Key.Key_L)
    assert preview.playback.position() == pytest.approx(before + 10, abs=0.01)
    QTest.keyClick(preview.video, Qt.Key.Key_Left)
    assert preview.playback.position() == pytest.approx(before + 5, abs=0.01)
    QTest.keyClick(preview.video, Qt.Key.Key_Space)
    await until(lambda: preview.playback.playing)
    await until(lambda: preview.playback.position() > before + 5.5, timeout=30)
    QTest.keyClick(preview.video, Qt.Key.Key_Space)
    await until(lambda: not preview.playback.playing)
    shown = preview.video.frames_shown
    await until(lambda: preview.video.frames_shown > shown or preview.video.shown is not None)
    shot(pane, "pane-videos-preview")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setPalette(dark_palette())
    await asyncio.sleep(0.1)  # the new palette reaches the widgets on the next turns of the loop
    shot(pane, "pane-videos-preview-dark")

    controls = [*preview.findChildren(QAbstractButton), *preview.findChildren(QSlider),
                *preview.findChildren(QComboBox)]  # fmt: skip
    assert [type(c).__name__ for c in controls if c.isVisible() and not c.accessibleName()] == []

    # another item: playback stops and the preview goes; back again: the kept copy, no download
    failed = item_titled(pane, "Ocean Energy Outlook")
    preview.playback.play()
    await until(lambda: preview.playback.playing)
    await select(pane, str(failed.id))
    assert not preview.playback.playing and not preview.isVisible()
    assert preview.playback.player.source().isEmpty()
    assert pane.picture(failed, QSize(160, 90)) is None  # only finished items have stills
    await select(pane, tidal["id"])
    await until(lambda: preview.state == "ready", timeout=60)
    assert preview.file is not None and preview.file.from_cache
    assert files.downloads == 1 and pane.stills.made == 1  # the still is made once
    pane.close()
    assert not preview.playback.playing
    await quiet()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("cls", "collection", "title", "shape"),
    [(ShortsPane, "shorts", "Tides in 30 Seconds", 9 / 16),
     (VoiceoversPane, "voiceovers", "Tidal Array Diagram Walkthrough", 16 / 9)],
)  # fmt: skip
async def test_shorts_and_voiceovers_have_stills_of_their_own_shape(
    qtbot: QtBot, session: Session, background: Background, sandbox: RunningSandbox,
    cls: type, collection: str, title: str, shape: float,
) -> None:  # fmt: skip
    downloadable(sandbox, collection, title)
    pane = await open_media_pane(qtbot, session, background, cls)
    item = item_titled(pane, title)
    await select(pane, str(item.id))  # previewed once: its file is kept and its still made
    card = await until(lambda: pane.picture(item, QSize(120, 120)), timeout=60)
    assert card.width() / card.height() == pytest.approx(shape, abs=0.05)
    assert pane.picture_text(item) == f"Still from {title}"
    assert background.media_files.downloaded[str(item.id)] == 1
    await quiet()


@pytest.mark.asyncio
async def test_a_file_without_pictures_gets_a_waveform(
    qtbot: QtBot, session: Session, background: Background, tmp_path: Path
) -> None:
    pane = VoiceoversPane(session, background)
    qtbot.addWidget(pane)
    sound = tmp_path / "narration.mp3"
    sound.write_bytes(mp3_bytes(2.0))
    file = MediaFile("voiceover", "sound-only", sound, "http://example.invalid/narration.mp3")
    still = await pane.stills.draw(file)
    assert still is not None and still == file.still
    image = QImage(str(still))
    assert not image.isNull() and image.text(AUDIO_TAG) == "audio"
    assert image.pixelColor(image.width() // 2, image.height() // 2).alpha() > 0  # bars are drawn
    await quiet()


async def turns(count: int = 3) -> None:
    """A few turns of the event loop (what Qt posted meanwhile is delivered)."""
    for _ in range(count):
        await asyncio.sleep(0)


class NestedResizes(QObject):
    """Counts the resizes of a scroll area's widget within one turn of the event loop, and ends a
    chain of them past ``LIMIT`` (a scroll area resizing its widget from inside that widget's own
    resize: unbounded, it overflows the stack; on Windows the main thread has 1 MiB of it)."""

    LIMIT = 20

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.most = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Resize:
            return False
        self.count += 1
        self.most = max(self.most, self.count)
        return self.count > self.LIMIT  # (ends the chain: the scroll area's own filter is not reached)


@pytest.mark.asyncio
async def test_the_details_settle_where_the_previews_height_depends_on_the_scroll_bar(
    qtbot: QtBot, session: Session, background: Background, tidal: dict[str, Any]
) -> None:
    """Found by the soak (a crash in Qt's text layout, 11,000 frames deep): the preview's picture's
    height is 9/16 of its width, so with the scroll bar the details are narrower and shorter, and
    without it wider and taller. Where the details were one pixel taller than the room at the
    wider width, the scroll area resized them back and forth from inside its own resize until
    the stack ran out. The details keep their scroll bar's room whatever their height."""
    pane = await open_media_pane(qtbot, session, background, VideosPane)
    await select(pane, tidal["id"])
    preview = pane.preview
    await until(lambda: preview.state == "ready", timeout=60)
    watch = NestedResizes()
    area = pane.details_scroll
    pane.details.installEventFilter(watch)  # (installed last: it sees each resize first; it stays
    # installed to the end, so that a failed check does not end in the overflow)
    for details_width in (300, 330):
        pane.splitter.setSizes([pane.width() - details_width, details_width])
        pane.resize(pane.width(), 1600)  # room for all of the details: as wide as they get
        await turns()
        tall = pane.details.heightForWidth(pane.details.width())  # what they need at that width
        chrome = pane.height() - area.height()
        for over in (-3, -2, -1, 0, 1):  # the room just short of what the wider details need
            watch.count = 0
            pane.resize(pane.width(), tall + over + chrome)
            await turns()  # (the layout requests posted meanwhile are served)
            # a few resizes while the preview's picture takes its new height; a chain is endless
            assert watch.most < NestedResizes.LIMIT // 2, (details_width, tall + over, watch.most)
            assert area.verticalScrollBar().isVisible()
    await quiet()


# --- the kept copy offline -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_kept_copy_plays_offline_without_a_request(
    qtbot: QtBot, on_line: OnLine, tidal: dict[str, Any]
) -> None:
    line, session = on_line.line, on_line.session
    pane = await open_media_pane(qtbot, session, on_line.background, VideosPane)
    preview = pane.preview
    await select(pane, tidal["id"])
    await until(lambda: preview.state == "ready", timeout=60)
    await until(lambda: preview.video.still is not None, timeout=60)
    await select(pane, str(item_titled(pane, "Ocean Energy Outlook").id))
    await until(lambda: preview.state == "idle")

    line.down()
    pane.refresh()
    await until(lambda: session.state is ConnectionState.OFFLINE)
    await until(lambda: pane.model.offline and pane.model.row_of(tidal["id"]) >= 0)
    asked = len(line.sent)
    await select(pane, tidal["id"])
    await until(lambda: preview.state == "ready")
    assert preview.file is not None and preview.file.offline
    assert preview.status.text().startswith("Offline copy")
    await until(lambda: preview.video.still is not None)  # the still was kept beside the file
    seen = positions_of(pane)
    preview.playback.play()
    await until(lambda: len(seen) > 5 and seen[-1] > seen[0] + 0.5, timeout=30)
    preview.playback.pause()
    await until(lambda: not preview.playback.playing)
    for_the_file = [
        s.path for s in line.sent[asked:] if s.path.endswith("/download") or s.path.startswith("/files/")
    ]
    assert for_the_file == []  # neither the service nor the file's address was asked
    assert on_line.background.media_files.downloaded[tidal["id"]] == 1

    line.up()  # the service returns: the pane reads its list again, the preview stays as it is
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=60)
    await until(lambda: not pane.model.offline and not pane.model.loading, timeout=60)
    await quiet()
    assert preview.state == "ready" and on_line.background.media_files.downloaded[tidal["id"]] == 1


# --- preparing, and no file at all ---------------------------------------------------------------------------


class HoldFirstAnswer(httpx.AsyncBaseTransport):
    """Passes every request on. Once armed, the answer to the next request whose path ends with
    ``suffix`` is held back (the service answered it already) until :attr:`release` is set: an
    older request whose answer arrives after a newer one."""

    def __init__(self, inner: httpx.AsyncBaseTransport, suffix: str) -> None:
        self.inner = inner
        self.suffix = suffix
        self.armed = False
        self.holding = asyncio.Event()
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if not (self.armed and request.url.path.endswith(self.suffix)):
            return response
        self.armed = False
        body = await response.aread()
        await response.aclose()
        self.holding.set()
        await self.release.wait()
        headers = [
            (k, v)
            for k, v in response.headers.items()
            if k.lower() not in ("content-length", "content-encoding")
        ]
        return httpx.Response(response.status_code, headers=headers, content=body)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture(scope="module")
def own_video(sandbox: RunningSandbox) -> dict[str, Any]:
    return finished_video(sandbox, "A short explainer on why harbours silt up")


@pytest.mark.asyncio
async def test_preparing_says_so_and_check_again_recovers_with_the_newest_answer(
    qtbot: QtBot, on_line: OnLine, sandbox: RunningSandbox, own_video: dict[str, Any], shot: Any,
    light_palette: None,
) -> None:  # fmt: skip
    video_id = own_video["id"]
    holder = HoldFirstAnswer(on_line.line.inner, f"/v1/videos/{video_id}/download")
    on_line.line.inner = holder  # type: ignore[assignment]
    hold_preparing(sandbox, video_id, reason="ingest")
    try:
        pane = await open_media_pane(qtbot, on_line.session, on_line.background, VideosPane)
        preview = pane.preview
        preview.recheck_after = (3600.0,)  # this test asks again by hand (the next one waits for it)
        await select(pane, video_id)
        await until(lambda: preview.state == "preparing", timeout=60)
        assert preview.area.currentWidget() is preview.notice  # in place of the picture
        assert preview.message.text() == (
            "The service is still preparing this file (the video delivery provider is still taking the "
            "file in). Castdeck checks again in 3600 s."
        )
        assert preview.action_button.isVisible() and preview.action_button.text() == "Check again"
        assert not preview.player_bar.isVisible()
        assert pane.picture(item_titled(pane, own_video["title"]), QSize(160, 90)) is None
        await work_done("make a still")  # the list's try: no file yet, so no still
        assert pane.picture(item_titled(pane, own_video["title"]), QSize(160, 90)) is None
        shot(pane, "pane-videos-preparing")
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.setPalette(dark_palette())
        await until(lambda: "#ffb74d" in preview.headline.styleSheet())  # the colour follows the palette
        shot(pane, "pane-videos-preparing-dark")

        # an older "Check again" is answered "preparing" but that answer arrives last
        holder.armed = True
        preview.action_button.click()
        await holder.holding.wait()
        release_preparing(sandbox, video_id)  # the file is ready now
        preview.action_button.click()  # the newer ask
        await until(lambda: preview.state == "ready", timeout=60)
        holder.release.set()
        await work_done("preview a media file")
        assert preview.state == "ready" and preview.file is not None  # the newer answer stays
        assert preview.area.currentWidget() is preview.video
        await until(lambda: preview.video.still is not None, timeout=60)
        asked = on_line.line.to("GET", f"/v1/videos/{video_id}/download")
        assert len(asked) >= 3  # each Check again asked the service anew
    finally:
        release_preparing(sandbox, video_id)
        holder.release.set()
    await quiet()


@pytest.mark.asyncio
async def test_a_file_being_prepared_is_asked_for_again_until_it_is_ready(
    qtbot: QtBot, on_line: OnLine, sandbox: RunningSandbox, own_video: dict[str, Any]
) -> None:
    """A finished item whose file the service still prepares follows it to ready by itself: no
    "Being prepared" left on screen until the creator presses Check again."""
    video_id = own_video["id"]
    hold_preparing(sandbox, video_id, reason="rendition")
    try:
        pane = await open_media_pane(qtbot, on_line.session, on_line.background, VideosPane)
        preview = pane.preview
        preview.recheck_after = (0.05, 0.1)  # the app's 5, 10, 20, 30 s, in the test's time
        await select(pane, video_id)
        await until(lambda: preview.state == "preparing", timeout=60)
        asked = on_line.line.to("GET", f"/v1/videos/{video_id}/download")
        await until(lambda: len(on_line.line.to("GET", f"/v1/videos/{video_id}/download")) >= len(asked) + 2)
        # (between asks it says so; an ask under way shows "loading" for a moment)
        await until(lambda: preview.state == "preparing" and "checks again" in preview.message.text())
        release_preparing(sandbox, video_id)  # the rendition is done
        await until(lambda: preview.state == "ready", timeout=60)  # nobody pressed Check again
        assert preview.area.currentWidget() is preview.video
        settled = len(on_line.line.to("GET", f"/v1/videos/{video_id}/download"))
        await work_done("preview a media file")
        assert not preview._recheck.isActive()  # ready: it asks no more
        assert len(on_line.line.to("GET", f"/v1/videos/{video_id}/download")) == settled
    finally:
        release_preparing(sandbox, video_id)
    await quiet()


@pytest.mark.asyncio
async def test_a_preview_out_of_sight_stops_asking_and_asks_when_shown_again(
    qtbot: QtBot, on_line: OnLine, sandbox: RunningSandbox, own_video: dict[str, Any]
) -> None:
    """A pane left (or a window closed) while its file is being prepared leaves nothing ticking;
    back on screen it asks at once and follows the file to ready."""
    video_id = own_video["id"]
    hold_preparing(sandbox, video_id, reason="rendition")
    try:
        pane = await open_media_pane(qtbot, on_line.session, on_line.background, VideosPane)
        preview = pane.preview
        preview.recheck_after = (0.05,)
        await select(pane, video_id)
        await until(lambda: preview.state == "preparing" and preview._recheck.isActive(), timeout=60)
        pane.hide()
        assert not preview._recheck.isActive()
        await work_done("preview a media file")  # an ask under way ends; it sets no timer unseen
        assert preview.state == "preparing"
        assert not preview._recheck.isActive()
        release_preparing(sandbox, video_id)
        asked = len(on_line.line.to("GET", f"/v1/videos/{video_id}/download"))
        pane.show()
        await until(lambda: preview.state == "ready", timeout=60)  # nobody pressed Check again
        assert len(on_line.line.to("GET", f"/v1/videos/{video_id}/download")) > asked
        await work_done("preview a media file")
    finally:
        release_preparing(sandbox, video_id)
    await quiet()


@pytest.mark.asyncio
async def test_no_downloadable_file_points_to_the_studio(
    qtbot: QtBot, sandbox_factory: Callable[..., RunningSandbox], cache: Cache, tmp_path: Path, shot: Any
) -> None:
    service = sandbox_factory("--no-seed-media", "--speed", "50")  # finished items without files
    session = await open_session(service.base_url, cache)
    background = Background(session, tmp_path / "background")
    try:
        pane = await open_media_pane(qtbot, session, background, VideosPane)
        item = item_titled(pane, TIDAL)
        preview = pane.preview
        await select(pane, str(item.id))
        await until(lambda: preview.state == "unavailable", timeout=60)
        assert preview.area.currentWidget() is preview.notice
        assert preview.message.text() == "No downloadable file: open it in the studio."
        assert preview.studio_link.isVisible() and item.studio_url
        assert item.studio_url in preview.studio_link.text() and "studio" in preview.studio_link.text()
        assert not preview.action_button.isVisible() and not preview.player_bar.isVisible()
        pane.picture(item, QSize(160, 90))
        await work_done("make a still")
        assert pane.picture(item, QSize(160, 90)) is None  # no file, no still (and no new try at once)
        assert background.media_files.downloads == 0
        shot(pane, "pane-videos-unavailable")
        await quiet()
    finally:
        await background.close()
        await session.close()
