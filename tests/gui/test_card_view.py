"""The card view of the resource panes: the same rows as the table (filter, sort, paging), one
selection for both, the choice kept per pane, the keyboard, and the pictures (placeholder tiles
and the pane's own pictures), against the real sandbox."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, QSize, Qt
from PySide6.QtGui import QColor, QHoverEvent, QImage, QPixmap
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.services.settings import view_key
from castdeck.ui.card_view import CardView
from castdeck.ui.cover_delegate import CoverDelegate, placeholder_color
from castdeck.ui.pane import ResourcePane
from castdeck.ui.panes.podcasts import PodcastsPane
from castdeck.ui.resource_model import DESCRIPTION_ROLE, ITEM_ROLE
from tests.gui.conftest import quiet, shown_pane, until
from tests.gui.helpers import dark_palette, make_pane, new_podcast
from tests.runner import RUNTIME

SHOWCASE = (
    "Night Shift Stories",
    "The Long Road Home: Conversations About Moving Abroad and Starting Over Again",
    "Kitchen Chemistry",
    "Über den Wolken",
    "42 Questions",
)


def table_ids(pane: ResourcePane) -> list[str]:
    """The ids of the table's rows, top to bottom as drawn."""
    table = pane.table
    rows = [pane.proxy.index(row, 0) for row in range(pane.proxy.rowCount())]
    placed = sorted(rows, key=lambda index: table.visualRect(index).top())
    return [str(index.data(ITEM_ROLE).id) for index in placed]


def card_ids(pane: ResourcePane) -> list[str]:
    """The ids of the cards, in reading order (rows of cards top to bottom, each left to right)."""
    view = cards(pane)
    rows = [pane.proxy.index(row, 0) for row in range(pane.proxy.rowCount())]
    placed = sorted(rows, key=lambda index: (view.visualRect(index).top(), view.visualRect(index).left()))
    return [str(index.data(ITEM_ROLE).id) for index in placed]


def cards(pane: ResourcePane) -> CardView:
    view = pane.cards_view
    assert isinstance(view, CardView)
    return view


def proxy_index_of(pane: ResourcePane, item_id: str) -> Any:
    return pane.proxy.mapFromSource(pane.model.index(pane.model.row_of(item_id), 0))


async def podcasts_in_cards(qtbot: QtBot, session: Session, page_size: int = 100) -> PodcastsPane:
    pane = PodcastsPane(session)
    pane.page_size = page_size
    await shown_pane(qtbot, pane)
    pane.set_view("cards")
    assert pane.view_stack.currentWidget() is cards(pane)
    return pane


async def wait_painted(pane: ResourcePane) -> None:
    """Until the card view has laid out its cards (its batched layout runs on the loop)."""
    view = cards(pane)
    await until(lambda: view.visualRect(pane.proxy.index(0, 0)).isValid())


def hover(view: CardView, index: Any) -> None:
    """The pointer over a card (an event sent, not ``QTest.mouseMove``: its nested event processing
    inside a running qasync task loses the loop's wake-ups)."""
    at = QPointF(view.card_rect(index).center())
    QApplication.sendEvent(view.viewport(), QHoverEvent(QEvent.Type.HoverEnter, at, at, QPointF(-1, -1)))
    QApplication.sendEvent(view.viewport(), QHoverEvent(QEvent.Type.HoverMove, at, at, at))


def pixel(image: QImage, point: QPoint) -> str:
    return image.pixelColor(point).name()


