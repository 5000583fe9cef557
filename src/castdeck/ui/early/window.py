"""``EarlyWindow``: the main window's frame with the cached first rows of its start pane, shown while
the rest of the app loads, then handed over to the real window.

It is built with the widgets the main window and its panes use (same types, sizes, margins, style
sheets and order), so the real window takes its place without a visible change but for what the
service has changed since. It takes no input: a transparent shield over the whole window takes
the keys, clicks and the wheel, and shows the busy cursor (the window lives for the second the rest
of the app takes to load; a click there would have to be replayed on a list that may have changed
order meanwhile). Closing it (the window's close button) is heard: the app then ends instead of
opening.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QImage,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
    QShowEvent,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.memory_budget import MemoryBudget
from castdeck.services.settings import Settings
from castdeck.store.picture_files import picture_key

from ..accessible import BLANK_CELL, name_grips, shows_value
from ..column_fit import ColumnFit
from ..cover_delegate import PICTURE_ROW_HEIGHT, CoverDelegate, Tiles, decode_picture
from ..flow_layout import FlowLayout, flow_policy
from ..palette import tone
from ..pane_header import fit_filter, view_switch
from ..screen_fit import fit_window, restore_main_window
from ..scroll import details_scroll
from ..splitters import restore_sizes
from ..window_frame import sandbox_strip, sidebar, sidebar_item

__all__ = ["EarlyPane", "EarlyPicture", "EarlyWindow"]

PICTURE_SIDE = CoverDelegate.SIDE
PICTURE_SIZE = QSize(PICTURE_SIDE, PICTURE_SIDE)
"""The size a row's picture is decoded at, as the pane's ``CoverDelegate`` asks for it."""
EARLY_TILES = 2 * 2**20
"""Bytes of tiles the early window keeps for reuse (a screen of rows is about 0.2 MiB)."""
DECORATION = Qt.ItemDataRole.DecorationRole
ACCESSIBLE_TEXT = Qt.ItemDataRole.AccessibleTextRole
HAND_OVER_LIMIT_MS = 1000
"""At most this long after the real window was shown, the early one closes even when the real one
has not painted yet (a minimized window paints nothing)."""


class EarlyPicture(NamedTuple):
    """A row's picture, as the pane's picture hooks give it: the item's id and title (the
    placeholder tile's colour and initials) and the picture's address (None: no picture)."""

    item_id: str
    title: str
    url: str | None


class EarlyPane(NamedTuple):
    """What the early window shows of its pane: the header's filters and buttons, the list's columns
    and first rows (cell texts), and the line under the list."""

    title: str
    columns: tuple[str, ...]
    widths: tuple[int, ...]
    """Pixels per column; 0 for the column that takes what is left."""
    rows: list[list[str]]
    status: str
    filters: tuple[tuple[str, tuple[str, ...], tuple[int, int]], ...] = ()
    """Combo boxes beside the heading: (accessible name, items, (characters, least pixels))."""
    buttons: tuple[tuple[str, str], ...] = ()
    """The header's buttons after Refresh, (text, accessible name): the pane's own, then "New"."""
    splitter: tuple[int, int] = (620, 420)
    splitter_key: str = ""
    """Where the pane keeps its divider's place (its kind): the early window opens it there too."""
    pictures: list[EarlyPicture] | None = None
    """One per row when the list shows pictures before the first column's text."""
    switch: bool = False
    """The header has the Table/Cards switch (Table chosen: the early window draws tables only)."""
    blanks: tuple[str, ...] = ()
    """Per column, what a blank cell reads as to a screen reader (as the real list's)."""


