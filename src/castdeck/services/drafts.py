"""Script drafts for the Scripts workspace: nothing a writer types is ever lost.

* Autosave: every change the editor reports (:meth:`Drafts.edit`) is written to the drafts file
  within :data:`AUTOSAVE_MAX` seconds (sooner, :data:`AUTOSAVE_IDLE` after typing pauses), on a
  thread of its own (the UI thread never waits on the disk). SQLite's journal makes each save
  atomic; :meth:`Drafts.close` saves what is left before the app ends.
* Version history: automatic snapshots on a cadence and named ones before every import, generate,
  bulk replace, conversion or restore (see :mod:`castdeck.store.drafts`); any version can be read
  and restored.
* Recovery: each run records the draft it has open; a run that never ended and whose process is
  gone was killed or crashed, and :attr:`Drafts.recovered` lists what it was writing so the next
  start can offer it.
* Files: ``.txt``/``.md`` (text) and ``.json`` (structured) open as drafts and save atomically; a
  file changed on disk since it was opened or saved is never silently overwritten
  (:class:`FileChangedError`).

Drafts live in the user data folder and need no service: the app can start offline and write.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from castdeck.scripts import HostRef, estimate, parse_text, read_structured, to_structured, to_text
from castdeck.scripts.text_form import ParsedScript
from castdeck.store.drafts import Draft, DraftStore, Run, SnapshotInfo
from castdeck.store.script_files import (
    Fingerprint,
    ScriptFileError,
    fingerprint,
    read_script_file,
    write_script_file,
)

from .runtime import Runtime, run_on

__all__ = [
    "AUTOSAVE_IDLE",
    "AUTOSAVE_MAX",
    "SCRIPT_SUFFIXES",
    "Drafts",
    "FileChangedError",
    "Recovered",
    "derive_title",
    "process_alive",
    "read_script_text",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

AUTOSAVE_IDLE = 0.5
"""Seconds after the last change before it is saved."""
AUTOSAVE_MAX = 1.5
"""Seconds a change may wait at most while typing goes on (the promise is 2 s; the write takes the rest)."""
SCRIPT_SUFFIXES = (".txt", ".md", ".json")
UNTITLED = "Untitled script"


class FileChangedError(ScriptFileError):
    """The file on disk changed since the draft was opened from it or saved to it."""


@dataclass(frozen=True)
class Recovered:
    """A draft a run was writing when it ended without closing (killed, crashed, power lost)."""

    draft_id: str
    title: str
    started_at: float
    changed_at: float | None


def process_alive(pid: int) -> bool:
    """True when a process with this id runs on this machine (an unknown answer counts as alive)."""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    if os.name == "nt":  # pragma: no cover - Windows
        kernel = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        try:
            kernel.GetExitCodeProcess(handle, ctypes.byref(code))
        finally:
            kernel.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def read_script_text(path: Path) -> str:
    """The text of a script file (read off the UI thread); raises :class:`ScriptFileError` with the
    reason a creator can act on (missing, unreadable, not text, too large)."""
    text, _ = await asyncio.to_thread(read_script_file, path)
    return text


def _absolute(path: Path) -> Path:
    """The path made absolute without touching the disk (files are compared by it)."""
    return Path(os.path.abspath(path))


def derive_title(script: ParsedScript, file_path: str | None = None) -> str:
    """A draft's name: its file's name, else the first chapter title, else its first words."""
    if file_path:
        return Path(file_path).name
    for chapter in script.chapters:
        if chapter.title:
            return chapter.title[:80]
    for segment in script.segments:
        words = segment.text.split()
        if words:
            return " ".join(words[:8])[:80] + ("…" if len(words) > 8 else "")
    for line in script.lines:
        if line.strip():
            return line.strip()[:80]
    return UNTITLED


class Drafts(QObject):
    """The drafts of this machine's user (not of a profile)."""

    listChanged = Signal()  # a draft was created, deleted, renamed or changed state
    saved = Signal(object)  # Draft: an autosave (or a save) reached the disk
    saveFailed = Signal(str, str)  # draft id, what went wrong (the text stays in memory and is tried again)
    recoveryTaken = Signal()  # the recovered drafts were offered to the writer (the Scripts workspace)

    def __init__(
        self,
        folder: Path,
        *,
        runtime: Runtime,
        alive: Callable[[int], bool] = process_alive,
        idle: float = AUTOSAVE_IDLE,
        longest: float = AUTOSAVE_MAX,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.folder = folder
        self._runtime = runtime
        self._runner = runtime.tasks
        """Where the autosaves run (the app's one runner)."""
        self.store = DraftStore(folder / "drafts.sqlite3")
        self.idle, self.longest = idle, longest
        self.run_id = self.store.begin_run(os.getpid())
        self.recovered: list[Recovered] = self._find_recovered(alive)
        self.store.forget_runs(time.time() - 30 * 86400)
        self._pending: dict[str, dict[str, Any]] = {}
        self._first_change: float | None = None
        self._open: str | None = None
        self._saving: asyncio.Task[None] | None = None
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse timer may fire 5 % late
        self._timer.timeout.connect(self._save_soon)

    def _find_recovered(self, alive: Callable[[int], bool]) -> list[Recovered]:
        found: list[Recovered] = []
        for run in self.store.unfinished_runs(exclude=self.run_id):
            if alive(run.pid):
                continue  # another Castdeck is running (or this one opened the file twice)
            self.store.end_run(run.id)
            found.extend(self._recoverable(run))
        return found

    def _recoverable(self, run: Run) -> list[Recovered]:
        if run.open_draft is None:
            return []
        draft = self.store.get(run.open_draft)
        if draft is None:
            return []
        log.warning("a run that ended without closing was writing draft %s (%s)", draft.id, draft.title)
        return [Recovered(draft.id, draft.title, run.started_at, run.changed_at)]

    def take_recovered(self) -> list[Recovered]:
        """The drafts a killed or crashed run was writing, handed out once."""
        found, self.recovered = self.recovered, []
        if found:
            self.recoveryTaken.emit()
        return found

    # --- on the drafts thread ------------------------------------------------------------------------------

    async def _on_disk(self, fn: Callable[..., T], *args: Any) -> T:
        return await run_on(self._runtime.disk, fn, *args)

    async def list_drafts(self) -> list[Draft]:
        return await self._on_disk(self.store.list_drafts)

    async def queued(self) -> list[tuple[str, str]]:
        """(draft id, outbox entry id) of every draft whose request is queued."""
        return await self._on_disk(self.store.queued)

    async def get(self, draft_id: str) -> Draft | None:
        """The draft with its latest text (a change not saved yet included)."""
        draft = await self._on_disk(self.store.get, draft_id)
        pending = self._pending.get(draft_id)
        if draft is not None and pending is not None:
            draft = draft.evolve(**{k: v for k, v in pending.items() if k != "mapping" or v is not None})
        return draft

    async def create(self, text: str = "", *, mapping: dict[str, str] | None = None,
                     file_path: str | None = None, fingerprint_: Fingerprint | None = None,
                     words: int | None = None, minutes: float | None = None) -> Draft:  # fmt: skip
        script = parse_text(text)
        title = derive_title(script, file_path)
        if words is None or minutes is None:
            counted = estimate(script)
            words, minutes = counted.words, round(counted.minutes, 2)
        draft = await self._on_disk(
            lambda: self.store.create(
                title, text, mapping=mapping, file_path=file_path,
                file_fingerprint=fingerprint_.to_dict() if fingerprint_ else None, words=words, minutes=minutes,
            )
        )  # fmt: skip
        self.listChanged.emit()
        return draft

    async def update(self, draft_id: str, **fields: Any) -> Draft:
        draft = await self._on_disk(lambda: self.store.update(draft_id, **fields))
        self.listChanged.emit()
        return draft

    async def update_many(self, changes: list[tuple[str, dict[str, Any]]]) -> list[Draft]:
        """Several drafts changed in one write (all of it reaches the file, or none)."""
        drafts = await self._on_disk(lambda: self.store.update_many(changes))
        self.listChanged.emit()
        return drafts

    async def delete(self, draft_id: str) -> None:
        await self.flush()
        await self._on_disk(self.store.delete, draft_id)
        if self._open == draft_id:
            await self.set_open(None)
        self.listChanged.emit()

    async def undelete(self, draft_id: str) -> None:
        await self._on_disk(self.store.undelete, draft_id)
        self.listChanged.emit()

    async def set_open(self, draft_id: str | None) -> None:
        """The draft the editor shows (what a crash recovery offers)."""
        self._open = draft_id
        await self._on_disk(lambda: self.store.set_open(self.run_id, draft_id))

    # --- autosave -------------------------------------------------------------------------------------------

    def edit(self, draft_id: str, text: str, *, words: int, minutes: float, title: str,
             mapping: dict[str, str] | None = None) -> None:  # fmt: skip
        """The editor's text changed: saved within ``longest`` seconds, sooner when typing pauses."""
        if self._closed:
            return
        entry = self._pending.setdefault(draft_id, {})
        entry.update(text=text, words=words, minutes=minutes, title=title)
        if mapping is not None:
            entry["mapping"] = dict(mapping)
        now = time.monotonic()
        if self._first_change is None:
            self._first_change = now
        due = min(now + self.idle, self._first_change + self.longest)
        self._timer.start(max(0, round((due - now) * 1000)))

    @property
    def unsaved(self) -> bool:
        return bool(self._pending)

    def _save_soon(self) -> None:
        if self._closed:
            return
        if self._saving is not None and not self._saving.done():
            self._timer.start(50)  # one write at a time; this change goes right after it
            return
        self._saving = self._runner.start(self._save_pending(), name="autosave drafts")

    async def _save_pending(self) -> None:
        while self._pending:
            draft_id, values = next(iter(self._pending.items()))
            del self._pending[draft_id]
            if not self._pending:
                self._first_change = None
            try:
                draft = await self._on_disk(self._write, draft_id, values)
            except Exception as error:  # a full disk, a locked file: keep the text and try again
                log.error("could not save draft %s: %s", draft_id, error)
                again = self._pending.setdefault(draft_id, {})
                for key, value in values.items():
                    again.setdefault(key, value)
                if self._first_change is None:
                    self._first_change = time.monotonic()
                self.saveFailed.emit(draft_id, f"Could not save the draft ({error}); Castdeck keeps trying.")
                if not self._closed:
                    self._timer.start(round(self.longest * 1000))
                return
            if draft is not None:
                self.saved.emit(draft)

    def _write(self, draft_id: str, values: dict[str, Any]) -> Draft | None:
        try:
            draft = self.store.save(
                draft_id, values["text"], title=values["title"], words=values["words"],
                minutes=values["minutes"], mapping=values.get("mapping"),
            )  # fmt: skip
        except KeyError:
            return None  # deleted meanwhile
        self.store.set_open(self.run_id, draft_id, changed=True)
        return draft

    async def flush(self) -> None:
        """Until every change so far is on disk; raises ``OSError`` when the disk keeps refusing."""
        self._timer.stop()
        for _attempt in range(3):
            if self._saving is not None and not self._saving.done():
                await asyncio.wait({self._saving})
            if not self._pending:
                return
            self._saving = self._runner.start(self._save_pending(), name="autosave drafts")
            await asyncio.wait({self._saving})
        if self._pending:
            raise OSError("The draft could not be saved to disk; see the message above the editor.")

    # --- history --------------------------------------------------------------------------------------------

    async def snapshot(self, draft_id: str, reason: str) -> SnapshotInfo:
        """Keep the draft as it is now (what was typed included) before something risky."""
        await self.flush()
        return await self._on_disk(self.store.snapshot, draft_id, reason)

    async def history(self, draft_id: str) -> list[SnapshotInfo]:
        await self.flush()
        return await self._on_disk(self.store.snapshots, draft_id)

    async def version(self, snapshot_id: int) -> tuple[str, dict[str, str]] | None:
        return await self._on_disk(self.store.snapshot_content, snapshot_id)

    # --- files ----------------------------------------------------------------------------------------------

    async def open_file(self, path: Path, hosts: list[HostRef] | None = None) -> tuple[Draft, list[str]]:
        """A draft of the script in ``path`` (a draft already made from the unchanged file is reused)
        and notes for the user (a structured file's problems). Raises :class:`ScriptFileError`."""
        path = _absolute(path)
        if path.suffix.lower() not in SCRIPT_SUFFIXES:
            raise ScriptFileError(f"{path.name}: Castdeck opens .txt, .md and .json scripts.")
        text, found = await asyncio.to_thread(read_script_file, path)
        existing = await self._on_disk(self.store.find_by_file, str(path))
        if existing is not None and Fingerprint.from_dict(existing.file_fingerprint) == found:
            return existing, []
        notes: list[str] = []
        mapping: dict[str, str] = {}
        if path.suffix.lower() == ".json":
            script, problems = read_structured(text)
            if script is None:
                where = problems[0] if problems else None
                detail = f" (line {where.line + 1}: {where.message})" if where else ""
                raise ScriptFileError(f"{path.name} is not a structured script{detail}.")
            text, mapping, warnings = to_text(script, None, hosts)
            notes = [p.message for p in (*problems, *warnings)]
        draft = await self.create(text, mapping=mapping, file_path=str(path), fingerprint_=found)
        return draft, notes

    async def save_file(self, draft_id: str, path: Path | None = None, *, hosts: list[HostRef] | None = None,
                        overwrite: bool = False) -> Draft:  # fmt: skip
        """Write the draft to ``path`` (default: the file it came from) atomically: text for ``.txt``
        and ``.md``, the structured form for ``.json`` (every label must resolve). Raises
        :class:`FileChangedError` when the draft's own file changed on disk since it was opened or
        last saved (unless ``overwrite``), :class:`ScriptFileError` when it cannot be written."""
        await self.flush()
        draft = await self._on_disk(self.store.get, draft_id)
        if draft is None:
            raise ScriptFileError("The draft is gone.")
        target = path or (Path(draft.file_path) if draft.file_path else None)
        if target is None:
            raise ScriptFileError("Choose where to save the draft.")
        target = _absolute(target)
        content = draft.text
        if target.suffix.lower() == ".json":
            structured, _table, problems = to_structured(parse_text(draft.text), draft.mapping, hosts)
            if structured is None:
                labels = ", ".join(p.labels[0] for p in problems if p.labels)
                raise ScriptFileError(
                    f"Map every speaker to a host before saving as JSON (not mapped: {labels})."
                )
            content = json.dumps(structured.to_dict(), indent=2, ensure_ascii=False) + "\n"
        own = draft.file_path is not None and _absolute(Path(draft.file_path)) == target
        known = Fingerprint.from_dict(draft.file_fingerprint) if own else None
        if own and not overwrite:
            now = await asyncio.to_thread(fingerprint, target)
            if now is not None and now != known:
                raise FileChangedError(
                    f"{target.name} changed on disk since Castdeck opened or saved it. Save anyway to "
                    "replace those changes, or save the draft under another name."
                )
        written = await asyncio.to_thread(write_script_file, target, content)
        title = target.name
        updated = await self.update(
            draft_id, file_path=str(target), file_fingerprint=written.to_dict(), title=title
        )
        return updated

    async def file_changed(self, draft_id: str) -> bool:
        """True when the draft's file exists and differs from what was opened or last saved."""
        draft = await self._on_disk(self.store.get, draft_id)
        if draft is None or not draft.file_path:
            return False
        try:
            now = await asyncio.to_thread(fingerprint, Path(draft.file_path))
        except ScriptFileError:
            return False
        return now is not None and now != Fingerprint.from_dict(draft.file_fingerprint)

    # --- end ------------------------------------------------------------------------------------------------

    async def close(self) -> None:
        """Save what is left, note a clean end, and close the file."""
        if self._closed:
            return
        try:
            await self.flush()
        except OSError:
            log.error("drafts closed with changes that could not be saved")
        self._closed = True
        self._timer.stop()
        await self._on_disk(self.store.end_run, self.run_id)
        self.store.close()