@pytest.mark.asyncio
async def test_cards_list_what_the_table_lists_and_page_when_scrolled(qtbot: QtBot, session: Session) -> None:
    tag = uuid.uuid4().hex[:6]
    for i in range(22):  # more than a page of our own, whatever else the shared sandbox holds
        await new_podcast(session, f"Cardboard {tag} {i:02d}")
    pane = await podcasts_in_cards(qtbot, session, page_size=20)
    await wait_painted(pane)
    await pane.model.wait_idle()
    assert pane.model.rowCount() == 20 and pane.model.canFetchMore()  # one page: no view wanted more
    assert card_ids(pane) == table_ids(pane)
    assert len(set(card_ids(pane))) == 20

    # scrolled to the end, the card view reads the next page, and shows it in the table's order
    view = cards(pane)
    view.scrollToBottom()
    await until(lambda: pane.model.rowCount() > 20 and not pane.model.loading)
    assert card_ids(pane) == table_ids(pane)

    # the filter box filters both; the table's sort orders both
    pane.filter_edit.setText(f"Cardboard {tag}")
    await until(lambda: pane.proxy.rowCount() > 0)
    shown = card_ids(pane)
    assert shown == table_ids(pane)
    assert all(tag in pane.model.item(pane.model.row_of(i)).title for i in shown)
    pane.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    titles = [pane.model.item(pane.model.row_of(i)).title for i in card_ids(pane)]
    assert titles == sorted(titles, reverse=True)
    assert card_ids(pane) == table_ids(pane)
    pane.filter_edit.clear()
    assert pane.proxy.rowCount() == pane.model.rowCount()
    assert card_ids(pane) == table_ids(pane)
    # the cards back in view ask for their pictures when painted: paint now and let them come,
    # or they are asked for at a paint after the test has ended
    view.viewport().repaint()
    await until(lambda: pane.pictures.idle)
    await quiet()


async def at_least_podcasts(session: Session, count: int) -> None:
    """The sandbox has ``count`` podcasts or more (it seeds three; what other tests made before
    depends on the order the tests run in, so a test that needs more makes them)."""
    have = len(await session.client.podcasts.list(limit=100).to_list())
    for number in range(have, count):
        await new_podcast(session, f"Card view {number} {uuid.uuid4().hex[:6]}")


@pytest.mark.asyncio
async def test_one_selection_for_cards_table_and_details(qtbot: QtBot, session: Session) -> None:
    await at_least_podcasts(session, 6)  # the keys move across five of them
    pane = await podcasts_in_cards(qtbot, session)
    await wait_painted(pane)
    view = cards(pane)

    # a click on a card selects its row and shows it in the details
    second = pane.proxy.index(1, 0)
    item = second.data(ITEM_ROLE)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.card_rect(second).center())
    await until(lambda: pane.current is not None and pane.current.id == item.id)
    await until(lambda: pane.details.value_of("Podcast ID") == item.id)
    assert pane.details.heading.text() == item.title
    assert [index.row() for index in pane.table.selectionModel().selectedRows()] == [1]

    # a row selected in the table is the selected card
    pane.table.selectRow(3)
    third = pane.proxy.index(3, 0)
    await until(lambda: pane.current is not None and pane.current.id == third.data(ITEM_ROLE).id)
    assert view.selectionModel().selectedIndexes() == pane.table.selectionModel().selectedIndexes()
    assert view.selectionModel().isSelected(third)
    assert not view.selectionModel().isSelected(second)

    # the keyboard moves across the cards, and the details follow
    view.setFocus()
    view.selectionModel().setCurrentIndex(third, view.selectionModel().SelectionFlag.NoUpdate)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    fourth = pane.proxy.index(4, 0)
    await until(lambda: pane.current is not None and pane.current.id == fourth.data(ITEM_ROLE).id)

    # selecting by id (a created item, a link from elsewhere) shows the card
    last = pane.proxy.index(pane.proxy.rowCount() - 1, 0)
    assert pane.select_id(last.data(ITEM_ROLE).id)
    assert view.viewport().rect().intersects(view.visualRect(last))
    await quiet()


