"""The Scripts workspace: local drafts beside a script editor with its problems, outline and speakers.

Writing needs no service: drafts are saved by themselves (within 2 s), kept with a version history,
and offered again after a crash. Import and Generate from script go through the outbox, so they are
queued while offline and sent exactly once. The file, history, edit and sending actions are a
:class:`~castdeck.ui.scripts.actions.ScriptActions` the pane owns (``script_actions``); the pane is
the :class:`~castdeck.ui.scripts.seams.ScriptsView` they ask for the open draft and its widgets.
Its widgets are made and laid out by :func:`~castdeck.ui.scripts.layout.build_widgets`.
"""

from __future__ import annotations

import asyncio
import html
import os
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QWidget

from castdeck.scripts import Analysis, HostRef, analyze, parse_text
from castdeck.scripts.edits import Edit
from castdeck.services.background import Background
from castdeck.services.drafts import SCRIPT_SUFFIXES, derive_title
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope, close_owned
from castdeck.store.drafts import GENERATED, IMPORTED, QUEUED, Draft

from ..palette import tone
from ..pickers import host_feed
from ..status import format_credits
from .actions import ScriptActions
from .colors import assign_slots
from .layout import build_widgets

__all__ = ["PANEL_DELAY_MS", "ScriptsPane"]

PANEL_DELAY_MS = 250
"""The outline, speakers and structure follow typing after this pause (the underlines at once)."""


