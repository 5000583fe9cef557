"""The Jobs dock's content: one live card per job, newest first, with the uploads in one line on top.

Cards come from the session's :class:`Background`: tracked jobs (generation, media jobs, sources
being processed) and outbox writes the service has not accepted (still being sent, or refused).
They are built a few at a time so that two hundred resumed jobs never stall the window, update as
the tracker reports, and count their elapsed time once a second while the dock is visible.

Only the newest :data:`CARD_WINDOW` cards are widgets at first; older ones are built as the user
scrolls towards them (or asks for them with the button under the list). Every card in the
dock's list is a widget the layout places again when any card changes, so two hundred built
cards made each poll's answer cost a frame; the summary still counts every job.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterator

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.background import Background
from castdeck.services.paced import PacedWork
from castdeck.services.tasks import TaskScope
from castdeck.services.work import Work, WorkLog

from ..accessible import shows_value
from ..download_saver import DownloadSaver
from ..widgets import Banner, ElidedButton, alive
from .batch_card import BatchCards
from .card import ENDED_STATES, CardView, JobCard, entry_view, job_view
from .card_actions import CardActions

__all__ = ["JobsPanel"]

SETTLE_SECONDS = 0.05
"""While new cards keep coming (a burst of writes), the builder waits this long after the last one,
so that it builds the cards that end up newest, not ones the burst pushes out of the window a
moment later; but never longer than :data:`SETTLE_AT_MOST` after the first one waiting."""
SETTLE_AT_MOST = 0.3
CARD_WINDOW = 30
"""Cards built (the newest) until the user scrolls towards older ones; each such scroll, or the
button under the list, adds this many more."""


class JobsPanel(QWidget):
    """Live job cards of one :class:`Background` (rebound when the profile changes)."""

    openRequested = Signal(str, str)  # kind, resource id
    listenRequested = Signal(str)  # an episode's id: its Play (the app's player and transcript)
    uploadsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jobs_panel")
        self.setAccessibleName("Jobs")
        self.work = TaskScope(self)
        self.background: Background | None = None
        self.card_actions = CardActions(self)
        """What the cards' buttons do (``card_actions``)."""
        self.cards: dict[str, JobCard] = {}
        self.views: dict[str, CardView] = {}
        self._states: Counter[str] = Counter()
        """How many of :attr:`views` are in each state (kept as views come and go: the summary is
        asked for at every poll of every job, and counting 200 views each time showed in profiles)."""
        self._seq: dict[str, int] = {}
        """Each shown record's ``seq`` (when it came: newer cards sit higher in the list)."""
        self._key_of: dict[int, str] = {}
        """Each shown record's key by its ``seq`` (a write's card goes on under its job's key)."""
        self.card_limit = CARD_WINDOW
        """How many of the newest cards are built (see :data:`CARD_WINDOW`)."""
        self._last_arrival = 0.0
        self._waiting_since: float | None = None
        """When the oldest card not built yet came (None: none waits)."""
        self._scroll_value = 0
        """The list's scroll position before the last move (a list that shrank moves it up, and
        only a move down near the end asks for older cards)."""

        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.setSpacing(6)
        header = QHBoxLayout()
        self.summary = QLabel(self)
        shows_value(self.summary, "Jobs summary")
        # Wrapped to the width it is given, never asking for its text's: the dock (sized by what its
        # content asks while the user has not dragged it) keeps its width as the counts grow. A
        # wider dock moves the pane beside it and repaints the whole window.
        self.summary.setWordWrap(True)
        wrapped = self.summary.sizePolicy()
        wrapped.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.summary.setSizePolicy(wrapped)
        self.clear_button = QPushButton("Clear finished", self)
        self.clear_button.setAccessibleName("Clear finished jobs")
        self.clear_button.setToolTip("Remove the cards of finished, failed and refused jobs")
        self.clear_button.clicked.connect(self.clear_finished)
        header.addWidget(self.summary, 1)
        header.addWidget(self.clear_button)
        outer.addLayout(header)
        self.uploads_button = ElidedButton(self, action="Show the upload queue in the Sources pane")
        self.uploads_button.setFlat(True)
        self.uploads_button.setAccessibleName("Uploads")
        self.uploads_button.setStyleSheet("text-align: left; padding: 2px 4px;")
        self.uploads_button.clicked.connect(self.uploadsRequested.emit)
        self.uploads_button.hide()
        outer.addWidget(self.uploads_button)
        self.batch_cards = BatchCards(self)
        """One card per batch of scripts sent at once (its scripts have no cards of their own)."""
        self.batch_cards.openRequested.connect(self.openRequested)
        self.batch_cards.dismissRequested.connect(self._dismiss_batch)
        self.batch_cards.countChanged.connect(self._update_summary)
        outer.addWidget(self.batch_cards)
        self.banner = Banner(self)
        outer.addWidget(self.banner)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_widget = QWidget(self.scroll_area)
        # The list grows by a card at each card built below the others (a burst builds thirty,
        # one a frame). Qt repaints a widget in full when it is resized, unless its contents stay
        # where they are: then only the part that was added, here out of view. Without this, each
        # card built repainted every card in view (about 1 ms a frame in the burst).
        self.list_widget.setAttribute(Qt.WidgetAttribute.WA_StaticContents)
        self.list_layout = QVBoxLayout(self.list_widget)
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.list_layout.setSpacing(6)
        # The list grows to what its cards need before it lays them out. With the default
        # constraint a new card is first laid out in the list's old height (every card squeezed a
        # few pixels, each repainted) and again once the scroll area has grown the list: two
        # layouts of every card and a repaint of the whole dock per card that comes or changes.
        self.list_layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        self.empty_label = QLabel(
            "Generations, media jobs and uploaded sources you start appear here, one card each. "
            "They keep going when you close Castdeck and are followed again when it opens.",
            self.list_widget,
        )
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color: palette(mid); padding: 8px;")
        self.list_layout.addWidget(self.empty_label)
        self.more_button = QPushButton(self.list_widget)
        self.more_button.setFlat(True)
        self.more_button.setAccessibleName("Show older jobs")
        self.more_button.setToolTip("Show the cards of older jobs (scrolling down shows them too)")
        self.more_button.clicked.connect(self.show_more)
        self.more_button.hide()
        self.list_layout.addWidget(self.more_button)
        self.list_layout.addStretch(1)
        self.scroll_area.setWidget(self.list_widget)
        outer.addWidget(self.scroll_area, 1)

        self.builder = PacedWork(self._build_one, ready=self._settled, name="card_builder", parent=self)
        """Builds the cards a frame at a time, never all at once (``services.paced``)."""
        self._ticker = QTimer(self)
        self._ticker.setObjectName("elapsed_ticker")
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self.scroll_area.verticalScrollBar().valueChanged.connect(self._scrolled)
        self._uploads_timer = QTimer(self)
        self._uploads_timer.setObjectName("uploads_summary")
        self._uploads_timer.setSingleShot(True)
        self._uploads_timer.setInterval(400)
        self._uploads_timer.timeout.connect(self._show_uploads)
        self._update_summary()

    # --- binding -------------------------------------------------------------------------------------------

    def bind(self, background: Background | None) -> None:
        """Show the work of ``background`` (the current session's), dropping the old cards."""
        old = self.background
        if old is not None:
            for signal, slot in (
                (old.work.rowsInserted, self._rows_inserted),
                (old.work.rowsAboutToBeRemoved, self._rows_removing),
                (old.work.dataChanged, self._rows_changed),
                (old.uploads.itemAdded, self._uploads_changed),
                (old.uploads.itemChanged, self._uploads_changed),
                (old.uploads.itemRemoved, self._uploads_changed),
                (old.session.stateChanged, self._online_changed),
                (old.batches.changed, self.batch_cards.show_progress),
            ):
                with contextlib.suppress(RuntimeError, TypeError):
                    signal.disconnect(slot)
        for card in self.cards.values():
            card.deleteLater()
        self.batch_cards.show_batches(background.batches.batches() if background is not None else [])
        self.builder.stop()  # nothing of the old session's is left to build or to sum up
        self._uploads_timer.stop()
        self.cards, self.views, self._seq, self._key_of = {}, {}, {}, {}
        self.card_limit = CARD_WINDOW
        self._waiting_since = None
        self._states.clear()
        self.background = background
        self.card_actions.saver = None  # the next Download saves through the new session's client
        if background is not None:
            work = background.work
            work.rowsInserted.connect(self._rows_inserted)
            work.rowsAboutToBeRemoved.connect(self._rows_removing)
            work.dataChanged.connect(self._rows_changed)
            background.uploads.itemAdded.connect(self._uploads_changed)
            background.uploads.itemChanged.connect(self._uploads_changed)
            background.uploads.itemRemoved.connect(self._uploads_changed)
            background.session.stateChanged.connect(self._online_changed)
            background.batches.changed.connect(self.batch_cards.show_progress)
            for record in reversed(work.records()):  # oldest first, as they came
                self._show(record)
            self._show_uploads()
        self._update_summary()

    # --- what the services report ----------------------------------------------------------------------------

    def _online(self) -> bool:
        return self.background is None or self.background.session.online

    def _model(self) -> WorkLog | None:
        return self.background.work if self.background is not None else None

    def _rows_inserted(self, _parent: object, first: int, last: int) -> None:
        model = self._model()
        if model is not None:
            for row in range(last, first - 1, -1):  # the oldest of them first
                self._show(model.at(row))

    def _rows_changed(self, top: QModelIndex, bottom: QModelIndex, _roles: object = None) -> None:
        model = self._model()
        if model is not None:
            for row in range(top.row(), bottom.row() + 1):
                self._show(model.at(row))

    def _rows_removing(self, _parent: object, first: int, last: int) -> None:
        model = self._model()
        if model is not None:
            for row in range(first, last + 1):
                record = model.at(row)
                self._drop(self._key_of.pop(record.seq, record.key))

    def _show(self, record: Work) -> None:
        """Show what ``record`` is now: its job's view once it has one, its write's until the
        service accepts it; an accepted write whose job has not reported yet keeps its card as it
        was (the job's report comes next and fills it)."""
        key = record.key
        background = self.background
        if background is not None and background.batches.owns(record):
            self._drop(self._key_of.pop(record.seq, key))  # its batch's card shows it
            return
        old = self._key_of.get(record.seq)
        if old is not None and old != key:
            self._rekey(old, key)
            self._key_of[record.seq] = key
        if record.job is not None:
            self._key_of[record.seq] = key
            self._put(job_view(record.job, online=self._online()), record.seq)
        elif record.entry is not None and not record.accepted:
            self._key_of[record.seq] = key
            self._put(entry_view(record.entry), record.seq)

    def _rekey(self, old: str, new: str) -> None:
        """The service accepted a write: its card becomes its job's card, in the same place. In a
        burst of writes, building a card for each job and letting each write's go was most of the
        dock's work."""
        if old not in self.views or new in self.views:
            self._drop(old)
            return
        self.views[new] = self.views.pop(old)
        self._seq[new] = self._seq.pop(old)
        card = self.cards.pop(old, None)
        if card is not None:
            card.actionRequested.disconnect()
            card.actionRequested.connect(lambda action, k=new: self.card_actions.act(k, action))
            self.cards[new] = card

    def _online_changed(self, _state: str) -> None:
        model = self._model()
        for record in model.records() if model is not None else []:
            if record.job is not None and record.job.state == "running":
                self._put(job_view(record.job, online=self._online()), record.seq)

    def _put(self, view: CardView, seq: int) -> None:
        old = self.views.get(view.key)
        known = old is not None
        if old is not None:
            self._states[old.state] -= 1
        self._states[view.state] += 1
        self.views[view.key] = view
        card = self.cards.get(view.key)
        if card is not None:
            card.show_view(view)
        elif not known:
            self._seq[view.key] = seq
            self._last_arrival = time.monotonic()
            if self._waiting_since is None:
                self._waiting_since = self._last_arrival
            self.builder.start()
        self._update_summary()

    def _drop(self, key: str) -> None:
        view = self.views.pop(key, None)
        if view is not None:
            self._states[view.state] -= 1
        self._seq.pop(key, None)
        self._unbuild(key)
        if len(self.views) > len(self.cards):
            self.builder.start()  # an older card may come into the built window
        self._update_summary()

    def _unbuild(self, key: str) -> None:
        card = self.cards.pop(key, None)
        if card is not None:
            self.list_layout.removeWidget(card)
            card.deleteLater()

    def _newest(self) -> list[str]:
        """The keys of the cards to build: the newest :attr:`card_limit`, newest first."""
        keys = sorted(self._seq, key=self._seq.__getitem__, reverse=True)
        return keys[: self.card_limit]

    def _settled(self) -> bool:
        """False while new cards keep coming (a burst of writes; see :data:`SETTLE_SECONDS`)."""
        now = time.monotonic()
        waiting = self._waiting_since
        return not (
            waiting is not None
            and now - self._last_arrival < SETTLE_SECONDS
            and now - waiting < SETTLE_AT_MOST
        )

    def _build_one(self) -> bool:
        """Build the newest card not built yet, in its place (newest on top), and let go of the
        cards that fell out of the window (new ones came on top). Each costs about 0.75 ms to build
        and as much again to show, in the frame that lays out and paints the dock: one a frame.
        True while more wait."""
        self._waiting_since = None
        newest = self._newest()
        wanted = set(newest)
        for key in [k for k in self.cards if k not in wanted]:
            self._unbuild(key)
        todo = [key for key in newest if key not in self.cards][:1]
        for key in todo:
            card = JobCard(self.views[key], self.list_widget)
            card.actionRequested.connect(lambda action, k=key: self.card_actions.act(k, action))
            seq = self._seq[key]
            above = sum(1 for k in self.cards if self._seq[k] > seq)
            self.list_layout.insertWidget(above, card)
            card.show()  # at once, in the same layout of the list (see JobCard._set_actions)
            self.cards[key] = card
        self._update_summary()
        return bool(todo) and self.pending_builds() > 0

    def pending_builds(self) -> int:
        """Cards in the built window that are not built yet."""
        return sum(1 for key in self._newest() if key not in self.cards)

    def show_more(self) -> None:
        """Build the next :data:`CARD_WINDOW` older cards (the button, or a scroll to the end)."""
        if len(self.views) <= self.card_limit:
            return
        self.card_limit += CARD_WINDOW
        self.builder.start()
        self._update_summary()

    def _scrolled(self, value: int) -> None:
        bar = self.scroll_area.verticalScrollBar()
        down, self._scroll_value = value > self._scroll_value, value
        if down and value >= bar.maximum() - self.scroll_area.viewport().height() // 2:
            self.show_more()  # scrolled down near the end: the older cards come
        self._tick_in_view(value)

    def _update_summary(self) -> None:
        states = self._states
        running = states["running"]
        waiting = states["sending"] + states["waiting"]
        ended = sum(states[state] for state in ENDED_STATES)
        still = states["still_running"]
        parts = []
        if running:
            parts.append(f"{running} running")
        if waiting:
            parts.append(f"{waiting} waiting to send")
        if still:
            parts.append(f"{still} to check again")
        if ended:
            parts.append(f"{ended} ended")
        batches = len(self.batch_cards.cards)
        if batches:
            parts.insert(0, f"{batches} batch{'es' * (batches != 1)} of scripts")
        self.summary.setText(" · ".join(parts) if parts else "No jobs")  # Qt skips an unchanged text
        self.clear_button.setEnabled(ended > 0)
        self.empty_label.setVisible(not self.views and not batches)
        hidden = len(self.views) - min(len(self.views), self.card_limit)
        if hidden:
            self.more_button.setText(f"Show older jobs ({hidden} more)")  # Qt skips an unchanged text
        self.more_button.setVisible(hidden > 0)

    def _uploads_changed(self, *_: object) -> None:
        if not self._uploads_timer.isActive():
            self._uploads_timer.start()

    def _show_uploads(self) -> None:
        background = self.background
        if background is None or not alive(self):
            self.uploads_button.hide()
            return
        items = background.uploads.items()
        active = [i for i in items if i.state in ("queued", "uploading", "completing", "paused")]
        if not items:
            self.uploads_button.hide()
            return
        done = sum(1 for i in items if i.state == "done")
        failed = sum(1 for i in items if i.state in ("failed", "refused"))
        totals = background.uploads.totals()
        text = f"Uploads: {done} of {done + len(active)} done"
        if active and totals.total:
            text += f" · {100 * totals.sent / totals.total:.0f}%"
            if totals.eta is not None:
                text += f" · about {max(1, round(totals.eta))} s left"
        if failed:
            text += f" · {failed} need attention"
        self.uploads_button.set_full_text(text + "  ›")
        self.uploads_button.show()

    # --- time ------------------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._ticker.start()
        self._tick()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._ticker.stop()

    def _tick(self) -> None:
        """Tick the elapsed times of the running cards in view. Each new text relays out its card,
        and with 200 running jobs ticking them all cost a frame's time every second; a card
        scrolled into view ticks at once (the scroll bar's ``valueChanged``)."""
        now = time.time()
        for _key, card in self._cards_in_view():
            card.update_elapsed(now)

    def _tick_in_view(self, _value: int) -> None:
        if self._ticker.isActive():
            self._tick()

    def _cards_in_view(self) -> Iterator[tuple[str, JobCard]]:
        top = self.scroll_area.verticalScrollBar().value()
        bottom = top + self.scroll_area.viewport().height()
        for key, card in self.cards.items():
            if not card.view.ended and card.y() <= bottom and card.y() + card.height() >= top:
                yield key, card

    def ticking(self) -> list[str]:
        """The keys of the cards whose elapsed time ticks now (running, and in view)."""
        return [key for key, _card in self._cards_in_view()]

    # --- actions ---------------------------------------------------------------------------------------------

    def card(self, key: str) -> JobCard | None:
        return self.cards.get(key)

    @property
    def saver(self) -> DownloadSaver | None:
        """Saves a finished file where the creator says (made for the bound session's downloads)."""
        return self.card_actions.saver

    def _dismiss_batch(self, batch_id: str) -> None:
        background = self.background
        if background is not None:
            self.work.start(background.batches.dismiss(batch_id), name="dismiss batch")

    def clear_finished(self) -> None:
        background = self.background
        if background is None:
            return
        background.work.clear_finished()  # the cards go as their records do