@pytest.mark.asyncio
async def test_the_chosen_view_is_kept_per_pane(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    first = PodcastsPane(session)
    await shown_pane(qtbot, first)
    assert first.view_mode == "table" and first.view_stack.currentWidget() is first.table
    assert first.cards_button is not None
    first.cards_button.click()
    assert first.view_mode == "cards"
    assert RUNTIME.settings.flush()  # written off the UI thread
    assert QSettings().value(view_key("podcast")) == "cards"

    again = PodcastsPane(session)
    await shown_pane(qtbot, again)
    assert again.view_mode == "cards" and again.view_stack.currentWidget() is again.cards_view
    assert again.cards_button is not None and again.cards_button.isChecked()
    episodes = await make_pane(qtbot, session, background)  # another pane keeps its own choice
    assert episodes.view_mode == "table" and episodes.view_stack.currentWidget() is episodes.table
    await quiet()


@pytest.mark.asyncio
async def test_keyboard_switches_views_and_controls_are_named(qtbot: QtBot, session: Session) -> None:
    pane = PodcastsPane(session)
    await shown_pane(qtbot, pane)
    pane.activateWindow()
    await until(pane.isActiveWindow, timeout=10)
    pane.table.setFocus()
    assert pane.table_button is not None and pane.cards_button is not None
    assert pane.table_button.accessibleName() == "Table view"
    assert pane.cards_button.accessibleName() == "Card view"
    for button in (pane.table_button, pane.cards_button):
        assert "Ctrl+Shift+V" in button.toolTip()
        assert button.focusPolicy() & Qt.FocusPolicy.TabFocus

    qtbot.keyClick(
        pane.table, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert pane.view_mode == "cards" and pane.cards_button.isChecked()
    view = cards(pane)
    await until(view.hasFocus)  # the focus went along to the cards
    assert view.accessibleName() == "Podcasts cards"
    qtbot.keyClick(
        view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert pane.view_mode == "table" and pane.table_button.isChecked()
    await until(pane.table.hasFocus)
    await quiet()


@pytest.mark.asyncio
async def test_placeholder_tiles_and_the_panes_pictures(qtbot: QtBot, session: Session) -> None:
    pane = await podcasts_in_cards(qtbot, session)
    await wait_painted(pane)
    view = cards(pane)
    first = pane.proxy.index(0, 0)
    item = first.data(ITEM_ROLE)
    assert item.image_url is None  # made here without a cover
    assert first.data(DESCRIPTION_ROLE) == f"No cover for {item.title}"  # the picture's text alternative

    # no picture: the item's own tile colour, away from the initials in its middle
    corner = view.picture_rect(first).topLeft() + QPoint(14, 14)
    image = view.viewport().grab().toImage()
    assert pixel(image, corner) == placeholder_color(item.id).name()
    assert pixel(image, corner) != view.palette().base().color().name()
    assert placeholder_color(item.id) == placeholder_color(str(item.id))  # the same for the same id

    # the pane's picture, when it has one, is what the card shows (and the table's first column)
    asked: list[QSize] = []

    def picture(shown: Any, size: QSize) -> QPixmap:
        asked.append(size)
        solid = QPixmap(size)
        solid.fill(QColor("#13579b"))
        return solid

    pane.picture = picture  # type: ignore[method-assign]
    pane.pictures_changed()
    image = view.viewport().grab().toImage()
    assert pixel(image, corner) == "#13579b"
    assert QSize(CoverDelegate.SIDE, CoverDelegate.SIDE) not in asked  # the table is not shown
    pane.set_view("table")
    delegate = pane.table.itemDelegateForColumn(0)
    assert isinstance(delegate, CoverDelegate)
    table_picture = delegate.picture_rect(pane.table, first)
    assert table_picture.width() == CoverDelegate.SIDE
    assert pane.table.rowHeight(0) >= CoverDelegate.SIDE
    image = pane.table.viewport().grab().toImage()
    assert pixel(image, table_picture.center()) == "#13579b"
    await quiet()


@pytest.mark.asyncio
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshots_of_cards(
    qtbot: QtBot, session: Session, background: Background, shot: Any, scheme: str
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    if scheme == "dark":
        app.setPalette(dark_palette())
    try:
        for title in SHOWCASE:
            await new_podcast(session, title)
        podcasts = await podcasts_in_cards(qtbot, session)
        podcasts.activateWindow()
        await until(podcasts.isActiveWindow, timeout=10)
        podcasts.select_id(str(podcasts.proxy.index(1, 0).data(ITEM_ROLE).id))
        await wait_painted(podcasts)
        view = cards(podcasts)
        view.setFocus()  # the selected card shows the focus too
        hover(view, podcasts.proxy.index(2, 0))
        await quiet()
        shot(podcasts, f"cards-podcast-{scheme}")
        episodes = await make_pane(qtbot, session, background)
        episodes.set_view("cards")
        await wait_painted(episodes)
        episodes.select_id(str(episodes.proxy.index(0, 0).data(ITEM_ROLE).id))
        await quiet()
        shot(episodes, f"cards-episode-{scheme}")
        episodes.set_view("table")
        await quiet()
        shot(episodes, f"table-pictures-episode-{scheme}")
        await until(lambda: episodes.details.heading.text() != "")
        await quiet()
    finally:
        app.setPalette(light)
