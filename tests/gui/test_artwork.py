"""Covers and pictures: loaded from the sandbox off the UI thread, kept for offline use, and a
broken address or file keeps the placeholder and says why. Replacing an episode's cover by a drop
or the file dialog, with the local checks first."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode, Podcast
from castdeck.services.background import Background
from castdeck.services.memory_budget import MemoryBudget
from castdeck.services.session import Session
from castdeck.ui.cover_delegate import placeholder_color
from castdeck.ui.panes.hosts import HostsPane
from castdeck.ui.panes.podcasts import PodcastsPane
from castdeck.ui.pictures import PictureBook
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, quiet, shown_pane, until
from tests.gui.helpers import drop_on, make_pane, new_podcast

SEEDED = "The Curious Current"


async def seeded_podcast(pane: PodcastsPane) -> Podcast:
    await pane.model.load_all()
    found = next(p for p in pane.model.items if p.title == SEEDED)
    assert found.image_url, "the sandbox seeds a cover for this podcast"
    return found


def centre(image: QImage) -> QColor:
    return image.pixelColor(image.width() // 2, image.height() // 2)


def solid_png(path: Path, color: str, size: int = 240) -> Path:
    image = QImage(size, size, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    assert image.save(str(path), "PNG")
    return path


@pytest.mark.asyncio
async def test_a_podcast_cover_loads_in_the_details_and_for_the_list(
    qtbot: QtBot, session: Session, shot
) -> None:
    pane = await shown_pane(qtbot, PodcastsPane(session))
    podcast = await seeded_podcast(pane)
    assert pane.select_id(podcast.id)
    assert pane.cover.state() in ("loading", "picture")
    await until(lambda: pane.cover.state() == "picture", timeout=60)
    picture = pane.cover.current()
    assert picture is not None and picture.width() == pane.cover.side
    assert pane.cover.accessibleDescription() == f"Cover of {SEEDED}"
    assert pane.picture_text(podcast) == f"Cover of {SEEDED}"
    # the same picture, smaller, for a row or a card; loaded once from the service for both sizes
    await until(lambda: pane.picture(podcast, QSize(36, 36)) is not None, timeout=60)
    small = pane.picture(podcast, QSize(36, 36))
    assert small is not None and (small.width(), small.height()) == (36, 36)
    assert session.artwork.fetches >= 1
    kept = await session.artwork.kept(podcast.image_url or "")
    assert kept is not None and kept.stat().st_size > 1000
    shot(pane, "artwork-podcast-details")
    await quiet()


@pytest.mark.asyncio
async def test_covers_show_offline_from_this_computer_and_are_not_fetched_again(
    qtbot: QtBot, on_line: OnLine
) -> None:
    session = on_line.session
    first = await shown_pane(qtbot, PodcastsPane(session))
    podcast = await seeded_podcast(first)
    assert first.select_id(podcast.id)
    await until(lambda: first.cover.state() == "picture", timeout=60)
    ours = f"/podcasts/{podcast.id}/cover.jpg"
    fetched = len(on_line.line.to("GET", ours))
    assert fetched == 1
    first.close()

    on_line.line.down()
    session.went_offline("test: the network is down")
    again = await shown_pane(qtbot, PodcastsPane(session))  # the list from the cache, offline
    await until(lambda: again.model.offline)
    assert again.select_id(podcast.id)
    await until(lambda: again.cover.state() == "picture", timeout=60)
    assert len(on_line.line.to("GET", ours)) == fetched
    on_line.line.up()
    await quiet()


@pytest.mark.asyncio
async def test_a_broken_address_or_a_file_that_is_no_picture_keeps_the_placeholder_and_says_why(
    qtbot: QtBot, session: Session, background: Background, sandbox: RunningSandbox
) -> None:
    tag = uuid.uuid4().hex[:6]
    podcast = await new_podcast(session, f"Broken covers {tag}")
    assert podcast.image_url is None
    cases = {
        "gone": f"{sandbox.base_url}/files/episodes/none/cover-{tag}.png",
        "not a picture": f"{sandbox.base_url}/openapi.json",  # answers 200 with JSON
    }
    made: dict[str, Episode] = {}
    for name, url in cases.items():
        made[name] = await session.client.episodes.create(
            podcast_id=podcast.id, title=f"{name} {tag}", image=url
        )
    plain = await session.client.episodes.create(podcast_id=podcast.id, title=f"plain {tag}")
    pane = await make_pane(qtbot, session, background, podcast)
    await until(lambda: pane.model.rowCount() == 3)

    assert pane.select_id(made["gone"].id)
    await until(lambda: pane.cover.state() == "failed", timeout=60)
    assert "its address was refused; it may have expired (403)" in pane.cover.accessibleDescription()
    assert pane.cover.current() is None

    assert pane.select_id(made["not a picture"].id)
    await until(lambda: pane.cover.state() == "failed", timeout=60)
    assert "does not hold a picture" in pane.cover.toolTip()

    # no cover and a podcast without one: the placeholder tile, in the item's own colour
    assert pane.select_id(plain.id)
    await until(lambda: pane.details.value_of("Episode ID") == plain.id)
    assert pane.cover.state() == "none"
    assert (
        pane.cover.accessibleDescription()
        == f"No cover for plain {tag}. Drop a JPEG, PNG or WebP image here to replace it."
    )
    image = pane.cover.grab().toImage()
    edge = image.pixelColor(20, image.height() // 2)  # beside the initials
    assert edge.name() == placeholder_color(plain.id).name()
    await quiet()


@pytest.mark.asyncio
async def test_an_episode_without_a_cover_shows_its_podcasts(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    pane = await shown_pane(qtbot, PodcastsPane(session))
    podcast = await seeded_podcast(pane)
    plain = await session.client.episodes.create(
        podcast_id=podcast.id, title=f"coverless {uuid.uuid4().hex[:6]}"
    )
    episodes = await make_pane(qtbot, session, background, None)
    await episodes.names.wait("podcast")
    episodes.item_changed(plain)
    await until(lambda: episodes.cover.url == podcast.image_url)
    await until(lambda: episodes.cover.state() == "picture", timeout=60)
    await quiet()


@pytest.mark.asyncio
async def test_replacing_a_cover_by_a_drop_and_by_the_file_dialog(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, shot
) -> None:
    session, background = on_line.session, on_line.background
    podcast = await new_podcast(session, f"Cover swaps {uuid.uuid4().hex[:6]}")
    episode = await session.client.episodes.create(podcast_id=podcast.id, title="Swapped")
    pane = await make_pane(qtbot, session, background, podcast)
    assert pane.select_id(episode.id)
    await until(lambda: pane.cover_replacer.button.isVisible())
    assert pane.cover.acceptDrops()

    # a file that only calls itself a PNG is refused here: nothing is sent
    fake = tmp_path / "fake.png"
    fake.write_text("not really a picture")
    drop_on(pane.cover, [fake])
    await until(lambda: pane.banner.isVisible() and "fake.png" in pane.banner.text)
    assert "was not sent" in pane.banner.text
    assert on_line.line.to("PUT", "/image") == []

    red = solid_png(tmp_path / "red.png", "#d01010")
    drop_on(pane.cover, [red])
    await until(lambda: "was replaced" in pane.banner.text, timeout=60)
    assert len(on_line.line.to("PUT", "/image")) == 1
    assert pane.current.image_url and "cover-" in pane.current.image_url
    await until(lambda: pane.cover.state() == "picture", timeout=60)
    assert centre(pane.cover.grab().toImage()).red() > 180
    fresh = await session.client.episodes.get(episode.id)
    assert (
        fresh.image_url is not None and fresh.image_url.split("?")[0] == pane.current.image_url.split("?")[0]
    )
    shot(pane, "artwork-episode-cover-replaced")

    blue = solid_png(tmp_path / "blue.png", "#1030d0")
    pane.cover_replacer.button.click()
    chooser = pane.cover_replacer.chooser
    assert isinstance(chooser, QFileDialog) and chooser.isVisible()
    chooser.fileSelected.emit(str(blue))
    chooser.close()
    await until(
        lambda: len(on_line.line.to("PUT", "/image")) == 2 and not pane.cover_replacer.sending, timeout=60
    )
    await until(
        lambda: pane.cover.state() == "picture" and centre(pane.cover.grab().toImage()).blue() > 180,
        timeout=60,
    )
    await quiet()


@pytest.mark.asyncio
async def test_hosts_without_a_picture_show_their_initials_and_say_so(qtbot: QtBot, session: Session) -> None:
    pane = await shown_pane(qtbot, HostsPane(session))
    host = pane.model.items[0]
    assert pane.select_id(host.id)
    await until(lambda: pane.details.value_of("Host ID") == host.id)
    assert pane.cover.state() == "none"
    assert pane.cover.accessibleDescription() == f"No picture for {host.name}"
    assert pane.cover.isVisible()
    await quiet()


def test_the_pictures_kept_in_memory_stay_within_their_byte_budget(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    side = 240  # a details cover: 225 KiB of pixels
    each = side * side * 4
    budget = MemoryBudget(10 * each)
    monkeypatch.setattr(session, "runtime", dataclasses.replace(session.runtime, pictures_memory=budget))
    owner = QWidget()
    qtbot.addWidget(owner)
    book = PictureBook(session, owner)
    image = QImage(side, side, QImage.Format.Format_ARGB32)
    image.fill(QColor("teal"))
    urls = [f"https://covers.example/{n}.png" for n in range(25)]
    for url in urls:
        book.keep(url, QSize(side, side), image)
    assert book.kept_bytes == 10 * each
    assert [url for url in urls if book.holds(url, QSize(side, side))] == urls[-10:]  # the oldest went first
    book.forget(urls[-1])
    assert book.kept_bytes == 9 * each
    assert budget.bytes == 9 * each

    # Another pane's pictures share the one budget: what was used least recently goes, in any pane.
    other = QWidget()
    book_two = PictureBook(session, other)
    more = [f"https://covers.example/more-{n}.png" for n in range(4)]
    for url in more:
        book_two.keep(url, QSize(side, side), image)
    assert (book.kept_bytes, book_two.kept_bytes, budget.bytes) == (6 * each, 4 * each, 10 * each)
    assert [url for url in urls if book.holds(url, QSize(side, side))] == urls[-7:-1]
    # Its pane closed: its share is given back at once.
    other.deleteLater()
    qtbot.waitUntil(lambda: budget.bytes == 6 * each)
    assert book.kept_bytes == 6 * each


@pytest.mark.asyncio
async def test_a_panes_covers_and_tiles_charge_the_apps_one_budget(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = MemoryBudget(64 * 2**20)
    monkeypatch.setattr(session, "runtime", dataclasses.replace(session.runtime, pictures_memory=budget))
    holder = QWidget()  # the window: the pane in it is closed while the window stays
    qtbot.addWidget(holder)
    holder.resize(1100, 700)
    pane = PodcastsPane(session, holder)
    pane.resize(1100, 700)
    holder.show()
    pane.activate()
    await until(lambda: pane.model.rowCount() > 0)
    pane.views.set_view("cards", remember=False)
    await until(lambda: pane.tiles.bytes > 0 and pane.pictures.idle)
    assert budget.bytes == pane.tiles.bytes + pane.pictures.kept_bytes
    pane.deleteLater()
    await until(lambda: budget.bytes == 0)
    assert len(budget) == 0
    await quiet()
