"""What the Scripts workspace does with a draft: files, version history, bulk edits, and sending.

A mixin of :class:`~castdeck.ui.scripts.pane.ScriptsPane` (it uses the pane's widgets and services).
Every risky action keeps a named snapshot first: an import or a generate, replace all, renaming a
speaker, a reordering, a conversion to the structured form, restoring a version.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFileDialog, QLabel, QTabWidget, QWidget

from castdeck.scripts.edits import Edit, label_edits, segment_label_edit
from castdeck.scripts.lines import label_key
from castdeck.services.drafts import FileChangedError
from castdeck.services.script_sending import NotReady, Refusal
from castdeck.store.drafts import GENERATED, IMPORTED, QUEUED, Draft
from castdeck.store.script_files import ScriptFileError

from ..file_dialogs import use_folder
from ..widgets import ask, run_dialog
from .dialogs import HistoryDialog, MappingDialog, RenameDialog, SendDialog

if TYPE_CHECKING:
    from castdeck.scripts import Analysis, HostRef
    from castdeck.services.background import Background
    from castdeck.services.drafts import Drafts
    from castdeck.services.script_sending import ScriptSender
    from castdeck.services.session import Session

    from ..widgets import Banner
    from .draft_list import DraftListModel
    from .editor import ScriptEditor
    from .panels import SpeakersPanel

__all__ = ["ScriptActions"]

FILE_FILTER = "Scripts (*.txt *.md *.json);;Text (*.txt *.md);;Structured script (*.json)"


class ScriptActions(QWidget):
    """File, history, edit and send actions of the Scripts workspace (the base of its pane, which
    builds the widgets and services named below)."""

    if TYPE_CHECKING:
        session: Session
        background: Background
        drafts: Drafts
        scripts: ScriptSender
        hosts: list[HostRef] | None
        draft: Draft | None
        analysis: Analysis | None
        dialog: QWidget | None
        editor: ScriptEditor
        list_model: DraftListModel
        speakers: SpeakersPanel
        side: QTabWidget
        info: QLabel
        banner: Banner
        _loading: bool

        def run(self, coro: Coroutine[Any, Any, Any], context: str = "") -> asyncio.Task[Any]: ...
        def message(self, text: str, kind: str = "info", *, button: str | None = None,
                    action: Any = None) -> None: ...  # fmt: skip
        async def open_draft(self, draft_id: str) -> None: ...
        async def _reload_list(self) -> None: ...
        async def _load_hosts(self) -> None: ...
        def reload_list(self) -> None: ...
        def reanalyze(self) -> None: ...
        def refresh_panels(self) -> None: ...
        def jump(self, line: int, column: int) -> None: ...
        def _set_enabled(self, has_draft: bool) -> None: ...
        def balance(self) -> tuple[float | None, bool]: ...

    # --- files -----------------------------------------------------------------------------------------------

    def open_file_dialog(self) -> None:
        dialog = use_folder(
            self.session.runtime.settings, QFileDialog(self, "Open a script", "", FILE_FILTER), "scripts"
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.run(self._pick_and_open(dialog))

    async def _pick_and_open(self, dialog: QFileDialog) -> None:
        if await run_dialog(dialog):
            await self.open_paths_now(dialog.selectedFiles())
        dialog.deleteLater()

    def open_paths(self, paths: list[str]) -> None:
        self.run(self.open_paths_now(paths), "Could not open the file")

    async def open_paths_now(self, paths: list[str]) -> Draft | None:
        """Open script files as drafts (the last one in the editor); says what could not be opened."""
        opened: Draft | None = None
        problems: list[str] = []
        notes: list[str] = []
        for path in paths:
            try:
                draft, found = await self.drafts.open_file(Path(path), self.hosts)
            except ScriptFileError as error:
                problems.append(str(error))
                continue
            opened = draft
            notes.extend(f"{draft.title}: {note}" for note in found)
        if opened is not None:
            await self._reload_list()
            await self.open_draft(opened.id)
        if problems:
            self.message(" ".join(problems), "error")
        elif notes:
            self.message(" ".join(notes[:5]), "warning")
        return opened

    def save_file(self) -> None:
        if self.draft is not None and self.draft.file_path:
            self.run(self.save_to(None), "Could not save the file")
        else:
            self.save_as()

    def save_as(self) -> None:
        if self.draft is None:
            return
        dialog = QFileDialog(self, "Save the script as", "", FILE_FILTER)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        named = Path(self.draft.file_path).name if self.draft.file_path else f"{self.draft.title}.txt"
        use_folder(self.session.runtime.settings, dialog, "scripts", named, near=self.draft.file_path)
        self.run(self._pick_and_save(dialog))

    async def _pick_and_save(self, dialog: QFileDialog) -> None:
        if await run_dialog(dialog) and dialog.selectedFiles():
            await self.save_to(Path(dialog.selectedFiles()[0]), confirmed_new=True)
        dialog.deleteLater()

    async def save_to(self, path: Path | None, *, confirmed_new: bool = False,
                      overwrite: bool = False) -> Draft | None:  # fmt: skip
        """Write the draft to ``path`` (None: its own file). A file changed on disk since it was opened
        or saved is replaced only when the user says so."""
        draft = self.draft
        if draft is None:
            return None
        if path is not None and path.suffix.lower() == ".json":
            await self.drafts.snapshot(draft.id, "before_conversion")
        try:
            saved = await self.drafts.save_file(draft.id, path, hosts=self.hosts, overwrite=overwrite)
        except FileChangedError as error:
            if await ask(self, "The file changed on disk", str(error), "Replace the file"):
                return await self.save_to(path, overwrite=True)
            self.message("Not saved to the file; the draft keeps your version.", "info")
            return None
        except ScriptFileError as error:
            self.message(str(error), "error")
            return None
        self.draft = self.draft.evolve(file_path=saved.file_path, file_fingerprint=saved.file_fingerprint,
                                       title=saved.title) if self.draft else None  # fmt: skip
        self.list_model.update_draft(saved)
        self._update_info()
        self.message(f"Saved to {saved.file_path}.")
        return saved

    def delete_current(self) -> None:
        if self.draft is not None:
            self.run(self._delete(self.draft), "Could not delete the draft")

    async def _delete(self, draft: Draft) -> None:
        if not await ask(self, "Delete draft", f"Put “{draft.title}” aside? You can undo it now.", "Delete"):
            return
        await self.drafts.delete(draft.id)
        self.draft = None
        self.analysis = None
        self._loading = True
        self.editor.setPlainText("")
        self._loading = False
        self._set_enabled(False)
        self._update_info()
        await self._reload_list()
        self.message(f"“{draft.title}” was deleted.", button="Undo delete",
                     action=lambda: self.run(self._undelete(draft.id)))  # fmt: skip

    async def _undelete(self, draft_id: str) -> None:
        await self.drafts.undelete(draft_id)
        await self._reload_list()
        await self.open_draft(draft_id)
        self.banner.dismiss()

    # --- history ---------------------------------------------------------------------------------------------

    def show_history(self) -> None:
        if self.draft is not None:
            self.run(self._history(self.draft.id), "Could not read the history")

    async def _history(self, draft_id: str) -> None:
        dialog = HistoryDialog(await self.drafts.history(draft_id), self)
        self.dialog = dialog

        def picked() -> None:
            item = dialog.list.currentItem()
            snapshot_id = item.data(256) if item is not None else None
            if snapshot_id is not None:
                self.run(self._preview(dialog, int(snapshot_id)))

        dialog.list.currentItemChanged.connect(lambda *_: picked())
        if await run_dialog(dialog) and dialog.selected is not None:
            await self.restore(dialog.selected)
        dialog.deleteLater()

    async def _preview(self, dialog: HistoryDialog, snapshot_id: int) -> None:
        version = await self.drafts.version(snapshot_id)
        if version is not None:
            dialog.show_version(snapshot_id, version[0])

    async def restore(self, snapshot_id: int) -> None:
        """Bring back a version (the current text is kept as a version first; Ctrl+Z undoes it too)."""
        draft = self.draft
        version = await self.drafts.version(snapshot_id)
        if draft is None or version is None:
            return
        await self.drafts.snapshot(draft.id, "before_restore")
        text, mapping = version
        self._set_mapping({**draft.mapping, **mapping})
        self.editor.replace_all_text(text)
        self.message("The version was restored; the text before it is kept under History.")

    # --- edits -----------------------------------------------------------------------------------------------

    async def _keep_then(self, reason: str, edits: list[Edit] | None = None, text: str | None = None) -> None:
        if self.draft is None:
            return
        await self.drafts.snapshot(self.draft.id, reason)
        if edits is not None:
            self.editor.apply_edits(edits)
        if text is not None:
            self.editor.replace_all_text(text)

    def replace_all(self, edits: list[Edit]) -> None:
        count = len(edits)
        self.run(self._keep_then("before_replace", edits=edits), "Could not replace")
        self.message(f"Replaced {count} match{'es' * (count != 1)} (Ctrl+Z undoes it; the text before is under "
                     "History).")  # fmt: skip

    def rename_speaker(self, label: str) -> None:
        self.run(self._rename(label), "Could not rename")

    async def _rename(self, label: str) -> None:
        dialog = RenameDialog(label, self)
        self.dialog = dialog
        accepted = await run_dialog(dialog)
        new = dialog.new_label()
        dialog.deleteLater()
        if accepted and new and self.analysis is not None and new != label:
            await self.rename_now(label, new)

    async def rename_now(self, label: str, new: str) -> None:
        """Every label line of ``label`` becomes ``new`` (one undo step); its host goes with it."""
        if self.analysis is None or self.draft is None:
            return
        edits = label_edits(self.analysis.script, label, new)
        mapping = dict(self.draft.mapping)
        moved = next((mapping.pop(k) for k in list(mapping) if label_key(k) == label_key(label)), None)
        if moved is not None:
            mapping[new] = moved
            self._set_mapping(mapping)
        await self._keep_then("before_rename", edits=edits)
        self.speakers.select(new)

    def reorder(self, text: str) -> None:
        self.run(self._keep_then("before_reorder", text=text), "Could not reorder")

    def set_segment_label(self, chapter: int, segment: int, label: str) -> None:
        if self.analysis is None:
            return
        chapters = self.analysis.script.chapters
        if chapter < len(chapters) and segment < len(chapters[chapter].segments):
            turn = chapters[chapter].segments[segment]
            if label_key(label) != turn.key:
                self.editor.apply_edits([segment_label_edit(self.analysis.script, turn, label)])

    def set_chapter_title(self, chapter: int, title: str) -> None:
        if self.analysis is None or chapter >= len(self.analysis.script.chapters):
            return
        line = self.analysis.script.chapters[chapter].line
        if line is not None:
            raw = self.analysis.script.lines[line]
            self.editor.apply_edits(
                [(line, 0, len(raw), f"# {' '.join(title.split())}" if title.strip() else "#")]
            )

    def map_speaker(self, label: str, host_id: str | None) -> None:
        if self.draft is None:
            return
        mapping = {k: v for k, v in self.draft.mapping.items() if label_key(k) != label_key(label)}
        if host_id is not None:
            mapping[label] = host_id
        self._set_mapping(mapping)

    def _set_mapping(self, mapping: dict[str, str]) -> asyncio.Task[Any] | None:
        """Use ``mapping`` now and store it (await the task when what follows reads the stored draft)."""
        draft = self.draft
        if draft is None or mapping == draft.mapping:
            return None
        self.draft = draft.evolve(mapping=mapping)
        stored = self.run(self.drafts.update(draft.id, mapping=mapping), "Could not keep the hosts you chose")
        self.reanalyze()
        self.refresh_panels()
        return stored

    # --- sending ---------------------------------------------------------------------------------------------

    def send(self, action: str) -> None:
        if self.draft is not None and self.analysis is not None:
            self.run(self.send_now(action), "Could not send the script")

    async def send_now(self, action: str, *, values: dict[str, Any] | None = None) -> Draft | None:
        """Check the draft, ask for the podcast (unless ``values`` gives it), queue the request."""
        draft, analysis = self.draft, self.analysis
        if draft is None or analysis is None:
            return None
        await self.drafts.flush()
        unresolved = [
            label for p in analysis.blocking(action) if p.code == "unresolved_speaker" for label in p.labels
        ]
        choose = "These speakers match no host. Choose one for each:"
        if unresolved and self.hosts and not await self.choose_hosts(unresolved, choose):
            return None
        if values is None:
            # the draft's podcast, else the one the last draft went to (not simply the first listed)
            settings = self.session.runtime.settings
            podcast_id = draft.options.get("podcast_id") or settings.last_podcast
            dialog = SendDialog(self.session, action, analysis, podcast_id=podcast_id if isinstance(podcast_id, str) else None,
                                render=bool(draft.options.get("render", settings.render_on_send)), balance=self.balance()[0],
                                parent=self)  # fmt: skip
            self.dialog = dialog
            accepted = await run_dialog(dialog)
            values = dialog.values()
            dialog.deleteLater()
            if not accepted:
                return None
            if values.get("podcast_id"):
                settings.set_last_podcast(str(values["podcast_id"]))
        try:
            queued = await self.scripts.send(draft.id, action, podcast_id=values.get("podcast_id"),
                                             render=bool(values.get("render")), hosts=self.hosts)  # fmt: skip
        except NotReady as error:
            self.message(str(error), "error")
            if error.labels and self.hosts:
                await self.choose_hosts(error.labels, str(error))
            elif error.problems:
                self.jump(error.problems[0].line, error.problems[0].column)
            return None
        self._state_changed(queued)
        what = "import" if action == "import" else "generation"
        if self.session.write_block_reason:
            self.message(f"Queued: the {what} is sent once, with its idempotency key, when the service answers. "
                         "Its card is in Jobs (Ctrl+J).", "warning")  # fmt: skip
        else:
            self.message(
                f"Sending the {what}; its card in Jobs (Ctrl+J) follows it. The draft stays editable."
            )
        return queued

    async def choose_hosts(self, labels: list[str], message: str, again: str | None = None) -> bool:
        """The mapping, opened on ``labels``; True when hosts were chosen for them."""
        draft = self.draft
        if draft is None:
            return False
        current = {label: host for label, host in draft.mapping.items()}
        dialog = MappingDialog(labels, self.hosts or [], current, message=message, again=again, parent=self)
        self.dialog = dialog
        accepted = await run_dialog(dialog)
        chosen = dialog.chosen()
        dialog.deleteLater()
        if not accepted or not chosen:
            return False
        mapping = {k: v for k, v in (self.draft or draft).mapping.items()
                   if label_key(k) not in {label_key(x) for x in chosen}}  # fmt: skip
        mapping.update(chosen)
        stored = self._set_mapping(mapping)
        if stored is not None:
            await stored
        self.side.setCurrentWidget(self.speakers)
        self.speakers.select(labels[0])
        return True

    def _state_changed(self, draft: Draft) -> None:
        self.list_model.update_draft(draft)
        if self.draft is not None and draft.id == self.draft.id:
            self.draft = self.draft.evolve(
                state=draft.state, action=draft.action, outbox_entry=draft.outbox_entry, episode_id=draft.episode_id,
                problem=draft.problem, retry_key=draft.retry_key, retry_kind=draft.retry_kind, options=draft.options,
                mapping=draft.mapping,
            )  # fmt: skip
            self._update_info()
            if draft.state in (IMPORTED, GENERATED):
                done = "imported" if draft.state == IMPORTED else "generated"
                self.message(f"The script was {done}; the episode is being made (see its card in Jobs).")

    def _refused(self, refusal: Refusal) -> None:
        draft = refusal.draft
        if self.draft is None or draft.id != self.draft.id:
            self.reload_list()
            return
        key = ("The next attempt reuses the same idempotency key, as the service asked." if refusal.reuse_key
               else "The next attempt uses a new idempotency key.")  # fmt: skip
        self.message(
            f"The service refused the script: {refusal.message} The draft is kept as it is. {key}", "error"
        )
        if refusal.speakers:
            self.run(
                self._map_and_retry(refusal.speakers, draft.action or "import"), "Could not send the script"
            )

    async def _map_and_retry(self, labels: list[str], action: str) -> None:
        """The mapping, opened on the labels the service named (with the hosts read again: one may
        have been archived meanwhile); then the corrected request goes out."""
        await self._load_hosts()
        self.side.setCurrentWidget(self.speakers)
        if not self.hosts:
            return  # offline and never read: the Speakers panel says so
        verb = "import" if action == "import" else "generate"
        message = (f"The service found no host for {', '.join('[' + x + ']' for x in labels)}. Choose the host "
                   f"each stands for; the {verb} is sent again.")  # fmt: skip
        if (
            await self.choose_hosts(labels, message, again=f"Save and {verb} again")
            and self.draft is not None
        ):
            await self.send_now(action, values=dict(self.draft.options))

    def _update_info(self) -> None:
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
