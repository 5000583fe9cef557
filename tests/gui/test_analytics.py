"""Analytics against the sandbox: a podcast's totals, plays by app and episode table agree with the
service; incomplete and disabled figures say so; stored figures show offline; double-click opens an
episode; the CSV exports read back with the csv module; an episode's details carry its figures."""

from __future__ import annotations

import csv
import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode, Podcast, PodcastAnalytics
from castdeck.services.analytics_export import APP_HEADER, EPISODE_HEADER
from castdeck.services.background import Background
from castdeck.services.session import ConnectionState, Session
from castdeck.ui.analytics.bars import nice_ticks
from castdeck.ui.analytics.episode_table import COLUMNS, EPISODE_ID_ROLE
from castdeck.ui.main_window import MainWindow
from castdeck.ui.panes.analytics import DISABLED_TEXT, INCOMPLETE_TEXT, AnalyticsPane
from castdeck.ui.panes.episodes import EpisodesPane
from castdeck.ui.panes.podcasts import PodcastsPane
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import dark_palette, first_host, new_podcast

DOWNLOADS = next(i for i, c in enumerate(COLUMNS) if c.figure == "downloads.total")


async def podcast_titled(session: Session, title: str) -> Podcast:
    async for podcast in session.client.podcasts.list(limit=100):
        if podcast.title == title:
            return podcast
    raise AssertionError(f"no podcast {title!r} in the sandbox")


async def open_analytics(
    qtbot: QtBot, session: Session, background: Background
) -> tuple[MainWindow, AnalyticsPane]:
    window = MainWindow(session, background, start_pane="Analytics")
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    pane = window.current_pane()
    assert isinstance(pane, AnalyticsPane)
    return window, pane


async def showing(pane: AnalyticsPane, podcast: Podcast) -> PodcastAnalytics:
    """Choose ``podcast`` and wait until its figures are shown."""
    pane.reveal(podcast.id)
    await until(lambda: pane.figures is not None and pane.figures.analytics.podcast_id == podcast.id)
    assert pane.figures is not None
    return pane.figures.analytics


def table_column(pane: AnalyticsPane, column: int) -> list[str]:
    return [str(pane.proxy.index(row, column).data()) for row in range(pane.proxy.rowCount())]


@pytest.mark.asyncio
async def test_a_podcasts_figures_as_the_service_gives_them(
    qtbot: QtBot, session: Session, background: Background, shot: Any
) -> None:
    window, pane = await open_analytics(qtbot, session, background)
    podcast = await podcast_titled(session, "The Curious Current")
    shown = await showing(pane, podcast)  # the service's answer, as the pane read it
    assert shown.complete and shown.analytics_enabled
    totals = shown.totals  # (a second read may differ: the figures grow with the episodes' age)
    assert pane.cards["downloads"].text == f"{round(totals.downloads):,}" and totals.downloads > 0
    assert pane.cards["video_views"].text == f"{round(totals.video_views):,}"
    assert pane.cards["plays"].text == f"{round(totals.plays):,}"
    assert pane.cards["last_7_days"].text == f"{round(totals.last_7_days):,}"
    assert pane.cards["last_30_days"].text == f"{round(totals.last_30_days):,}"
    assert not pane.state_banner.isVisible()
    assert "Figures as of" in pane.as_of.text()

    # plays by app: most first, exact values in the tooltip, whole-number ticks
    apps = sorted(shown.plays_by_app.items(), key=lambda item: (-item[1], item[0]))  # ties by name
    assert [name for name, _ in pane.apps_chart.bars] == [name for name, _ in apps]
    assert [round(v) for _, v in pane.apps_chart.bars] == [round(v) for _, v in apps]
    top_name, top_value = apps[0]
    # the bars count what the Plays card counts: they add up to it, and a bar's share is of all plays
    assert sum(value for _, value in apps) == totals.plays
    share = f"{top_value / totals.plays:.1%}"
    assert pane.apps_chart.tooltip_for(0) == f"{top_name}: {round(top_value):,} plays ({share} of all plays)"
    middle = pane.apps_chart.bar_rect(1).center().toPoint()
    assert pane.apps_chart.bar_at(middle) == 1
    assert all(isinstance(t, int) for t in nice_ticks(top_value)) and nice_ticks(top_value)[-1] >= top_value
    assert top_name in pane.apps_chart.accessibleDescription()

    # the table: every episode of the podcast by title, most downloaded first, sortable by value
    titles = {e.id: e.title async for e in session.client.episodes.list(podcast_id=podcast.id, limit=100)}
    assert sorted(table_column(pane, 0)) == sorted(titles[e.episode_id] or "" for e in shown.episodes)
    downloads = [int(v.replace(",", "")) for v in table_column(pane, DOWNLOADS)]
    assert downloads == sorted(downloads, reverse=True) and downloads[0] > 0
    pane.table.sortByColumn(DOWNLOADS, Qt.SortOrder.AscendingOrder)
    assert [int(v.replace(",", "")) for v in table_column(pane, DOWNLOADS)] == sorted(downloads)
    pane.table.sortByColumn(DOWNLOADS, Qt.SortOrder.DescendingOrder)
    await quiet()
    shot(window, "analytics-light")

    # double-click an episode: Episodes opens with it selected
    top = next(e for e in shown.episodes if titles[e.episode_id] == table_column(pane, 0)[0])
    index = pane.proxy.index(0, 0)
    pane.table.scrollTo(index)
    rect = pane.table.visualRect(index)
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    episodes = await until(lambda: isinstance(window.current_pane(), EpisodesPane) and window.current_pane())
    await until(lambda: episodes.current is not None and str(episodes.current.id) == top.episode_id)

    # and from the keyboard: Enter on a row opens it too
    window.show_pane("Analytics")
    second = pane.proxy.index(1, 0)
    second_id = str(second.data(EPISODE_ID_ROLE))
    pane.table.setCurrentIndex(second)
    pane.table.setFocus()
    qtbot.keyClick(pane.table, Qt.Key.Key_Return)
    await until(lambda: window.current_pane() is episodes)
    await until(lambda: episodes.current is not None and str(episodes.current.id) == second_id)
    await quiet()


