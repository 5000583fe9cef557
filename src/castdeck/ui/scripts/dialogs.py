"""Dialogs of the Scripts workspace: send (import or generate), map speakers to hosts, rename a speaker,
and the version history. All open with ``open()`` and are awaited (never ``exec()``)."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.models.limits import CREDITS_PER_NARRATION_MINUTE
from castdeck.scripts import Analysis, HostRef, parse_text
from castdeck.scripts.speakers import suggest_hosts
from castdeck.services.render_choice import RENDER_OFF_MEANS
from castdeck.services.session import Session
from castdeck.store.drafts import SnapshotInfo

from ..dialogs.episode_dialogs import podcast_label
from ..palette import tone
from ..pickers import ComboPicker, podcast_feed
from ..screen_fit import FittedDialog
from ..status import format_credits
from .colors import assign_slots, is_dark, muted
from .highlighter import ScriptHighlighter

__all__ = ["HistoryDialog", "MappingDialog", "RenameDialog", "SendDialog", "reason_text"]

REASONS = {
    "auto": "Saved automatically",
    "before_import": "Before an import",
    "before_generate": "Before generating",
    "before_replace": "Before replace all",
    "before_conversion": "Before a conversion",
    "before_restore": "Before restoring a version",
    "before_rename": "Before renaming a speaker",
    "before_reorder": "Before reordering",
}


def reason_text(reason: str) -> str:
    return REASONS.get(reason, reason.replace("_", " ").capitalize())


class SendDialog(FittedDialog):
    """Import the draft as an episode, or generate one from it: the podcast, render on or off, and
    what it will hold. Offline it still queues: the request goes out once the service answers."""

    def __init__(self, session: Session, action: str, analysis: Analysis, *, podcast_id: str | None,
                 render: bool, balance: float | None = None, parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.action = action
        title = "Import as an episode" if action == "import" else "Generate an episode from this script"
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.session = session
        self._podcast_id = podcast_id
        self.podcast_picker = ComboPicker(podcast_feed(session), podcast_label, name="podcast", parent=self)
        self.podcast_picker.set_selected(podcast_id)
        form.addRow("Podcast", self.podcast_picker)
        session.reconnected.connect(self._read_podcasts_again)
        self.render_check = QCheckBox("Render audio and video", self)
        self.render_check.setChecked(render)
        render_note = QLabel(RENDER_OFF_MEANS, self)
        render_note.setWordWrap(True)
        render_note.setStyleSheet("color: palette(mid);")
        render_box = QWidget(self)
        render_column = QVBoxLayout(render_box)
        render_column.setContentsMargins(0, 0, 0, 0)
        render_column.addWidget(self.render_check)
        render_column.addWidget(render_note)
        form.addRow("Render", render_box)
        estimate = analysis.estimate
        if session.account is not None:
            balance = float(session.account.credits.balance)
        credits = estimate.credits
        summary = (
            f"{estimate.words:,} words, about {estimate.minutes:.1f} narration minutes: holds about {credits:,} "
            f"credits ({CREDITS_PER_NARRATION_MINUTE} a minute)"
        )
        if balance is not None:
            summary += f" of the balance of {format_credits(balance)}."
        self.summary = QLabel(summary, self)
        self.summary.setWordWrap(True)
        if balance is not None and credits > float(balance):
            self.summary.setStyleSheet(f"color: {tone('problem')};")
        form.addRow("Estimate", self.summary)
        if action == "import":
            how = ("The text goes as written; the service leaves out directions and notes, and matches "
                   "speakers by name or by the hosts chosen under Speakers.")  # fmt: skip
        else:
            how = ("The chapters and turns go as a structured script; every speaker must be a host. "
                   "Generation always creates a new episode.")  # fmt: skip
        note = QLabel(how, self)
        note.setWordWrap(True)
        note.setStyleSheet("color: palette(mid);")
        layout.addLayout(form)
        layout.addWidget(note)
        self.offline = QLabel(self)
        self.offline.setWordWrap(True)
        if session.write_block_reason:
            self.offline.setText(
                "The service cannot be reached now. The request is kept and sent once, with its idempotency "
                "key, as soon as it answers."
            )
        layout.addWidget(self.offline)
        buttons = QDialogButtonBox(self)
        self.ok_button = buttons.addButton("Import" if action == "import" else "Generate",
                                           QDialogButtonBox.ButtonRole.AcceptRole)  # fmt: skip
        self.ok_button.setAccessibleName(self.ok_button.text())
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.podcast_picker.changed.connect(self._update)
        self._update()

    def _update(self) -> None:
        self.ok_button.setEnabled(bool(self.podcast_picker.selected_id()))

    def _read_podcasts_again(self) -> None:
        """Opened offline with no podcasts kept: read them once the service is back (or nothing
        could ever be chosen, and Import would stay disabled)."""
        if not self.podcast_picker.items:
            self.podcast_picker.reload(
                podcast_feed(self.session), select=self.podcast_picker.selected_id() or self._podcast_id
            )

    def values(self) -> dict[str, Any]:
        return {"podcast_id": self.podcast_picker.selected_id(), "render": self.render_check.isChecked()}

    def accept(self) -> None:
        self.session.runtime.settings.set_render_on_send(
            self.render_check.isChecked()
        )  # the next Generate or Import starts from it
        super().accept()


class MappingDialog(FittedDialog):
    """Choose the host of each named label (after a 422 ``unresolved_speakers``, or before sending).
    The hosts that come closest are proposed first."""

    def __init__(self, labels: list[str], hosts: list[HostRef], mapping: dict[str, str], *,
                 message: str = "", again: str | None = None, parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setWindowTitle("Choose hosts for speakers")
        self.setAccessibleName("Choose hosts for speakers")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        intro = QLabel(message or "Choose the host each speaker label stands for.", self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.combos: dict[str, QComboBox] = {}
        for label in labels:
            combo = QComboBox(self)
            combo.setAccessibleName(f"Host for {label}")
            combo.addItem("Choose a host…", None)
            suggested = suggest_hosts(label, hosts)
            ordered = list(suggested) + [
                h for h in sorted(hosts, key=lambda h: h.name.casefold()) if h not in suggested
            ]
            for host in ordered:
                combo.addItem(host.name + ("  (closest)" if host in suggested[:1] else ""), host.id)
            current = mapping.get(label)
            if current is not None and combo.findData(current) >= 0:
                combo.setCurrentIndex(combo.findData(current))
            elif suggested:
                combo.setCurrentIndex(combo.findData(suggested[0].id))
            combo.currentIndexChanged.connect(self._update)
            form.addRow(f"[{label}]", combo)
            self.combos[label] = combo
        layout.addLayout(form)
        if not hosts:
            empty = QLabel("No hosts are known (offline, never loaded). Connect to choose hosts.", self)
            empty.setWordWrap(True)
            layout.addWidget(empty)
        buttons = QDialogButtonBox(self)
        self.again = again
        self.ok_button = buttons.addButton(again or "Save", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok_button.setAccessibleName(self.ok_button.text())
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._update()

    def _update(self, *_: object) -> None:
        self.ok_button.setEnabled(all(c.currentData() for c in self.combos.values()))

    def choose(self, label: str, host_id: str) -> None:
        combo = self.combos[label]
        combo.setCurrentIndex(combo.findData(host_id))

    def chosen(self) -> dict[str, str]:
        return {label: str(c.currentData()) for label, c in self.combos.items() if c.currentData()}


class RenameDialog(FittedDialog):
    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Rename speaker everywhere")
        self.setAccessibleName("Rename speaker everywhere")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Every [{label}] line becomes:", self))
        self.edit = QLineEdit(label, self)
        self.edit.setAccessibleName("New label")
        self.edit.selectAll()
        layout.addWidget(self.edit)
        self.error = QLabel(self)
        self.error.setStyleSheet(f"color: {tone('problem')};")
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Rename")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.edit.textChanged.connect(self._check)
        self._check()

    def _check(self, *_: object) -> None:
        text = " ".join(self.edit.text().split())
        problem = ""
        if not text:
            problem = "A label needs a name."
        elif "[" in text or "]" in text:
            problem = "A label cannot hold [ or ]."
        elif len(text) > 200:
            problem = "A label may have at most 200 characters."
        self.error.setText(problem)
        self.ok_button.setEnabled(not problem)

    def new_label(self) -> str:
        return " ".join(self.edit.text().split())


def _when(moment: float) -> str:
    age = time.time() - moment
    stamp = datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M:%S")
    if age < 60:
        return f"{stamp} (just now)"
    if age < 3600:
        return f"{stamp} ({int(age // 60)} min ago)"
    return stamp


class HistoryDialog(FittedDialog):
    """The draft's versions: automatic and named snapshots, each readable and restorable."""

    def __init__(self, versions: list[SnapshotInfo], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Version history")
        self.setAccessibleName("Version history")
        self.resize(860, 560)
        layout = QHBoxLayout(self)
        left = QVBoxLayout()
        self.list = QListWidget(self)
        self.list.setAccessibleName("Versions")
        for version in versions:
            item = QListWidgetItem(
                f"{_when(version.created_at)}\n{reason_text(version.reason)} · {version.words:,} words"
            )
            item.setData(Qt.ItemDataRole.UserRole, version.id)
            self.list.addItem(item)
        if not versions:
            none = QListWidgetItem("No versions yet: one is kept every few minutes while you write.")
            none.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(none)
        left.addWidget(self.list, 1)
        layout.addLayout(left, 2)
        right = QVBoxLayout()
        self.preview = QPlainTextEdit(self)
        self.preview.setReadOnly(True)
        self.preview.setAccessibleName("Version text")
        self._highlighter = ScriptHighlighter(self.preview.document(), dark=is_dark(self), muted=muted(self))
        right.addWidget(self.preview, 1)
        row = QHBoxLayout()
        self.restore_button = QPushButton("Restore this version", self)
        self.restore_button.setAccessibleName("Restore this version")
        self.restore_button.setEnabled(False)
        close = QPushButton("Close", self)
        close.clicked.connect(self.reject)
        self.restore_button.clicked.connect(self.accept)
        row.addStretch(1)
        row.addWidget(self.restore_button)
        row.addWidget(close)
        right.addLayout(row)
        layout.addLayout(right, 3)
        self.selected: int | None = None

    def show_version(self, snapshot_id: int, text: str) -> None:
        self.selected = snapshot_id
        self._highlighter.set_slots(assign_slots(parse_text(text).labels))
        self.preview.setPlainText(text)
        self.restore_button.setEnabled(True)