class EarlyWindow(QMainWindow):
    """``painted`` fires once the list has been painted; ``closeRequested`` when the user closes it;
    ``picturesShown`` once the pictures of the rows in view have been decoded and set (or there
    were none to decode).

    ``pictures_dir``: where the fetched pictures are kept (``castdeck.store.picture_files``). The
    rows first show their placeholder tiles; after the first paint the pictures of the rows in view
    that are on disk are decoded on worker threads, as the real list decodes them, and take their
    place (:meth:`decode_pictures`); the real list is handed them (:attr:`images`) so it does not
    decode them again."""

    painted = Signal()
    closeRequested = Signal()
    picturesShown = Signal()
    _decoded = Signal(str, QImage)

    def __init__(
        self,
        pane: EarlyPane,
        pane_titles: tuple[str, ...],
        *,
        profile: str,
        sandbox: bool,
        settings: Settings,
        pictures_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.pictures = pane.pictures
        self.pictures_dir = pictures_dir
        self.images: dict[str, QImage] = {}
        """The pictures decoded, by address, at :data:`PICTURE_SIZE`."""
        self.tiles = Tiles(MemoryBudget(EARLY_TILES), self)
        """Its rows' tiles (its own small budget: the window lives a second or two)."""
        self.pictures_pending: int | None = None
        """Pictures being decoded; None until the decoding has started."""
        self._decoded.connect(self._picture_decoded)
        self.setObjectName("early_window")
        self.profile = profile
        """The profile whose cached list it shows (the app drops it when it connects to another)."""
        self.pane_title = pane.title
        self.close_requested = False
        self.first_painted = False
        self._handing_over = False
        self.resize(1280, 800)
        self.setMinimumSize(QSize(900, 560))
        title = f"Castdeck — {profile}"
        self.setWindowTitle(title + (" (Sandbox)" if sandbox and "Sandbox" not in profile else ""))
        self.setAccessibleDescription("Castdeck is starting: the list as it was last seen")

        central = QWidget(self)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        if sandbox:  # the main window's strip (hidden there otherwise)
            outer.addWidget(sandbox_strip(central))
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        self.sidebar = sidebar(central)
        for number, name in enumerate(pane_titles, start=1):
            self.sidebar.addItem(sidebar_item(number, name))
        if pane.title in pane_titles:
            self.sidebar.setCurrentRow(pane_titles.index(pane.title))
        body.addWidget(self.sidebar)
        body.addWidget(self._pane(pane, central), 1)
        outer.addLayout(body, 1)
        self.setCentralWidget(central)

        for menu in ("&File", "&Go", "&View"):
            self.menuBar().addMenu(menu)
        status = QStatusBar(self)
        status.setAccessibleName("Status")
        for text, name in ((f'<span style="color:{tone("warning")}">●</span> Connecting…', "Connection: Connecting…"),
                           ("Organization: —", ""), ("Plan: —", ""), ("Credits: —", "")):  # fmt: skip
            label = QLabel(text, status)
            label.setAccessibleName(name)  # as the real status bar's: the text, or the dot in words
            status.addPermanentWidget(label)
        self.setStatusBar(status)
        name_grips(self, "Resize the window")
        dock = QDockWidget("Jobs", self)  # where the Jobs dock is, when it was left open
        dock.setObjectName("jobs_dock")
        dock.setAccessibleName("Jobs")
        room = QWidget(dock)
        room.setMinimumWidth(300)
        dock.setWidget(room)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()
        self.shield = _Shield(self)
        # The main window opens with the focus in the sidebar (its first control): the sidebar draws
        # it so here too, while the keys go to the shield.
        self.sidebar.setFocusProxy(self.shield)

    # --- the pane ------------------------------------------------------------------------------------------

    def _pane(self, spec: EarlyPane, parent: QWidget) -> QWidget:
        """The pane as ``ResourcePane`` lays it out, its details empty (no row is selected)."""
        pane = QWidget(parent)
        pane.setAccessibleName(spec.title)
        outer = QVBoxLayout(pane)
        outer.setContentsMargins(8, 8, 8, 4)
        header = QHBoxLayout()
        heading = QLabel(spec.title, pane)
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        heading.setFont(font)
        header.addWidget(heading)
        header.addSpacing(12)
        filters = QHBoxLayout()
        for name, items, (chars, least) in spec.filters:
            combo = QComboBox(pane)
            combo.setAccessibleName(name)
            combo.addItems(list(items))
            fit_filter(combo, chars, least)
            filters.addWidget(combo)
        header.addLayout(filters)
        header.addStretch(1)
        if spec.switch:
            header.addWidget(view_switch(pane, spec.title).widget)
            header.addSpacing(6)
        edit = QLineEdit(pane)
        edit.setPlaceholderText("Filter (Ctrl+F)")
        edit.setAccessibleName(f"Filter {spec.title}")
        edit.setClearButtonEnabled(True)
        edit.setMaximumWidth(260)
        header.addWidget(edit)
        for text, name in (("Refresh", f"Refresh {spec.title}"), *spec.buttons):
            button = QPushButton(text, pane)
            button.setAccessibleName(name)
            header.addWidget(button)
        outer.addLayout(header)

        self.model = QStandardItemModel(0, len(spec.columns), pane)
        self.model.setHorizontalHeaderLabels(list(spec.columns))
        splitter = QSplitter(Qt.Orientation.Horizontal, pane)
        stack = QStackedWidget(splitter)  # the pane's list area (table, cards, empty state)
        stack.setAccessibleName(f"{spec.title} list area")
        self.table = _Table(stack, self._table_painted)
        stack.addWidget(self.table)
        self.table.setModel(self.model)
        self.table.setAccessibleName(f"{spec.title} list")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        for number, cells in enumerate(spec.rows):  # after: enabling sorting sorts what the model holds
            row = []
            for column, text in enumerate(cells):
                item = QStandardItem(text)
                item.setEditable(False)
                if not text.strip():
                    item.setData(
                        spec.blanks[column] if column < len(spec.blanks) else BLANK_CELL, ACCESSIBLE_TEXT
                    )
                row.append(item)
            if spec.pictures is not None:
                picture = spec.pictures[number]
                row[0].setData(
                    self.tiles.small(None, picture.item_id, picture.title, PICTURE_SIDE), DECORATION
                )
            self.model.appendRow(row)
        self.table.setAlternatingRowColors(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(26)
        if spec.pictures is not None:
            self.table.setIconSize(PICTURE_SIZE)
            self.table.verticalHeader().setDefaultSectionSize(PICTURE_ROW_HEIGHT)
        top = self.table.horizontalHeader()
        top.setHighlightSections(False)
        top.setStretchLastSection(False)
        for column, width in enumerate(spec.widths):
            if width:
                top.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
                top.resizeSection(column, width)
            else:
                top.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(False)
        # lesser columns give way as in the pane (to its title's width: the window lives a second)
        self.column_fit = ColumnFit(self.table, follow_viewport=False)
        details = details_scroll(splitter)
        details.setWidget(self._details())
        splitter.addWidget(stack)
        splitter.addWidget(details)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([620, 420])
        name_grips(splitter, "Divider between the list and the details")
        splitter.setSizes(list(spec.splitter))
        if spec.splitter_key:
            restore_sizes(splitter, spec.splitter_key, self.settings)  # where the real pane will put it
        outer.addWidget(splitter, 1)
        self.status_line = QLabel(spec.status, pane)
        shows_value(self.status_line, f"{spec.title} list status")
        self.status_line.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.status_line)
        return pane

    @staticmethod
    def _details() -> QWidget:
        """``DetailsPanel`` with nothing selected: its empty heading and the placeholder."""
        details = QWidget()
        details.setAccessibleName("Details")
        outer = QVBoxLayout(details)
        outer.setContentsMargins(12, 8, 12, 8)
        heading = QLabel(details)
        heading.setWordWrap(True)
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        heading.setFont(font)
        outer.addWidget(heading)
        actions = QWidget(details)
        flow_policy(actions)
        FlowLayout(actions)
        outer.addWidget(actions)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        outer.addLayout(form)
        outer.addLayout(QVBoxLayout())
        placeholder = QLabel("Select a row to see its details.", details)
        placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        placeholder.setStyleSheet("color: palette(mid);")
        outer.addWidget(placeholder)
        outer.addStretch(1)
        return details

    # --- what it shows (tests) -----------------------------------------------------------------------------

    def rows(self) -> list[list[str]]:
        """The cell texts of the list, row by row."""
        return [
            [str(self.model.index(r, c).data() or "") for c in range(self.model.columnCount())]
            for r in range(self.model.rowCount())
        ]

    # --- showing, input, closing ---------------------------------------------------------------------------

    def restore_geometry(self) -> None:
        """The size, place and docks the main window had when it was last closed."""
        restore_main_window(self, self.settings.qsettings())

    def showEvent(self, event: QShowEvent) -> None:
        fit_window(self)  # as the main window does
        super().showEvent(event)

    def show_busy(self) -> None:
        """Show it with the busy cursor, taking no input until it is handed over or closed."""
        self.show()
        self.shield.cover()

    def _table_painted(self) -> None:
        if not self.first_painted:
            self.first_painted = True
            QTimer.singleShot(0, self.painted.emit)  # once this paint is on screen

    # --- the pictures --------------------------------------------------------------------------------------

    def decode_pictures(self) -> None:
        """Decode the pictures of the rows in view that are on disk, two at a time off this thread
        (once: later calls do nothing). Called after the first paint has been announced: the
        decoding threads take turns with this one, and the first paint must not wait for them."""
        if self.pictures_pending is not None:
            return
        wanted: dict[str, Path] = {}
        if self.pictures is not None and self.pictures_dir is not None:
            last = self.table.rowAt(self.table.viewport().height() - 1)
            shown = self.model.rowCount() if last < 0 else last + 1
            for row in range(shown):
                url = self.pictures[row].url
                if url and url not in wanted:
                    path = self.pictures_dir / picture_key(url)
                    if path.is_file():
                        wanted[url] = path
        self.pictures_pending = len(wanted)
        if not wanted:
            self.picturesShown.emit()
            return
        from concurrent.futures import ThreadPoolExecutor  # here: not before the first paint

        decoder = ThreadPoolExecutor(max_workers=2, thread_name_prefix="castdeck-early-pictures")
        for url, path in wanted.items():
            decoder.submit(self._decode, url, path)
        decoder.shutdown(wait=False)

    def _decode(self, url: str, path: Path) -> None:
        """On a worker thread: the picture, or a null image when it cannot be read."""
        try:
            image = decode_picture(path, PICTURE_SIZE)
        except (ValueError, OSError):
            image = QImage()
        self._decoded.emit(url, image)  # queued to the window's thread

    def _picture_decoded(self, url: str, image: QImage) -> None:
        if not image.isNull():
            self.images[url] = image
            pixmap = QPixmap.fromImage(image)
            for row, picture in enumerate(self.pictures or ()):
                if picture.url == url:
                    tile = self.tiles.small(pixmap, picture.item_id, picture.title, PICTURE_SIDE)
                    self.model.item(row, 0).setData(tile, DECORATION)
        if self.pictures_pending is None:
            return
        self.pictures_pending -= 1
        if self.pictures_pending == 0:
            self.picturesShown.emit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.shield.cover()

    def hand_over(self, window: QMainWindow) -> None:
        """Show ``window`` where this one is (as the user may have moved or resized it), active when
        this one was, then close this one once ``window`` has painted its first frame: until then
        this one stays beneath it, so nothing flickers."""
        active = self.isActiveWindow()
        state = self.windowState() & ~Qt.WindowState.WindowActive
        window.setGeometry(self.normalGeometry() if state else self.geometry())  # exactly: no clamping
        window.setWindowState(state)
        window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, not active)
        window.show()
        window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
        if active:  # shown on top (a new window is); the keyboard goes on with it
            window.activateWindow()
        central = window.centralWidget()
        if central is None or state & Qt.WindowState.WindowMinimized:
            self.dismiss()
            return
        watcher = _FirstPaint(central, self.dismiss)
        watcher.setParent(self)
        QTimer.singleShot(HAND_OVER_LIMIT_MS, self, self.dismiss)

    def dismiss(self) -> None:
        """Close and delete it (handed over, or the app goes on without it)."""
        if self._handing_over:
            return
        self._handing_over = True
        self.close()
        self.deleteLater()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._handing_over:  # the user closed it: the app ends rather than opening
            self.close_requested = True
            self.closeRequested.emit()
        super().closeEvent(event)