class ScriptsPane(QWidget):
    title = "Scripts"
    openRequested = Signal(str, str)  # ("episode", id): a sent draft's episode, for the window to open

    def __init__(self, session: Session, background: Background, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scripts_pane")
        self.setAccessibleName("Scripts")
        self.session = session
        self.background = background
        self.drafts = background.drafts
        self.scripts = background.scripts
        self.work = TaskScope(self)
        self.hosts: list[HostRef] | None = None
        self.draft: Draft | None = None
        self.analysis: Analysis | None = None
        self._loading = False
        self._activated = False
        self._cached_balance: float | None = None
        self.script_actions = ScriptActions(
            self, session, self.drafts, self.scripts, background.batches, parent=self
        )
        """Files, history, bulk edits and sending, asking this pane as their ``ScriptsView``."""
        # the widgets, wired to the actions, kept under the names they always had (tests read them)
        ui = build_widgets(self, self.script_actions, session.runtime.settings, self.new_item)
        self.new_button, self.open_button, self.save_button = ui.new_button, ui.open_button, ui.save_button
        self.save_as_button, self.history_button = ui.save_as_button, ui.history_button
        self.import_button, self.generate_button = ui.import_button, ui.generate_button
        self.banner, self.splitter = ui.banner, ui.splitter
        self._one_draft = {
            b: (b.text(), b.accessibleName(), b.toolTip()) for b in (self.import_button, self.generate_button)
        }
        """What Import… and Generate… say for one draft (several selected, they count them)."""
        self.banner_button = self.banner.action_button
        """What the message offers to do ("Undo delete"), shown with that message."""
        self.list_model, self.list_view, self.delete_button = ui.list_model, ui.list_view, ui.delete_button
        self.info, self.views, self.structure, self.side = ui.info, ui.views, ui.structure, ui.side
        text, side = ui.text_page, self.side
        self.editor, self.find_bar, self.status = text.editor, text.find_bar, text.status
        self.undo_button, self.redo_button = text.undo_button, text.redo_button
        self.find_button, self.save_state = text.find_button, text.save_state
        self.problems_panel, self.outline, self.speakers = side.problems_panel, side.outline, side.speakers
        # what the pane does itself: the banner's button, opening a draft, following a link or a jump
        self.list_view.clicked.connect(self._row_clicked)
        self.list_view.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.list_view.activated.connect(self._row_activated)
        self.info.linkActivated.connect(self._link)
        self.views.currentChanged.connect(lambda _i: self.refresh_panels())
        for panel in (self.problems_panel, self.outline, self.speakers):
            panel.jumpRequested.connect(self.jump)
        self._set_enabled(False)
        self.show_info()
        self._panel_timer = QTimer(self)
        self._panel_timer.setSingleShot(True)
        self._panel_timer.timeout.connect(self.refresh_panels)
        self.editor.textChanged.connect(self._text_changed)
        self.editor.filesDropped.connect(lambda files: self.script_actions.open_paths(files))
        self.drafts.listChanged.connect(self.reload_list)
        self.drafts.saved.connect(self._saved)
        self.drafts.saveFailed.connect(self._save_failed)
        session.reconnected.connect(self.load_hosts)
        session.accountChanged.connect(self._account_changed)
        self.setAcceptDrops(True)

    @property
    def dialog(self) -> QWidget | None:
        """The dialog the actions last opened (every pane keeps its own as ``dialog``: tests answer it)."""
        return self.script_actions.dialog

    def _set_enabled(self, has_draft: bool) -> None:
        for control in (self.editor, self.save_button, self.save_as_button, self.history_button,
                        self.import_button, self.generate_button, self.delete_button, self.find_button,
                        self.structure):  # fmt: skip
            control.setEnabled(has_draft)

    # --- the main window's calls -----------------------------------------------------------------------------

    def activate(self) -> None:
        if self._activated:
            return
        self._activated = True
        self.run(self._start(), "Could not open the drafts")

    def new_item(self) -> None:
        self.run(self._new_draft(), "Could not make a draft")

    def can_create(self) -> bool:
        return True

    def refresh(self) -> None:
        self.load_hosts()
        self.reload_list()

    def focus_filter(self) -> None:
        self.find_bar.open_bar()

    def run(self, coro: Coroutine[Any, Any, Any], context: str = "") -> asyncio.Task[Any]:
        return self.work.start(coro, on_error=lambda error: self.banner.show_error(error, context))

    def message(
        self,
        text: str,
        kind: str = "info",
        *,
        button: str | None = None,
        action: Callable[[], object] | None = None,
    ) -> None:
        offered = (button, action) if button is not None and action is not None else None
        self.banner.show_message(text, kind=kind, action=offered)

    def dismiss_message(self) -> None:
        self.banner.dismiss()

    # --- the balance, also when offline ---------------------------------------------------------------------

    def balance(self) -> tuple[float | None, bool]:
        """The credit balance and whether it is the cached one (the service cannot be asked now)."""
        account = self.session.account
        if account is not None:
            return float(account.credits.balance), False
        return self._cached_balance, self._cached_balance is not None

    def _account_changed(self, account: Any) -> None:
        self._update_status()
        if account is not None:
            record = {"id": "balance", "balance": float(account.credits.balance)}
            self.work.start(
                self.session.cache_record("account", record), on_error=lambda _e: None, name="keep balance"
            )

    async def _read_cached_balance(self) -> None:
        if self.session.account is not None:
            self._account_changed(self.session.account)
            return
        record = await self.session.cached_record("account", "balance")
        if record is not None and isinstance(record.get("balance"), int | float):
            self._cached_balance = float(record["balance"])
            self._update_status()

    async def _start(self) -> None:
        self.load_hosts()
        await self._read_cached_balance()
        drafts = await self.drafts.list_drafts()
        self.list_model.set_drafts(drafts)
        recovered = [r for r in self.drafts.take_recovered() if self.list_model.row_of(r.draft_id) >= 0]
        if recovered:
            first = recovered[0]
            await self.open_draft(first.draft_id)
            names = ", ".join(f"“{r.title}”" for r in recovered)
            self.message(
                f"Castdeck ended without closing while you were writing {names}. It is open here as it was "
                "last saved (within 2 seconds of the last keystroke); earlier versions are under History.",
                "warning", button="Show history", action=self.script_actions.show_history,
            )  # fmt: skip
        elif drafts:
            await self.open_draft(drafts[0].id)

    def load_hosts(self) -> None:
        self.work.start(self.read_hosts(), on_error=lambda _error: None, name="load hosts")

    async def read_hosts(self) -> None:
        feed = host_feed(self.session)
        hosts: list[HostRef] = []
        offline = False
        while feed.has_more:
            page = await feed.next_page()
            offline = offline or page.offline
            hosts.extend(HostRef(str(h.id), h.name or str(h.id)) for h in page.items)
        self.hosts = None if offline and not hosts else hosts
        self.reanalyze()

    # --- drafts ----------------------------------------------------------------------------------------------

    def reload_list(self) -> None:
        self.run(self.read_list(), "Could not read the drafts")

    async def read_list(self) -> None:
        drafts = await self.drafts.list_drafts()
        selected = self.selected_ids()
        self.list_model.set_drafts(drafts)
        if len(selected) > 1:  # a batch being chosen stays chosen while the list is read again
            self.select_drafts(selected)
        self._select_current()

    def _select_current(self) -> None:
        row = self.list_model.row_of(self.draft.id) if self.draft is not None else -1
        if row < 0:
            return
        index = self.list_model.index(row, 0)
        chosen = self.list_view.selectionModel()
        if chosen.isSelected(index):  # one of several selected: it stays one of them
            chosen.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)
        else:
            self.list_view.setCurrentIndex(index)

    def selected_ids(self) -> list[str]:
        rows = sorted(index.row() for index in self.list_view.selectionModel().selectedRows())
        return [self.list_model.drafts[row].id for row in rows if 0 <= row < len(self.list_model.drafts)]

    def select_drafts(self, draft_ids: list[str]) -> None:
        chosen = self.list_view.selectionModel()
        chosen.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for draft_id in draft_ids:
            row = self.list_model.row_of(draft_id)
            if row >= 0:
                chosen.select(self.list_model.index(row, 0), flags)
        self._selection_changed()

    def _selection_changed(self) -> None:
        """Several drafts selected: Import… and Generate… send them as one batch, and say how many."""
        count = len(self.selected_ids())
        several = count > 1
        for button, verb in ((self.import_button, "Import"), (self.generate_button, "Generate")):
            text, name, tip = self._one_draft[button]
            button.setText(f"{verb} {count}…" if several else text)
            button.setAccessibleName(f"{verb} {count} scripts" if several else name)
            button.setToolTip(
                f"{verb} the {count} selected scripts as one batch, in order" if several else tip
            )
            if several:
                button.setEnabled(True)
        if not several:
            self._set_enabled(self.draft is not None)

    def reveal(self, item_id: str) -> None:
        """A batch card's "Open": the draft, open in the editor."""
        self.activate()
        self.run(self._reveal(item_id), "Could not open the draft")

    async def _reveal(self, draft_id: str) -> None:
        if self.list_model.row_of(draft_id) < 0:
            await self.read_list()
        await self.open_draft(draft_id)

    def _row_clicked(self, index: QModelIndex) -> None:
        draft_id = self.list_model.data(index, Qt.ItemDataRole.UserRole)
        if draft_id and (self.draft is None or draft_id != self.draft.id):
            self.run(self.open_draft(str(draft_id)), "Could not open the draft")

    def _row_activated(self, index: QModelIndex) -> None:
        """Double-click (or Enter): open the draft; a sent one's episode opens in Episodes too."""
        self._row_clicked(index)
        draft = (
            self.list_model.drafts[index.row()] if 0 <= index.row() < len(self.list_model.drafts) else None
        )
        if draft is not None and draft.episode_id:
            self.open_episode(draft.episode_id)

    async def _new_draft(self) -> None:
        draft = await self.drafts.create("")
        await self.read_list()
        await self.open_draft(draft.id)
        self.editor.setFocus()

    async def open_draft(self, draft_id: str) -> None:
        draft = await self.drafts.get(draft_id)
        if draft is None:
            return
        await self.drafts.set_open(draft_id)
        self.draft = draft
        self._loading = True
        try:
            # the speakers' colours first, so the text is highlighted once
            self.editor.highlighter.set_slots(assign_slots(parse_text(draft.text).labels))
            self.editor.setPlainText(draft.text)
        finally:
            self._loading = False
        self._set_enabled(True)
        self.reanalyze()
        self.refresh_panels()
        self.show_info()
        self._select_current()
        self.save_state.setText("Saved")
        if draft.file_path and await self.drafts.file_changed(draft_id):
            self.message(f"{draft.title} changed on disk since it was opened or saved here. The draft keeps your "
                         "version; Save to file asks before replacing the file.", "warning")  # fmt: skip

    def show_no_draft(self) -> None:
        self.draft = None
        self.analysis = None
        self._loading = True
        self.editor.setPlainText("")
        self._loading = False
        self._set_enabled(False)
        self.show_info()

    def show_row(self, draft: Draft) -> None:
        self.list_model.update_draft(draft)

    def show_info(self) -> None:
        draft = self.draft
        if draft is None:
            self.info.setText("No draft open: <b>New</b> (Ctrl+N) starts one; <b>Open…</b> (Ctrl+O) or drop "
                              ".txt, .md or .json scripts here. Drafts are kept on this computer and saved as you "
                              "type.")  # fmt: skip
            return
        where = f" · file: {html.escape(draft.file_path)}" if draft.file_path else " · kept in Castdeck"
        state = ""
        if draft.state == QUEUED:
            entry = self.background.outbox.get(draft.outbox_entry or "")
            waiting = f" ({html.escape(entry.last_error)})" if entry is not None and entry.last_error else ""
            state = f" · <b>queued</b>: sent once when the service answers{waiting}"
        elif draft.state in (IMPORTED, GENERATED) and draft.episode_id:
            done = "imported" if draft.state == IMPORTED else "generated"
            state = f' · <b>{done}</b>: <a href="episode:{draft.episode_id}">open the episode</a>'
        elif draft.problem:
            state = f" · <b>refused</b>: {html.escape(str(draft.problem.get('message') or ''))}"
        self.info.setText(f"<b>{html.escape(draft.title)}</b>{where}{state}")

    # --- typing ----------------------------------------------------------------------------------------------

    def _text_changed(self) -> None:
        if self._loading or self.draft is None:
            return
        if self.analysis is not None and self.editor.toPlainText() == self.analysis.script.text:
            # the colours were drawn again (the system turned dark, a speaker's colour moved), which
            # Qt also calls a change of the text: nothing was written, so nothing is saved
            return
        self.reanalyze()
        analysis = self.analysis
        assert analysis is not None
        title = derive_title(analysis.script, self.draft.file_path)
        if title != self.draft.title:
            self.draft = self.draft.evolve(title=title)
            self.show_info()
        self.drafts.edit(
            self.draft.id, analysis.script.text, words=analysis.estimate.words,
            minutes=round(analysis.estimate.minutes, 2), title=title,
        )  # fmt: skip
        self.save_state.setText("Saving…")
        if self.find_bar.isVisible():
            self.find_bar.refresh()
        self._panel_timer.start(PANEL_DELAY_MS)

    def apply_edits(self, edits: Sequence[Edit]) -> None:
        self.editor.apply_edits(edits)

    def replace_all_text(self, text: str) -> None:
        self.editor.replace_all_text(text)

    def reanalyze(self) -> None:
        """Read the script again: underlines, the problems list and the counts at once."""
        if self.draft is None:
            return
        self.analysis = analyze(self.editor.toPlainText(), hosts=self.hosts, mapping=self.draft.mapping)
        if self.editor.highlighter.set_slots(assign_slots(self.analysis.script.labels)):
            self.editor.highlighter.rehighlight()  # a speaker came or went: colours may move apart
        self.editor.set_problems(self.analysis.problems)
        if self.problems_panel.set_problems(self.analysis.problems):
            count = len(self.analysis.problems)
            self.side.setTabText(0, f"Problems ({count})" if count else "Problems")
        self._update_status()

    def refresh_panels(self) -> None:
        analysis, draft = self.analysis, self.draft
        if analysis is None or draft is None:
            return
        self.outline.set_script(analysis)
        self.speakers.set_script(analysis, self.hosts, draft.mapping)
        if self.views.currentWidget() is self.structure:
            self.structure.set_script(analysis, self.hosts, draft.mapping)
        errors = len(analysis.errors)
        self.side.setTabText(
            0, f"Problems ({errors + len(analysis.warnings)})" if analysis.problems else "Problems"
        )

    def _update_status(self) -> None:
        analysis = self.analysis
        if analysis is None:
            self.status.setText("")
            return
        estimate = analysis.estimate
        errors, warnings = len(analysis.errors), len(analysis.warnings)
        parts = [
            f"{estimate.words:,} words",
            f"{estimate.minutes:.1f} min",
            f"about {estimate.credits:,} credits",
        ]
        balance, cached = self.balance()
        over = False
        if balance is not None:
            over = estimate.credits > balance
            parts[-1] += f" of {format_credits(balance)}" + (" (last known balance)" if cached else "")
        parts.append(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}")
        self.status.setText(" · ".join(parts))
        self.status.setStyleSheet(f"color: {tone('problem')};" if over else "")
        self.status.setToolTip(
            "Narration time is estimated from syllables and pauses; 30 credits per narration minute."
            + (" The estimate is more than the balance." if over else "")
        )

    def _saved(self, draft: Draft) -> None:
        self.list_model.update_draft(draft)
        if self.draft is not None and draft.id == self.draft.id:
            self.save_state.setText("Saved")
            self.draft = self.draft.evolve(
                title=draft.title, revision=draft.revision, updated_at=draft.updated_at
            )

    def _save_failed(self, draft_id: str, message: str) -> None:
        self.save_state.setText("Not saved!")
        self.message(message, "error")

    # --- moving around ---------------------------------------------------------------------------------------

    def jump(self, line: int, column: int) -> None:
        self.views.setCurrentIndex(0)
        self.editor.go_to(line, column)

    def show_speakers(self) -> None:
        self.side.setCurrentWidget(self.speakers)

    def select_speaker(self, label: str) -> None:
        self.speakers.select(label)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            for panel in (self.outline, self.speakers):
                panel.forget_shown()  # the speakers' colours differ between light and dark
            self.refresh_panels()

    def closeEvent(self, event: QCloseEvent) -> None:
        close_owned(self)  # a closed workspace ends its work (what was typed is saved by the service)
        super().closeEvent(event)

    # --- dropping files --------------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        if any(u.isLocalFile() and _openable(u.toLocalFile()) for u in urls):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.script_actions.open_paths(paths)

    def _link(self, link: str) -> None:
        if link.startswith("episode:"):
            self.open_episode(link.removeprefix("episode:"))

    def open_episode(self, episode_id: str) -> None:
        """The episode a draft was sent as, selected in Episodes (the window opens it)."""
        self.openRequested.emit("episode", episode_id)


def _openable(path: str) -> bool:
    """A script file, or a folder (its scripts open, in name order)."""
    return path.lower().endswith(SCRIPT_SUFFIXES) or os.path.isdir(path)