@pytest.mark.asyncio
async def test_dark_palette(qtbot: QtBot, session: Session, background: Background, shot: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    app.setPalette(dark_palette())
    try:
        window, pane = await open_analytics(qtbot, session, background)
        await showing(pane, await podcast_titled(session, "The Curious Current"))
        await quiet()
        image = pane.apps_chart.grab().toImage()
        corner = image.pixelColor(QPoint(2, 2))
        assert corner.lightness() < 80  # the chart paints on the dark window, not on white
        label_pixels = [
            image.pixelColor(QPoint(x, y)).lightness()
            for x in range(0, 60)
            for y in range(0, pane.apps_chart.height() - 40)
        ]
        assert max(label_pixels) > 180  # its labels are light text on the dark background
        shot(window, "analytics-dark")
    finally:
        app.setPalette(light)


@pytest.mark.asyncio
async def test_incomplete_figures_are_floors_with_the_reason_and_a_retry(
    qtbot: QtBot, on_line: OnLine, shot: Any
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    window, pane = await open_analytics(qtbot, session, background)
    podcast = await podcast_titled(session, "Harbour Lights")
    shown = await showing(pane, podcast)
    assert shown.complete is False
    assert pane.state_banner.isVisible() and INCOMPLETE_TEXT in pane.state_banner.text
    assert pane.retry_button.isVisible()
    assert pane.cards["downloads"].text.startswith("≥ ")
    assert pane.cards["downloads"].accessibleName().startswith("Downloads: at least ")
    assert pane.apps_chart.tooltip_for(0).split(": ")[1].startswith("at least ")
    await quiet()
    shot(window, "analytics-incomplete")
    asked = len(line.to("GET", f"/v1/podcasts/{podcast.id}/analytics"))
    pane.retry_button.click()
    await until(lambda: len(line.to("GET", f"/v1/podcasts/{podcast.id}/analytics")) == asked + 1)
    await until(lambda: pane.refresh_button.isEnabled())
    await quiet()


@pytest.mark.asyncio
async def test_disabled_audio_analytics_are_explained(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    _window, pane = await open_analytics(qtbot, session, background)
    shown = await showing(pane, await podcast_titled(session, "Deep Water Briefings"))
    assert shown.analytics_enabled is False
    assert DISABLED_TEXT in pane.state_banner.text and not pane.retry_button.isVisible()
    assert pane.cards["downloads"].text == "0"
    assert pane.apps_chart.bars == []
    assert (
        pane.apps_chart.accessibleDescription()
        == "Audio analytics are off for this podcast: no plays by app."
    )
    assert not pane.export_apps_button.isEnabled() and pane.export_episodes_button.isEnabled()
    await quiet()


@pytest.mark.asyncio
async def test_figures_read_before_are_shown_offline_and_read_again_on_return(
    qtbot: QtBot, on_line: OnLine
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    _window, pane = await open_analytics(qtbot, session, background)
    podcast = await podcast_titled(session, "The Curious Current")
    online = await showing(pane, podcast)
    line.down()
    pane.refresh()
    await until(lambda: pane.figures is not None and pane.figures.offline)
    assert pane.state_banner.isVisible() and pane.state_banner.text.startswith(
        "Offline: these are the figures read"
    )
    assert pane.figures.analytics.totals == online.totals
    assert pane.cards["downloads"].text == f"{round(online.totals.downloads):,}"
    assert pane.model.rowCount() == len(online.episodes)
    await until(lambda: session.state is ConnectionState.OFFLINE)
    line.up()
    await until(lambda: pane.figures is not None and not pane.figures.offline, timeout=40)
    assert not pane.state_banner.isVisible()
    await quiet()


@pytest.mark.asyncio
async def test_csv_exports_read_back_with_the_csv_module(
    qtbot: QtBot, session: Session, background: Background, tmp_path: Path
) -> None:
    _window, pane = await open_analytics(qtbot, session, background)
    tricky = f'Tides, "Currents" & Co {uuid.uuid4().hex[:6]}'
    podcast = await new_podcast(session, tricky[:100])
    episode: Episode = await session.client.episodes.create(
        podcast_id=podcast.id,
        title='Part 1, "the beginning"\u00a0— naïve café',
        host_ids=[(await first_host(session)).id],
    )
    await showing(pane, podcast)
    target = tmp_path / "episodes.csv"
    pane.save_csv("episodes", target)
    await until(lambda: "Saved 1 row to" in pane.banner.text)
    with target.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == EPISODE_HEADER
    assert rows[1][:3] == ['Part 1, "the beginning"\u00a0— naïve café', episode.id, "draft"]
    assert rows[1][4:] == ["0"] * 6
    assert target.read_bytes().startswith(b"\xef\xbb\xbf")  # spreadsheets read it as UTF-8

    await showing(pane, await podcast_titled(session, "The Curious Current"))
    apps_file = tmp_path / "apps.csv"
    pane.save_csv("apps", apps_file)
    await until(lambda: "to " + str(apps_file) in pane.banner.text)
    with apps_file.open(encoding="utf-8-sig", newline="") as handle:
        apps = list(csv.reader(handle))
    assert apps[0] == APP_HEADER
    assert [(name, int(plays)) for name, plays, _share in apps[1:]] == [
        (name, round(value)) for name, value in pane.apps_chart.bars
    ]
    await quiet()


@pytest.mark.asyncio
async def test_analytics_from_the_podcasts_pane_and_in_an_episodes_details(
    qtbot: QtBot, session: Session, background: Background, shot: Any
) -> None:
    window = MainWindow(session, background, start_pane="Podcasts")
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    podcasts = window.current_pane()
    assert isinstance(podcasts, PodcastsPane)
    podcast = await podcast_titled(session, "The Curious Current")
    await until(lambda: podcasts.model.row_of(podcast.id) >= 0)
    assert podcasts.select_id(podcast.id)
    await until(lambda: podcasts.analytics_button.isVisible())
    podcasts.analytics_button.click()
    pane = await until(lambda: isinstance(window.current_pane(), AnalyticsPane) and window.current_pane())
    await until(lambda: pane.figures is not None and pane.figures.analytics.podcast_id == podcast.id)

    episodes = window.show_pane("Episodes")
    listed = session.client.episodes.list(podcast_id=podcast.id, status="published", limit=100)
    published = await anext(aiter(listed))
    await until(lambda: episodes.model.row_of(published.id) >= 0)
    assert episodes.select_id(published.id)
    box = await until(lambda: episodes.analytics_box)
    await until(lambda: box.figures is not None and box.episode_id == published.id)
    assert box.figures is not None
    service = box.figures.analytics  # the service's answer, as the box read it
    assert box.text_of("Downloads, all time") == f"{round(service.downloads.total):,}"
    assert box.text_of("Downloads, first 7 days") == f"{round(service.downloads.first_7_days):,}"
    assert box.text_of("Video views, last 90 days") == f"{round(service.video_views.total):,}"
    assert "As of" in box.note.text()
    await quiet()
    shot(window, "episode-analytics")
    draft = await session.client.episodes.create(podcast_id=podcast.id, title=f"Draft {uuid.uuid4().hex[:6]}")
    episodes.item_changed(draft)
    await until(lambda: box.episode_id == draft.id)
    assert "once the episode is published" in box.note.text()
    assert not box.figures_box.isVisible() and box.text_of("Downloads, all time") == "—"
    await quiet()
