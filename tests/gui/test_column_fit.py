"""The column fit with columns that never hide (a source's name and status): when hiding every
lesser column is not enough, they give way too, down to KEEP_AT_LEAST, so the table never scrolls
sideways for a long name; as the table widens they get their width back before a lesser column
returns. Which widths show depends on the width alone."""

from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QHeaderView, QTableView
from pytestqt.qtbot import QtBot

from castdeck.ui.column_fit import KEEP_AT_LEAST, ColumnFit

NAME, KIND, STATUS, ERROR, CREATED = range(5)


def sources_like_table(qtbot: QtBot) -> tuple[QTableView, ColumnFit]:
    """As the Sources pane lays its list out: the name sized to a long title (280), the status kept,
    the error stretching, the type and creation time lesser."""
    model = QStandardItemModel(8, 5)
    for row in range(8):
        texts = ["A very long source title that fills its column", "PDF", "Processing…", "No error", "Today"]
        for column, text in enumerate(texts):
            model.setItem(row, column, QStandardItem(text))
    table = QTableView()
    table.setModel(model)
    qtbot.addWidget(table)
    header = table.horizontalHeader()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    fit = ColumnFit(table, title=ERROR, keep=(NAME, STATUS))
    for column, width in ((NAME, 280), (KIND, 90), (STATUS, 96), (CREATED, 120)):
        header.resizeSection(column, width)
    header.setSectionResizeMode(ERROR, QHeaderView.ResizeMode.Stretch)
    return table, fit


def fitted(qtbot: QtBot, table: QTableView, width: int) -> None:
    table.resize(width, 300)
    table.show()
    qtbot.waitExposed(table)
    header = table.horizontalHeader()
    # the fit follows the resize at the next turn of the loop
    qtbot.waitUntil(lambda: table.viewport().width() > 0 and header.length() <= table.viewport().width())


def test_kept_columns_give_way_when_hiding_the_others_is_not_enough(qtbot: QtBot) -> None:
    table, fit = sources_like_table(qtbot)
    header = table.horizontalHeader()
    fitted(qtbot, table, 380)  # a laptop's Sources list with the Jobs dock open
    assert fit.hidden() == [KIND, CREATED]
    assert not table.horizontalScrollBar().isVisible()
    assert KEEP_AT_LEAST <= header.sectionSize(NAME) < 280
    assert header.sectionSize(STATUS) == 96  # the narrower kept column keeps its width
    assert header.length() == table.viewport().width()

    table.resize(1000, 300)  # wide again: the name first, then the lesser columns, as they were
    qtbot.waitUntil(lambda: fit.hidden() == [])
    assert header.sectionSize(NAME) == 280
    assert (header.sectionSize(KIND), header.sectionSize(CREATED)) == (90, 120)
    assert not table.horizontalScrollBar().isVisible()


def test_a_kept_column_is_never_narrower_than_its_floor(qtbot: QtBot) -> None:
    table, _fit = sources_like_table(qtbot)
    header = table.horizontalHeader()
    table.resize(200, 300)
    table.show()
    qtbot.waitExposed(table)
    qtbot.waitUntil(lambda: header.sectionSize(NAME) < 280)
    assert header.sectionSize(NAME) == KEEP_AT_LEAST  # too narrow for all: it scrolls, names readable