class _Table(QTableView):
    """The list; says when it has painted (its viewport's paint events come here)."""

    def __init__(self, parent: QWidget, painted: Callable[[], None]) -> None:
        super().__init__(parent)
        self._painted: Callable[[], None] | None = painted

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._painted is not None:
            self._painted()
            self._painted = None


class _Shield(QWidget):
    """A transparent widget over the whole window (menu bar and status bar too) that holds the
    focus and shows the busy cursor: the mouse, the wheel and the keys reach the shield (it is on
    top, and focused), which takes them, so nothing below reacts, Tab does not move the focus and a
    right click shows no menu."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("early_shield")
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.BusyCursor)
        self.setAccessibleName("Castdeck is starting")

    def cover(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.raise_()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def focusNextPrevChild(self, _next: bool) -> bool:
        return False

    def _take(self, event: QEvent) -> None:
        event.accept()  # not passed on to the window (Tab, the menu of its docks)

    keyPressEvent = keyReleaseEvent = _take
    mousePressEvent = mouseReleaseEvent = mouseDoubleClickEvent = wheelEvent = _take
    contextMenuEvent = _take


class _FirstPaint(QObject):
    """Calls ``then`` once ``widget`` has painted (in the next loop turn: the frame is on screen)."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__()
        self._widget = widget
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, self._then)
        return False
