"""What the Scripts workspace does with a draft: files, version history, bulk edits, and sending.

:class:`ScriptActions` is owned by :class:`~castdeck.ui.scripts.pane.ScriptsPane`, which hands it the
services it uses and itself as a :class:`~castdeck.ui.scripts.seams.ScriptsView`: the few things
the actions ask of the pane (the open draft, its edits, messages), typed, so a pane that misses one
is a type error.
Every risky action keeps a named snapshot first: an import or a generate, replace all, renaming a
speaker, a reordering, a conversion to the structured form, restoring a version.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QWidget

from castdeck.scripts.edits import Edit, label_edits, segment_label_edit
from castdeck.scripts.lines import label_key
from castdeck.services.batch_plan import BATCH, BatchPlan, BatchProgress, mapped_for_all
from castdeck.services.drafts import FileChangedError
from castdeck.services.script_batches import opened_summary, script_files
from castdeck.services.script_sending import NotReady, Refusal
from castdeck.store.drafts import GENERATED, IMPORTED, Draft
from castdeck.store.script_files import ScriptFileError

from ..file_dialogs import use_folder
from ..widgets import ask, run_dialog
from .batch_dialog import BatchSendDialog
from .dialogs import HistoryDialog, MappingDialog, RenameDialog, SendDialog

if TYPE_CHECKING:
    from castdeck.services.batch_sending import BatchSender
    from castdeck.services.drafts import Drafts
    from castdeck.services.script_sending import ScriptSender
    from castdeck.services.session import Session

    from .seams import ScriptsView

__all__ = ["ScriptActions"]

FILE_FILTER = "Scripts (*.txt *.md *.json);;Text (*.txt *.md);;Structured script (*.json)"


class ScriptActions(QObject):
    """File, history, edit and send actions of the Scripts workspace. Its dialogs open over
    ``parent`` (the pane), whose lifetime it shares."""

    def __init__(self, view: ScriptsView, session: Session, drafts: Drafts, scripts: ScriptSender,
                 batches: BatchSender, parent: QWidget) -> None:  # fmt: skip
        super().__init__(parent)
        self.view = view
        self.session = session
        self.drafts = drafts
        self.scripts = scripts
        self.batches = batches
        self._parent = parent
        self.dialog: QWidget | None = None
        """The dialog last opened (history, rename, mapping, send: tests answer it)."""
        scripts.changed.connect(self._state_changed)
        scripts.refused.connect(self._refused)

    # --- files -----------------------------------------------------------------------------------------------

    def open_file_dialog(self) -> None:
        dialog = use_folder(
            self.session.runtime.settings,
            QFileDialog(self._parent, "Open a script", "", FILE_FILTER),
            "scripts",
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.view.run(self._pick_and_open(dialog))

    async def _pick_and_open(self, dialog: QFileDialog) -> None:
        if await run_dialog(dialog):
            await self.open_paths_now(dialog.selectedFiles())
        dialog.deleteLater()

    def open_paths(self, paths: list[str]) -> None:
        self.view.run(self.open_paths_now(paths), "Could not open the file")

    async def open_paths_now(self, paths: list[str]) -> Draft | None:
        """Open script files as drafts (the last one in the editor), a folder's scripts in name
        order; says what could not be opened, and for several what the batch needs in all."""
        given = [Path(path) for path in paths]
        files, more = await asyncio.to_thread(script_files, given)
        if not files:
            self.view.message("Nothing to open: Castdeck opens .txt, .md and .json scripts.", "error")
            return None
        opened: list[Draft] = []
        problems: list[str] = []
        notes: list[str] = []
        for path in files:
            try:
                draft, found = await self.drafts.open_file(path, self.view.hosts)
            except ScriptFileError as error:
                problems.append(str(error))
                continue
            opened.append(draft)
            notes.extend(f"{draft.title}: {note}" for note in found)
        if opened:
            await self.view.read_list()
            await self.view.open_draft(opened[-1].id)
            if len(opened) > 1:  # selected together: Import… or Generate… sends them as one batch
                self.view.select_drafts([draft.id for draft in opened])
        if problems:
            self.view.message(" ".join(problems), "error")
        elif len(opened) > 1:
            text, kind = opened_summary(opened, self.view.hosts, more)
            self.view.message(
                f"{text} They are selected: Import… or Generate… sends them as one batch.", kind
            )
        elif notes:
            self.view.message(" ".join(notes[:5]), "warning")
        return opened[-1] if opened else None

    def save_file(self) -> None:
        draft = self.view.draft
        if draft is not None and draft.file_path:
            self.view.run(self.save_to(None), "Could not save the file")
        else:
            self.save_as()

    def save_as(self) -> None:
        draft = self.view.draft
        if draft is None:
            return
        dialog = QFileDialog(self._parent, "Save the script as", "", FILE_FILTER)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        named = Path(draft.file_path).name if draft.file_path else f"{draft.title}.txt"
        use_folder(self.session.runtime.settings, dialog, "scripts", named, near=draft.file_path)
        self.view.run(self._pick_and_save(dialog))

    async def _pick_and_save(self, dialog: QFileDialog) -> None:
        if await run_dialog(dialog) and dialog.selectedFiles():
            await self.save_to(Path(dialog.selectedFiles()[0]), confirmed_new=True)
        dialog.deleteLater()

    async def save_to(self, path: Path | None, *, confirmed_new: bool = False,
                      overwrite: bool = False) -> Draft | None:  # fmt: skip
        """Write the draft to ``path`` (None: its own file). A file changed on disk since it was opened
        or saved is replaced only when the user says so."""
        view = self.view
        draft = view.draft
        if draft is None:
            return None
        if path is not None and path.suffix.lower() == ".json":
            await self.drafts.snapshot(draft.id, "before_conversion")
        try:
            saved = await self.drafts.save_file(draft.id, path, hosts=view.hosts, overwrite=overwrite)
        except FileChangedError as error:
            if await ask(self._parent, "The file changed on disk", str(error), "Replace the file"):
                return await self.save_to(path, overwrite=True)
            view.message("Not saved to the file; the draft keeps your version.", "info")
            return None
        except ScriptFileError as error:
            view.message(str(error), "error")
            return None
        view.draft = view.draft.evolve(file_path=saved.file_path, file_fingerprint=saved.file_fingerprint,
                                       title=saved.title) if view.draft else None  # fmt: skip
        view.show_row(saved)
        view.show_info()
        view.message(f"Saved to {saved.file_path}.")
        return saved

    def delete_current(self) -> None:
        draft = self.view.draft
        if draft is not None:
            self.view.run(self._delete(draft), "Could not delete the draft")

    async def _delete(self, draft: Draft) -> None:
        if not await ask(
            self._parent, "Delete draft", f"Put “{draft.title}” aside? You can undo it now.", "Delete"
        ):
            return
        await self.drafts.delete(draft.id)
        self.view.show_no_draft()
        await self.view.read_list()
        self.view.message(f"“{draft.title}” was deleted.", button="Undo delete",
                          action=lambda: self.view.run(self._undelete(draft.id)))  # fmt: skip

    async def _undelete(self, draft_id: str) -> None:
        await self.drafts.undelete(draft_id)
        await self.view.read_list()
        await self.view.open_draft(draft_id)
        self.view.dismiss_message()

    # --- history ---------------------------------------------------------------------------------------------

    def show_history(self) -> None:
        draft = self.view.draft
        if draft is not None:
            self.view.run(self._history(draft.id), "Could not read the history")

    async def _history(self, draft_id: str) -> None:
        dialog = HistoryDialog(await self.drafts.history(draft_id), self._parent)
        self.dialog = dialog

        def picked() -> None:
            item = dialog.list.currentItem()
            snapshot_id = item.data(256) if item is not None else None
            if snapshot_id is not None:
                self.view.run(self._preview(dialog, int(snapshot_id)))

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
        draft = self.view.draft
        version = await self.drafts.version(snapshot_id)
        if draft is None or version is None:
            return
        await self.drafts.snapshot(draft.id, "before_restore")
        text, mapping = version
        self._set_mapping({**draft.mapping, **mapping})
        self.view.replace_all_text(text)
        self.view.message("The version was restored; the text before it is kept under History.")

    # --- edits -----------------------------------------------------------------------------------------------

    async def _keep_then(self, reason: str, edits: list[Edit] | None = None, text: str | None = None) -> None:
        draft = self.view.draft
        if draft is None:
            return
        await self.drafts.snapshot(draft.id, reason)
        if edits is not None:
            self.view.apply_edits(edits)
        if text is not None:
            self.view.replace_all_text(text)

    def replace_all(self, edits: list[Edit]) -> None:
        count = len(edits)
        self.view.run(self._keep_then("before_replace", edits=edits), "Could not replace")
        self.view.message(f"Replaced {count} match{'es' * (count != 1)} (Ctrl+Z undoes it; the text before is "
                          "under History).")  # fmt: skip

    def rename_speaker(self, label: str) -> None:
        self.view.run(self._rename(label), "Could not rename")

    async def _rename(self, label: str) -> None:
        dialog = RenameDialog(label, self._parent)
        self.dialog = dialog
        accepted = await run_dialog(dialog)
        new = dialog.new_label()
        dialog.deleteLater()
        if accepted and new and self.view.analysis is not None and new != label:
            await self.rename_now(label, new)

    async def rename_now(self, label: str, new: str) -> None:
        """Every label line of ``label`` becomes ``new`` (one undo step); its host goes with it."""
        analysis, draft = self.view.analysis, self.view.draft
        if analysis is None or draft is None:
            return
        edits = label_edits(analysis.script, label, new)
        mapping = dict(draft.mapping)
        moved = next((mapping.pop(k) for k in list(mapping) if label_key(k) == label_key(label)), None)
        if moved is not None:
            mapping[new] = moved
            self._set_mapping(mapping)
        await self._keep_then("before_rename", edits=edits)
        self.view.select_speaker(new)

    def reorder(self, text: str) -> None:
        self.view.run(self._keep_then("before_reorder", text=text), "Could not reorder")

    def set_segment_label(self, chapter: int, segment: int, label: str) -> None:
        analysis = self.view.analysis
        if analysis is None:
            return
        chapters = analysis.script.chapters
        if chapter < len(chapters) and segment < len(chapters[chapter].segments):
            turn = chapters[chapter].segments[segment]
            if label_key(label) != turn.key:
                self.view.apply_edits([segment_label_edit(analysis.script, turn, label)])

    def set_chapter_title(self, chapter: int, title: str) -> None:
        analysis = self.view.analysis
        if analysis is None or chapter >= len(analysis.script.chapters):
            return
        line = analysis.script.chapters[chapter].line
        if line is not None:
            raw = analysis.script.lines[line]
            self.view.apply_edits(
                [(line, 0, len(raw), f"# {' '.join(title.split())}" if title.strip() else "#")]
            )

    def map_speaker(self, label: str, host_id: str | None) -> None:
        draft = self.view.draft
        if draft is None:
            return
        mapping = {k: v for k, v in draft.mapping.items() if label_key(k) != label_key(label)}
        if host_id is not None:
            mapping[label] = host_id
        self._set_mapping(mapping)

    def _set_mapping(self, mapping: dict[str, str]) -> asyncio.Task[Any] | None:
        """Use ``mapping`` now and store it (await the task when what follows reads the stored draft)."""
        view = self.view
        draft = view.draft
        if draft is None or mapping == draft.mapping:
            return None
        view.draft = draft.evolve(mapping=mapping)
        stored = view.run(self.drafts.update(draft.id, mapping=mapping), "Could not keep the hosts you chose")
        view.reanalyze()
        view.refresh_panels()
        return stored

    # --- sending ---------------------------------------------------------------------------------------------

    def send(self, action: str) -> None:
        selected = self.view.selected_ids()
        if len(selected) > 1:
            self.view.run(self.send_batch_now(action, selected), "Could not send the scripts")
        elif self.view.draft is not None and self.view.analysis is not None:
            self.view.run(self.send_now(action), "Could not send the script")

    async def send_batch_now(self, action: str, draft_ids: list[str], *,
                             values: dict[str, Any] | None = None) -> BatchProgress | None:  # fmt: skip
        """Check the drafts together, ask where and how they go (unless ``values`` says), map the
        labels chosen for all of them, and send them as one batch, in order, each once."""
        view = self.view
        await self.drafts.flush()
        drafts = [draft for draft in [await self.drafts.get(i) for i in draft_ids] if draft is not None]
        if not drafts:
            return None
        hosts = view.hosts
        balance, _cached = view.balance()
        batches = self.batches

        def planner(chosen: list[Draft], act: str, podcast_id: str | None, render: bool) -> BatchPlan:
            return batches.plan(
                chosen, act, podcast_id=podcast_id, render=render, hosts=hosts, balance=balance
            )

        settings = self.session.runtime.settings
        if values is None:
            # checked once off the UI thread first: the dialog's own checks then find each script's
            await batches.plan_off_thread(drafts, action, podcast_id=settings.last_podcast, render=False,
                                          hosts=hosts, balance=balance)  # fmt: skip
            values = await self._answer(
                BatchSendDialog(
                    self.session,
                    drafts,
                    planner,
                    action=action,
                    hosts=hosts,
                    podcast_id=settings.last_podcast,
                    render=settings.render_on_send,
                    parent=self._parent,
                )
            )
            if values is None:
                return None
            settings.set_render_on_send(bool(values["render"]))
        podcast_id = str(values.get("podcast_id") or "")
        if podcast_id:
            settings.set_last_podcast(podcast_id)
        shared: dict[str, str] = dict(values.get("shared") or {})
        if shared:  # mapped once for all: each script that uses the label keeps its host
            for mapped in await self.drafts.update_many(mapped_for_all(drafts, shared)):
                if view.draft is not None and mapped.id == view.draft.id:  # the open one shows it
                    view.draft = view.draft.evolve(mapping=mapped.mapping)
                    view.reanalyze()
                    view.refresh_panels()
        try:
            progress = await self.batches.send(
                list(values["draft_ids"]), str(values["action"]), podcast_id=podcast_id,
                render=bool(values["render"]), hosts=hosts, balance=balance,
            )  # fmt: skip
        except NotReady as error:  # the balance falls short (with the figures), or none can go
            view.message(str(error), "error")
            return None
        waiting = " once the service answers" if self.session.write_block_reason else ""
        view.message(f"Sending {progress.size} scripts{waiting}, one at a time in this order, each once with its "
                     "own idempotency key. The batch's card in Jobs (Ctrl+J) follows them.")  # fmt: skip
        return progress

    async def send_now(self, action: str, *, values: dict[str, Any] | None = None) -> Draft | None:
        """Check the draft, ask for the podcast (unless ``values`` gives it), queue the request."""
        view = self.view
        draft, analysis = view.draft, view.analysis
        if draft is None or analysis is None:
            return None
        await self.drafts.flush()
        unresolved = [
            label for p in analysis.blocking(action) if p.code == "unresolved_speaker" for label in p.labels
        ]
        choose = "These speakers match no host. Choose one for each:"
        if unresolved and view.hosts and not await self.choose_hosts(unresolved, choose):
            return None
        if values is None:
            # the draft's podcast, else the one the last draft went to (not simply the first listed)
            settings = self.session.runtime.settings
            podcast_id = draft.options.get("podcast_id") or settings.last_podcast
            values = await self._answer(
                SendDialog(
                    self.session,
                    action,
                    analysis,
                    podcast_id=podcast_id if isinstance(podcast_id, str) else None,
                    render=bool(draft.options.get("render", settings.render_on_send)),
                    balance=view.balance()[0],
                    parent=self._parent,
                )
            )
            if values is None:
                return None
            if values.get("podcast_id"):
                settings.set_last_podcast(str(values["podcast_id"]))
        try:
            queued = await self.scripts.send(draft.id, action, podcast_id=values.get("podcast_id"),
                                             render=bool(values.get("render")), hosts=view.hosts)  # fmt: skip
        except NotReady as error:
            view.message(str(error), "error")
            if error.labels and view.hosts:
                await self.choose_hosts(error.labels, str(error))
            elif error.problems:
                view.jump(error.problems[0].line, error.problems[0].column)
            return None
        self._state_changed(queued)
        what = "import" if action == "import" else "generation"
        if self.session.write_block_reason:
            view.message(f"Queued: the {what} is sent once, with its idempotency key, when the service answers. "
                         "Its card is in Jobs (Ctrl+J).", "warning")  # fmt: skip
        else:
            view.message(
                f"Sending the {what}; its card in Jobs (Ctrl+J) follows it. The draft stays editable."
            )
        return queued

    async def _answer(self, dialog: SendDialog | BatchSendDialog) -> dict[str, Any] | None:
        """What the creator chose in ``dialog`` (opened over the pane, kept as ``dialog`` for the
        tests); None when they cancelled."""
        self.dialog = dialog
        accepted = await run_dialog(dialog)
        values = dialog.values()
        dialog.deleteLater()
        return values if accepted else None

    async def choose_hosts(self, labels: list[str], message: str, again: str | None = None) -> bool:
        """The mapping, opened on ``labels``; True when hosts were chosen for them."""
        view = self.view
        draft = view.draft
        if draft is None:
            return False
        current = {label: host for label, host in draft.mapping.items()}
        dialog = MappingDialog(
            labels, view.hosts or [], current, message=message, again=again, parent=self._parent
        )
        self.dialog = dialog
        accepted = await run_dialog(dialog)
        chosen = dialog.chosen()
        dialog.deleteLater()
        if not accepted or not chosen:
            return False
        mapping = {k: v for k, v in (view.draft or draft).mapping.items()
                   if label_key(k) not in {label_key(x) for x in chosen}}  # fmt: skip
        mapping.update(chosen)
        stored = self._set_mapping(mapping)
        if stored is not None:
            await stored
        view.show_speakers()
        view.select_speaker(labels[0])
        return True

    def _state_changed(self, draft: Draft) -> None:
        view = self.view
        view.show_row(draft)
        if view.draft is not None and draft.id == view.draft.id:
            view.draft = view.draft.evolve(
                state=draft.state, action=draft.action, outbox_entry=draft.outbox_entry, episode_id=draft.episode_id,
                problem=draft.problem, retry_key=draft.retry_key, retry_kind=draft.retry_kind, options=draft.options,
                mapping=draft.mapping,
            )  # fmt: skip
            view.show_info()
            if draft.state in (IMPORTED, GENERATED):
                done = "imported" if draft.state == IMPORTED else "generated"
                view.message(f"The script was {done}; the episode is being made (see its card in Jobs).")

    def _refused(self, refusal: Refusal) -> None:
        view = self.view
        draft = refusal.draft
        if view.draft is None or draft.id != view.draft.id:
            view.run(view.read_list(), "Could not read the drafts")
            return
        key = ("The next attempt reuses the same idempotency key, as the service asked." if refusal.reuse_key
               else "The next attempt uses a new idempotency key.")  # fmt: skip
        if BATCH in draft.options:  # the batch goes on; this one is corrected and sent alone
            view.message(f"The service refused “{draft.title}”: {refusal.message} The draft is kept; the rest of "
                         f"the batch goes on. Correct it and send it alone. {key}", "error")  # fmt: skip
            return
        view.message(
            f"The service refused the script: {refusal.message} The draft is kept as it is. {key}", "error"
        )
        if refusal.speakers:
            view.run(
                self._map_and_retry(refusal.speakers, draft.action or "import"), "Could not send the script"
            )

    async def _map_and_retry(self, labels: list[str], action: str) -> None:
        """The mapping, opened on the labels the service named (with the hosts read again: one may
        have been archived meanwhile); then the corrected request goes out."""
        view = self.view
        await view.read_hosts()
        view.show_speakers()
        if not view.hosts:
            return  # offline and never read: the Speakers panel says so
        verb = "import" if action == "import" else "generate"
        message = (f"The service found no host for {', '.join('[' + x + ']' for x in labels)}. Choose the host "
                   f"each stands for; the {verb} is sent again.")  # fmt: skip
        if (
            await self.choose_hosts(labels, message, again=f"Save and {verb} again")
            and view.draft is not None
        ):
            await self.send_now(action, values=dict(view.draft.options))
