"""Choose a script for Generate from script: a draft of the Scripts workspace, or a file
(``.txt``/``.md`` text, ``.json`` structured). Read off the UI thread; turned into spec 2.4's
``script`` object with the hosts it names."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.scripts import HostRef, analyze, read_structured, to_structured
from castdeck.scripts.estimate import estimate_turns
from castdeck.services.background import Background
from castdeck.services.drafts import read_script_text
from castdeck.services.tasks import TaskScope
from castdeck.store.script_files import ScriptFileError

from ..file_dialogs import use_folder
from ..widgets import run_dialog

__all__ = ["DRAFT", "FILE", "ScriptChoice", "ScriptSource"]

DRAFT, FILE = "draft", "file"


@dataclass(frozen=True)
class ScriptChoice:
    """The chosen script as the request takes it, or what keeps it from being sent."""

    script: dict[str, Any] | None
    host_ids: list[str]
    problem: str | None
    minutes: float = 0.0
    turns: int = 0


class ScriptSource(QWidget):
    changed = Signal()

    def __init__(self, background: Background, kind: str = DRAFT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.background = background
        self.kind = kind
        self.work = TaskScope(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.drafts = QComboBox(self)
        self.drafts.setAccessibleName("Script draft")
        self.drafts.addItem("Loading drafts…", None)
        file_row = QHBoxLayout()
        self.path_edit = QLineEdit(self)
        self.path_edit.setAccessibleName("Script file")
        self.path_edit.setPlaceholderText("A .txt, .md or .json script")
        self.browse = QPushButton("Choose…", self)
        self.browse.setAccessibleName("Choose a script file")
        file_row.addWidget(self.path_edit, 1)
        file_row.addWidget(self.browse)
        self.file_box = QWidget(self)
        self.file_box.setLayout(file_row)
        file_row.setContentsMargins(0, 0, 0, 0)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.drafts)
        layout.addWidget(self.file_box)
        layout.addWidget(self.summary)
        self.text: str | None = None
        self.mapping: dict[str, str] = {}
        self.structured_source = False
        self.error: str | None = None
        self.drafts.currentIndexChanged.connect(lambda _i: self._load_draft())
        self.path_edit.editingFinished.connect(lambda: self.set_file(self.path_edit.text()))
        self.browse.clicked.connect(self._browse)
        self.loading: asyncio.Task[None] = self.work.start(self._list_drafts(), name="list drafts")
        self.set_kind(kind)

    def set_kind(self, kind: str) -> None:
        self.kind = kind
        self.drafts.setVisible(kind == DRAFT)
        self.file_box.setVisible(kind == FILE)
        self.text, self.error = None, None
        if kind == DRAFT:
            self._load_draft()
        elif self.path_edit.text():
            self.set_file(self.path_edit.text())
        self.changed.emit()

    async def _list_drafts(self) -> None:
        drafts = await self.background.drafts.list_drafts()
        self.drafts.blockSignals(True)
        self.drafts.clear()
        if not drafts:
            self.drafts.addItem("No drafts yet: write one under Scripts", None)
        for draft in drafts:
            self.drafts.addItem(f"{draft.title} ({draft.words:,} words)", draft.id)
        self.drafts.blockSignals(False)
        self._load_draft()

    async def wait_loaded(self) -> None:
        while True:
            pending = [t for t in self.work.pending()]
            if not pending:
                return
            await asyncio.wait(pending)

    def select_draft(self, draft_id: str) -> None:
        self.drafts.setCurrentIndex(max(self.drafts.findData(draft_id), 0))

    def _load_draft(self) -> None:
        draft_id = self.drafts.currentData()
        if self.kind != DRAFT or not draft_id:
            return
        self.work.start(self._read_draft(str(draft_id)), name="read draft")

    async def _read_draft(self, draft_id: str) -> None:
        draft = await self.background.drafts.get(draft_id)
        if draft is None or self.kind != DRAFT or self.drafts.currentData() != draft_id:
            return
        self.text, self.mapping, self.structured_source, self.error = (
            draft.text,
            dict(draft.mapping),
            False,
            None,
        )
        self.changed.emit()

    def _browse(self) -> None:
        dialog = use_folder(
            self.background.session.runtime.settings,
            QFileDialog(self, "Choose a script", "", "Scripts (*.txt *.md *.json)"),
            "scripts",
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)

        async def pick() -> None:
            if await run_dialog(dialog) and dialog.selectedFiles():
                self.set_file(dialog.selectedFiles()[0])
            dialog.deleteLater()

        self.work.start(pick(), name="choose script file")

    def set_file(self, path: str) -> None:
        self.path_edit.setText(path)
        if self.kind == FILE and path.strip():
            self.work.start(self._read_file(Path(path.strip())), name="read script file")

    async def _read_file(self, path: Path) -> None:
        try:
            text = await read_script_text(path)
        except ScriptFileError as error:
            self.text, self.error = None, str(error)
        else:
            self.text, self.error = text, None
            self.mapping, self.structured_source = {}, path.suffix.lower() == ".json"
        self.changed.emit()

    def choice(self, hosts: list[HostRef] | None) -> ScriptChoice:
        """The chosen script turned into the request's ``script`` and ``host_ids``."""
        if self.error:
            return ScriptChoice(None, [], self.error)
        if self.text is None:
            return ScriptChoice(
                None, [], "Choose a script draft." if self.kind == DRAFT else "Choose a script file."
            )
        if self.structured_source:
            script, problems = read_structured(self.text, hosts=hosts)
            errors = [p for p in problems if p.stops("generate")]
            if script is None or errors:
                first = errors[0] if errors else problems[0]
                return ScriptChoice(None, [], f"Line {first.line + 1}: {first.message}")
            estimate = estimate_turns((s.host_id, s.text) for c in script.chapters for s in c.segments)
            return ScriptChoice(script.to_dict(), script.host_ids, None, estimate.minutes, estimate.turns)
        analysis = analyze(self.text, hosts=hosts, mapping=self.mapping)
        blocking = analysis.blocking("generate")
        if blocking:
            first = blocking[0]
            more = f" (and {len(blocking) - 1} more)" if len(blocking) > 1 else ""
            return ScriptChoice(None, [], f"Line {first.line + 1}: {first.message}{more}")
        structured, _table, problems = to_structured(analysis.script, self.mapping, hosts)
        if structured is None:
            labels = ", ".join(p.labels[0] for p in problems if p.labels)
            return ScriptChoice(None, [], f"Choose hosts for {labels} under Scripts → Speakers first.")
        return ScriptChoice(structured.to_dict(), structured.host_ids, None, analysis.estimate.minutes,
                            analysis.estimate.turns)  # fmt: skip

    def describe(self, choice: ScriptChoice) -> None:
        if choice.script is None:
            self.summary.setText("")
            return
        chapters = len(choice.script["chapters"])
        self.summary.setText(
            f"{chapters} chapter{'s' * (chapters != 1)}, {choice.turns} turns, {len(choice.host_ids)} hosts, "
            f"about {choice.minutes:.1f} narration minutes."
        )
