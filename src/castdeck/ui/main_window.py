"""The main window: navigation sidebar, one pane per resource, the status bar, and the jobs dock."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QIcon, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from castdeck.failures import failure_reason
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.services.settings import LAST_PANE
from castdeck.services.tasks import close_owned

from . import icons
from .accessible import name_grips
from .first_steps import FirstSteps
from .jobs.notifier import Notifier
from .jobs.panel import JobsPanel
from .pane_failed import PaneFailed
from .pane_roles import (
    Creates,
    EpisodeFigures,
    EpisodeGenerator,
    EpisodeListener,
    Filters,
    OpensItems,
    Refreshes,
    Reveals,
    Shown,
    ShowsUploads,
)
from .panes import PaneSpec, pane_specs
from .screen_fit import fit_window, restore_main_window
from .status import StatusBar
from .widgets import Banner, follow_palette
from .window_frame import pane_icon, sandbox_strip, sidebar, sidebar_item

__all__ = ["MainWindow"]

log = logging.getLogger(__name__)

FALLBACK_PANE = "Episodes"
"""Where a window opens when the pane it was to open on cannot be built."""

OPEN_PANES = {
    "episode": "Episodes",
    "episode_figures": "Episodes",
    "video": "Videos",
    "short": "Shorts",
    "voiceover": "Voiceovers",
    "source": "Sources",
    "podcast": "Podcasts",
    "podcast_analytics": "Analytics",
    "draft": "Scripts",
}
"""Which pane shows an item of each kind (a job card's or a pane's "Open")."""


class MainWindow(QMainWindow):
    closing = Signal()
    restartSandboxRequested = Signal()
    switchProfileRequested = Signal()

    def __init__(
        self,
        session: Session,
        background: Background,
        parent: QWidget | None = None,
        *,
        panes: list[PaneSpec] | None = None,
        start_pane: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = session.runtime.settings
        """The app's settings (the runtime every session of the window shares)."""
        self.setObjectName("main_window")
        self.resize(1280, 800)
        self.setMinimumSize(QSize(900, 560))
        self._specs = panes or pane_specs()
        self.session: Session | None = None
        self.background: Background | None = None
        self._built: dict[int, QWidget] = {}

        central = QWidget(self)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.sandbox_strip = sandbox_strip(central)
        self.sandbox_strip.hide()
        outer.addWidget(self.sandbox_strip)
        self.banner = Banner(central)
        outer.addWidget(self.banner)
        self.restart_button = QPushButton("Restart sandbox", self.banner)
        self.restart_button.setAccessibleName("Restart sandbox")
        self.restart_button.clicked.connect(self.restartSandboxRequested.emit)
        self.banner.button_row.insertWidget(1, self.restart_button)
        self.restart_button.hide()
        self.recover_button = QPushButton("Open in Scripts", self.banner)
        self.recover_button.setAccessibleName("Open the recovered script")
        self.recover_button.clicked.connect(lambda: self.show_pane("Scripts"))
        self.banner.button_row.insertWidget(1, self.recover_button)
        self.recover_button.hide()
        self.first_steps = FirstSteps(self.settings, central)
        self.first_steps.stepRequested.connect(self.take_first_step)
        outer.addWidget(self.first_steps)

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        self.sidebar = sidebar(central)
        self.stack = QStackedWidget(central)
        body.addWidget(self.sidebar)
        body.addWidget(self.stack, 1)
        outer.addLayout(body, 1)
        self.setCentralWidget(central)
        self.actions_by_name: dict[str, QAction] = {}
        self.sidebar.currentRowChanged.connect(self._switch)

        self.status = StatusBar(self)
        self.setStatusBar(self.status)
        name_grips(self, "Resize the window")

        self.jobs_dock = QDockWidget("Jobs", self)
        self.jobs_dock.setObjectName("jobs_dock")
        self.jobs_dock.setAccessibleName("Jobs")
        self.jobs_panel = JobsPanel(self.jobs_dock)
        self.jobs_panel.setMinimumWidth(300)
        self.jobs_panel.openRequested.connect(self.open_item)
        self.jobs_panel.listenRequested.connect(self.listen_to)
        self.jobs_panel.uploadsRequested.connect(self.show_uploads)
        self.jobs_dock.setWidget(self.jobs_panel)
        self.notifier = Notifier(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.jobs_dock)
        self.jobs_dock.hide()

        self._build_actions()
        titles = [spec.title for spec in self._specs]
        self._start_row = titles.index(start_pane) if start_pane in titles else 0
        self.set_session(session, background)

    # --- panes ---------------------------------------------------------------------------------------------

    def set_session(self, session: Session, background: Background) -> None:
        """Show a (new) connection: panes are built anew for it."""
        current = self.sidebar.currentRow() if self.sidebar.currentRow() >= 0 else self._start_row
        while (old := self.stack.widget(0)) is not None:
            close_owned(old)  # the old connection's panes end their work now, not when Qt deletes them
            self.stack.removeWidget(old)
            old.deleteLater()
        self._built = {}
        self.sidebar.blockSignals(True)
        self.sidebar.clear()
        self.session = session
        self.background = background
        for number, spec in enumerate(self._specs, start=1):
            self.stack.addWidget(QWidget(self.stack))  # the pane itself is built when first shown
            self.sidebar.addItem(sidebar_item(number, spec.title))
        self.status.bind(session)
        self.bind_background(background)
        self.first_steps.bind(session)
        sandbox = session.profile.sandbox
        self.sandbox_strip.setVisible(sandbox)
        title = f"Castdeck — {session.profile.name}"
        self.setWindowTitle(
            title + (" (Sandbox)" if sandbox and "Sandbox" not in session.profile.name else "")
        )
        self.sidebar.setCurrentRow(min(current, len(self._specs) - 1))
        self.sidebar.blockSignals(False)
        self._switch(self.sidebar.currentRow())
        self._fall_back()

    def _fall_back(self) -> None:
        """The pane the window opened on could not be built: it opens on Episodes, and says why."""
        failed = self._built.get(self.sidebar.currentRow())
        titles = [spec.title for spec in self._specs]
        if not isinstance(failed, PaneFailed) or FALLBACK_PANE not in titles or failed.title == FALLBACK_PANE:
            return
        text = (
            f"{failed.title} could not be opened ({failure_reason(failed.error)}), so Castdeck opened on "
            f"{FALLBACK_PANE}. Choose {failed.title} in the sidebar to try again or to copy a report."
        )
        log.warning("%s", text)
        self.show_pane(FALLBACK_PANE)
        self.banner.show_message(text, kind="error")

    def bind_background(self, background: Background | None) -> None:
        """Show the job cards and announce the job ends of ``background`` (the session's)."""
        old = self.jobs_panel.background
        if old is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                old.outbox.entryChanged.disconnect(self._entry_started)
            with contextlib.suppress(RuntimeError, TypeError):
                old.drafts.recoveryTaken.disconnect(self._recovery_taken)
        self.jobs_panel.bind(background)
        self.notifier.bind(background)
        self.first_steps.follow(background.jobs if background is not None else None)
        if background is not None:
            background.outbox.entryChanged.connect(self._entry_started)
            background.drafts.recoveryTaken.connect(self._recovery_taken)
            self._offer_recovery(background)

    def _offer_recovery(self, background: Background) -> None:
        """A run that ended without closing was writing a script: say so, whatever pane opens first."""
        found = background.drafts.recovered
        if not found:
            return
        names = ", ".join(f"“{r.title}”" for r in found)
        self.banner.show_message(
            f"Castdeck ended without closing while you were writing {names}. Nothing was lost but the last "
            "2 seconds at most; it is waiting in Scripts.",
            kind="warning",
        )
        self.recover_button.show()

    def _recovery_taken(self) -> None:
        if not self.recover_button.isHidden():
            self.recover_button.hide()
            self.banner.hide()

    def _entry_started(self, entry: Any) -> None:
        """A generation was just started: show where it can be followed."""
        if entry.state == "pending" and entry.attempts == 0:
            self.jobs_dock.show()
            if entry.kind in ("episode_generate", "episode_import"):
                self.first_steps.generation_started()

    # --- first steps ----------------------------------------------------------------------------------------

    def offer_first_steps(self) -> bool:
        """Show the first-steps strip (after the first-run welcome) unless it was dismissed."""
        return self.first_steps.offer()

    def take_first_step(self, step: str) -> None:
        """A first step's button: its pane; the last one also opens the generate dialog."""
        if step == "hosts":
            self.show_pane("Hosts")
        elif step == "podcast":
            self.show_pane("Podcasts")
        elif step == "episode":
            # the dialog opens whatever the connection: while it cannot be sent (connecting,
            # offline) its Generate button is disabled and its banner says why
            pane = self.show_pane("Episodes")
            if isinstance(pane, EpisodeGenerator):
                pane.generate()

    def open_item(self, kind: str, resource_id: str) -> None:
        """A job card's or a pane's "Open": the pane for ``kind``, with the item selected (read from
        the service when needed)."""
        title = OPEN_PANES.get(kind)
        if title is None:
            return
        pane = self.show_pane(title)
        if kind == "episode_figures" and isinstance(pane, EpisodeFigures):
            pane.show_figures(resource_id)
            return
        if isinstance(pane, Reveals):
            pane.reveal(resource_id)

    def listen_to(self, episode_id: str) -> None:
        """A job card's Play: the episode selected in Episodes, its player and transcript opened."""
        pane = self.show_pane("Episodes")
        if isinstance(pane, EpisodeListener):
            pane.listen_to(episode_id)

    def show_uploads(self) -> None:
        pane = self.show_pane("Sources")
        if isinstance(pane, ShowsUploads):
            pane.show_uploads()

    @property
    def panes(self) -> list[QWidget]:
        """The panes built so far."""
        return [self._built[row] for row in sorted(self._built)]

    def _row(self, title: str) -> int:
        for row, spec in enumerate(self._specs):
            if spec.title == title:
                return row
        raise KeyError(title)

    def _pane_at(self, row: int) -> QWidget:
        pane = self._built.get(row)
        if pane is None:
            assert self.session is not None and self.background is not None
            placeholder = self.stack.widget(row)
            spec = self._specs[row]
            try:
                pane = spec.build(self.session, self.background, self.stack)
            except Exception as error:  # the window stays whole: the pane's place says why
                log.exception("the %s pane could not be built", spec.title)
                pane = PaneFailed(spec.title, error, lambda: self._build_again(row), self.stack)
            if isinstance(pane, OpensItems):
                pane.openRequested.connect(self.open_item)
            self.stack.insertWidget(row, pane)
            if placeholder is not None:
                self.stack.removeWidget(placeholder)
                placeholder.deleteLater()
            self._built[row] = pane
        return pane

    def _build_again(self, row: int) -> None:
        """A failed pane's "Try again": build it anew in its place (showing it when it is current)."""
        failed = self._built.pop(row, None)
        if failed is None:
            return
        showing = self.stack.currentIndex() == row
        self.stack.insertWidget(row, QWidget(self.stack))  # the place the new build takes
        self.stack.removeWidget(failed)
        failed.deleteLater()
        if showing:
            self._switch(row)

    def pane(self, title: str) -> Any:
        """The pane with this title (built now if it was not shown yet)."""
        return self._pane_at(self._row(title))

    def show_pane(self, title: str) -> Any:
        row = self._row(title)
        self.sidebar.setCurrentRow(row)
        return self._pane_at(row)

    def current_pane(self) -> QWidget | None:
        return self.stack.currentWidget()

    def _switch(self, row: int) -> None:
        if 0 <= row < len(self._specs):
            pane = self._pane_at(row)
            self.stack.setCurrentIndex(row)
            # The pane is remembered when the window closes, not here: each QSettings write ends
            # in two fdatasync calls, and under disk load (uploads, the sandbox rendering) one took
            # 0.4 to 0.5 s of the UI thread at a pane switch (benchmarks/soak.py).
            self.first_steps.pane_shown(self._specs[row].title)
            if isinstance(pane, Shown):
                pane.activate()
            self._pane_actions_follow(pane)

    # --- actions -------------------------------------------------------------------------------------------

    def _build_actions(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        go_menu = menu.addMenu("&Go")
        view_menu = menu.addMenu("&View")

        def action(name: str, text: str, shortcut: QKeySequence | QKeySequence.StandardKey | str | None,
                   slot: Callable[[], Any], menu_: Any, glyph: QIcon | None = None) -> QAction:  # fmt: skip
            act = QAction(text, self)
            if glyph is not None:
                act.setIcon(glyph)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(lambda _checked=False: slot())
            menu_.addAction(act)
            self.addAction(act)
            self.actions_by_name[name] = act
            return act

        def icon(name: str) -> QIcon:
            return icons.icon(name, menu=True)

        action("new", "&New item", QKeySequence.StandardKey.New, self._new_item, file_menu, icon("new"))
        action("refresh", "&Refresh", "F5", self._refresh, file_menu, icon("refresh"))
        action("filter", "&Filter", QKeySequence.StandardKey.Find, self._filter, file_menu, icon("search"))
        file_menu.addSeparator()
        action("switch_profile", "Switch &profile…", "Ctrl+Shift+P", self.switchProfileRequested.emit,
               file_menu, icon("account"))  # fmt: skip
        file_menu.addSeparator()
        action("quit", "&Quit", QKeySequence.StandardKey.Quit, self.close, file_menu)
        for number, spec in enumerate(self._specs, start=1):
            shortcut = f"Ctrl+{number % 10}" if number <= 10 else None
            action(
                f"go{number}",
                spec.title,
                shortcut,
                self._go_to(number - 1),
                go_menu,
                pane_icon(spec.title, menu=True),
            )
        toggle = self.jobs_dock.toggleViewAction()
        toggle.setShortcut(QKeySequence("Ctrl+J"))
        toggle.setIcon(icon("jobs"))
        view_menu.addAction(toggle)

    def _go_to(self, row: int) -> Callable[[], None]:
        return lambda: self.sidebar.setCurrentRow(row)

    def _new_item(self) -> None:
        pane = self.current_pane()
        if isinstance(pane, Creates) and pane.can_create():
            pane.new_item()

    def _refresh(self) -> None:
        pane = self.current_pane()
        if isinstance(pane, Refreshes):
            pane.refresh()

    def _filter(self) -> None:
        pane = self.current_pane()
        if isinstance(pane, Filters):
            pane.focus_filter()

    def _pane_actions_follow(self, pane: QWidget) -> None:
        """New, Refresh and Filter are enabled on a pane that has them (disabled, they say so)."""
        enabled = {
            "new": isinstance(pane, Creates) and pane.can_create(),
            "refresh": isinstance(pane, Refreshes),
            "filter": isinstance(pane, Filters),
        }
        for name, on in enabled.items():
            if name in self.actions_by_name:
                self.actions_by_name[name].setEnabled(on)

    # --- sandbox -------------------------------------------------------------------------------------------

    def sandbox_crashed(self, message: str) -> None:
        self.banner.show_message(message + " Restart it to go on; your sandbox data is kept.", kind="error")
        self.restart_button.show()

    def sandbox_restarted(self) -> None:
        self.restart_button.hide()
        self.banner.hide()

    def restore_geometry(self) -> None:
        """The size, place and docks the window had when it was last closed."""
        restore_main_window(self, self.settings.qsettings())

    def showEvent(self, event: QShowEvent) -> None:
        fit_window(self)
        super().showEvent(event)

    def close_work(self) -> None:
        """End the work of every pane, dialog and the Jobs dock (the window is closing)."""
        self.bind_background(None)  # the closing session's last changes start no timer here
        close_owned(self)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.ApplicationPaletteChange, QEvent.Type.PaletteChange):
            # The icons draw in the palette's colours at paint time: forget the old colours' pixmaps.
            icons.palette_changed()
            follow_palette(self)  # style sheets and links: the sidebar, the guide, the details' links
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.close_work()
        settings = self.settings.qsettings()  # at once: read by the next start
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        row = self.stack.currentIndex()
        if 0 <= row < len(self._specs):
            settings.setValue(LAST_PANE, self._specs[row].title)
        self.closing.emit()
        super().closeEvent(event)
