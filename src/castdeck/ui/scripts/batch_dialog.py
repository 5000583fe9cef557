"""Send several drafts at once: a season to one podcast, as imports or generations.

Opened from the Scripts workspace with several drafts selected (Import… or Generate…). Every script
is checked at once and listed in the order it will go (the drafts' titles in natural order; Move up
and Move down change it), each with what it holds or what keeps it back; a label that no host
answers to is mapped once, below the list, for every script that uses it; the whole batch's
narration and credits are weighed against the balance before anything is sent, and a batch the
balance cannot hold says by how much and which scripts fit (Send stays disabled; "Only the first N"
sends those). Nothing is sent from here: :meth:`values` says what the creator chose, and the
workspace hands it to :class:`~castdeck.services.batch_sending.BatchSender`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from castdeck.scripts import HostRef
from castdeck.scripts.batch import duration_text
from castdeck.scripts.lines import label_key
from castdeck.scripts.speakers import suggest_hosts
from castdeck.services.batch_plan import BatchPlan
from castdeck.services.render_choice import RENDER_OFF_MEANS
from castdeck.services.script_batches import natural_key
from castdeck.services.session import Session
from castdeck.store.drafts import Draft

from ..accessible import shows_value
from ..dialogs.episode_dialogs import podcast_label
from ..palette import tone
from ..pickers import ComboPicker, podcast_feed
from ..screen_fit import FittedDialog

__all__ = ["BatchSendDialog"]

COLUMNS = ("#", "Script", "Narration", "Credits", "Check")
Planner = Callable[[list[Draft], str, str | None, bool], BatchPlan]
"""(drafts, action, podcast id, render) -> the batch checked (the workspace binds hosts and balance)."""


class BatchSendDialog(FittedDialog):
    """The drafts of a batch, checked together, and where and how they go."""

    def __init__(self, session: Session, drafts: list[Draft], planner: Planner, *, action: str,
                 hosts: list[HostRef] | None, podcast_id: str | None, render: bool,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.session = session
        self.setWindowTitle(f"Send {len(drafts)} scripts")
        self.setAccessibleName("Send several scripts")
        self.setMinimumWidth(640)
        self.resize(820, 600)
        self._planner = planner
        self._drafts = sorted(drafts, key=lambda draft: natural_key(draft.title))  # Episode 2 before 10
        self._hosts = hosts or []
        self.shared: dict[str, str] = {}
        """Label -> host id chosen here, for every script that uses the label."""
        self.plan: BatchPlan | None = None
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.podcast_picker = ComboPicker(podcast_feed(session), podcast_label, name="podcast", parent=self)
        self.podcast_picker.set_selected(podcast_id)
        form.addRow("Podcast", self.podcast_picker)
        how = QWidget(self)
        how_row = QHBoxLayout(how)
        how_row.setContentsMargins(0, 0, 0, 0)
        self.import_radio = QRadioButton("Import the text", how)
        self.generate_radio = QRadioButton("Generate from the structure", how)
        self._how = QButtonGroup(self)
        for radio in (self.import_radio, self.generate_radio):
            self._how.addButton(radio)
            how_row.addWidget(radio)
        how_row.addStretch(1)
        (self.import_radio if action == "import" else self.generate_radio).setChecked(True)
        form.addRow("Send as", how)
        self.render_check = QCheckBox("Render audio and video", self)
        self.render_check.setChecked(render)
        self.render_check.setToolTip(RENDER_OFF_MEANS)
        form.addRow("Render", self.render_check)
        layout.addLayout(form)

        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setAccessibleName("Scripts in the batch")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        order = QHBoxLayout()
        self.up_button = QPushButton("Move up", self)
        self.down_button = QPushButton("Move down", self)
        for button, step in ((self.up_button, -1), (self.down_button, 1)):
            button.setAccessibleName(f"{button.text()} in the batch")
            button.setToolTip("The episodes are made in this order (Alt+Up, Alt+Down)")
            button.clicked.connect(lambda _=False, s=step: self.move_selected(s))
            order.addWidget(button)
        self.up_button.setShortcut("Alt+Up")
        self.down_button.setShortcut("Alt+Down")
        order.addStretch(1)
        layout.addLayout(order)

        self.labels_box = QWidget(self)
        self.labels_form = QFormLayout(self.labels_box)
        self.labels_form.setContentsMargins(0, 0, 0, 0)
        self.combos: dict[str, QComboBox] = {}
        layout.addWidget(self.labels_box)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        shows_value(self.summary, "Batch estimate")
        layout.addWidget(self.summary)
        self.fitting_check = QCheckBox(self)
        self.fitting_check.hide()
        self.fitting_check.toggled.connect(lambda _on: self._update())
        layout.addWidget(self.fitting_check)
        buttons = QDialogButtonBox(self)
        self.send_button = buttons.addButton("Send", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.podcast_picker.changed.connect(self.replan)
        self.render_check.toggled.connect(lambda _on: self.replan())
        self._how.buttonToggled.connect(self._how_toggled)
        self.table.itemSelectionChanged.connect(self._update_order_buttons)
        self.replan()

    # --- what the creator chose ------------------------------------------------------------------------------

    @property
    def action(self) -> str:
        return "import" if self.import_radio.isChecked() else "generate"

    def values(self) -> dict[str, Any]:
        """The podcast, the action, render, the drafts to send in order (ready ones, those that fit
        when asked), and the labels mapped here."""
        plan = self.plan
        ready = plan.ready if plan is not None else []
        if plan is not None and self.fitting_check.isChecked():
            ready = ready[: plan.fits]
        return {
            "podcast_id": self.podcast_picker.selected_id(),
            "action": self.action,
            "render": self.render_check.isChecked(),
            "draft_ids": [script.draft.id for script in ready],
            "shared": dict(self.shared),
        }

    def choose(self, label: str, host_id: str) -> None:
        """Map ``label`` to ``host_id`` for every script (as its combo does)."""
        combo = self.combos[label]
        combo.setCurrentIndex(combo.findData(host_id))

    def move_selected(self, step: int) -> None:
        """Move the selected script up (-1) or down (+1) in the batch."""
        row = self.table.currentRow()
        other = row + step
        if not (0 <= row < len(self._drafts) and 0 <= other < len(self._drafts)):
            return
        self._drafts[row], self._drafts[other] = self._drafts[other], self._drafts[row]
        self.replan()
        self.table.selectRow(other)

    # --- checking ----------------------------------------------------------------------------------------------

    def _mapped(self, draft: Draft) -> Draft:
        if not self.shared:
            return draft
        keys = {label_key(label) for label in self.shared}
        mapping = {k: v for k, v in draft.mapping.items() if label_key(k) not in keys}
        mapping.update(self.shared)
        return draft.evolve(mapping=mapping)

    def replan(self) -> None:
        drafts = [self._mapped(draft) for draft in self._drafts]
        podcast_id = self.podcast_picker.selected_id()
        self.plan = self._planner(drafts, self.action, podcast_id, self.render_check.isChecked())
        self._fill_table(self.plan)
        self._fill_labels(self.plan)
        self._update()

    def _fill_table(self, plan: BatchPlan) -> None:
        current = self.table.currentRow()
        self.table.setRowCount(len(plan.scripts))
        number = 0
        for row, script in enumerate(plan.scripts):
            number += script.ready
            check = "Ready" if script.ready else f"Left out: {script.problem}"
            if script.waits_for_hosts and self._hosts:
                named = ", ".join(f"[{label}]" for label in script.labels)
                check = f"Left out until {named} has a host (below)"
            cells = (str(number) if script.ready else "–", script.draft.title, duration_text(script.seconds),
                     f"{script.credits:,}", check)  # fmt: skip
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 4:
                    item.setToolTip("\n".join(script.details) if script.details else text)
                    if not script.ready:
                        item.setForeground(QColor(tone("problem")))
                if column in (2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
        if 0 <= current < self.table.rowCount():
            self.table.selectRow(current)
        self._update_order_buttons()

    def _fill_labels(self, plan: BatchPlan) -> None:
        unresolved = plan.unresolved()
        wanted = {label_key(label) for label in unresolved} | {label_key(label) for label in self.shared}
        for label in [label for label in self.combos if label_key(label) not in wanted]:
            combo = self.combos.pop(label)
            self.labels_form.removeRow(combo)
        for label, names in unresolved.items():
            if label in self.combos or not self._hosts:
                continue
            combo = QComboBox(self.labels_box)
            combo.setAccessibleName(f"Host for {label} in every script")
            combo.addItem("Choose a host…", None)
            suggested = suggest_hosts(label, self._hosts)
            for host in [*suggested, *(h for h in sorted(self._hosts, key=lambda h: h.name.casefold())
                                       if h not in suggested)]:  # fmt: skip
                combo.addItem(host.name, host.id)
            combo.currentIndexChanged.connect(lambda _i, lb=label, c=combo: self._label_chosen(lb, c))
            used = f"used in {len(names)} script{'s' * (len(names) != 1)}"
            self.labels_form.addRow(f"[{label}] ({used})", combo)
            self.combos[label] = combo
        self.labels_box.setVisible(bool(self.combos))

    def _label_chosen(self, label: str, combo: QComboBox) -> None:
        host_id = combo.currentData()
        if host_id:
            self.shared[label] = str(host_id)
        else:
            self.shared.pop(label, None)
        self.replan()

    def _update(self) -> None:
        plan = self.plan
        if plan is None:
            return
        ready = plan.ready
        text = plan.budget_text()
        held = plan.held
        if held:
            text += f" {len(held)} left out (see the list)."
        if not self._hosts and any(script.labels for script in plan.scripts):
            text += " The hosts are not known now: the service matches the labels by name."
        short = plan.short_by > 0
        self.fitting_check.setVisible(short and plan.fits > 0)
        if short and plan.fits > 0:
            self.fitting_check.setText(f"Only the first {plan.fits} (they fit the balance)")
        only_fitting = short and self.fitting_check.isChecked()
        self.summary.setText(text)
        self._fit_summary()
        self.summary.setStyleSheet(f"color: {tone('problem')};" if short and not only_fitting else "")
        count = plan.fits if only_fitting else len(ready)
        verb = "Import" if self.action == "import" else "Generate"
        self.send_button.setText(f"{verb} {count} script{'s' * (count != 1)}")
        self.send_button.setAccessibleName(self.send_button.text())
        why = ""
        if not self.podcast_picker.selected_id():
            why = "Choose the podcast first."
        elif not ready:
            why = "None of the scripts can be sent; the list says why."
        elif short and not only_fitting:
            why = "The balance cannot hold the whole batch."
        elif count == 0:
            why = "Not even the first script fits the balance."
        self.send_button.setEnabled(not why)
        self.send_button.setToolTip(why)

    def _fit_summary(self) -> None:
        """The whole estimate shows, however many lines it wraps to (the list gives way)."""
        layout = self.layout()
        margins = layout.contentsMargins() if layout is not None else None
        width = self.width() - (margins.left() + margins.right() if margins is not None else 0)
        height = self.summary.heightForWidth(max(200, width))
        if height != self.summary.minimumHeight():
            self.summary.setMinimumHeight(height)
            if layout is not None:
                layout.activate()  # laid out again now (a resize's layout has already run)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_summary()

    def _how_toggled(self, _button: object, on: bool) -> None:
        if on:
            self.replan()

    def _update_order_buttons(self) -> None:
        row = self.table.currentRow()
        self.up_button.setEnabled(row > 0)
        self.down_button.setEnabled(0 <= row < self.table.rowCount() - 1)
