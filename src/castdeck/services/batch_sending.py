"""A season sent at once: many drafts imported into one podcast (or generated from), exactly once.

:meth:`BatchSender.plan` checks the drafts together (what each would send, what keeps it back, what
the whole batch holds against the balance); :meth:`BatchSender.send` refuses a batch the balance
cannot hold (saying by how much, and how many of the scripts, in order, it covers), and otherwise
writes the whole plan first, in one transaction of the drafts file: each draft becomes ``queued``
with its batch, its place in it and the idempotency key it will be sent with. Only then does
anything leave the app.

The drafts then go out one at a time, in their order, each through the outbox under its own key
(:meth:`~castdeck.services.script_sending.ScriptSender.submit_planned`): the next is sent once the
one before has its answer, so the service accepts them, and lists their episodes, in the drafts'
order. A lost answer or a cut connection holds the batch where it is (the outbox resends that one
with the same key); a quit, a crash or a kill leaves the plan on disk, and the next start picks it
up (:meth:`BatchSender.resume`): a draft whose write reached the outbox is followed, one whose
write never did is sent under the key its plan holds, so nothing is sent twice and nothing is lost.

A refusal keeps its draft, with the reason, and the batch goes on with the next; the refused draft
can be corrected and sent alone (it stays counted in its batch). Each accepted draft's episode is
given the draft's title (the sender owes it, as for one draft), and its generation is followed by
the job tracker: :class:`BatchProgress` counts what was accepted, finished and refused, for the
batch's card.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QObject, Signal

from castdeck.api import new_idempotency_key
from castdeck.scripts import HostRef, analyze
from castdeck.store.drafts import DRAFT, GENERATED, IMPORTED, QUEUED, Draft
from castdeck.store.jobs import Job
from castdeck.store.outbox import REJECTED, OutboxEntry

from .batch_plan import (
    ACCEPTED,
    BATCH,
    FAILED,
    FINISHED,
    REFUSED,
    REMOVED,
    SENDING,
    WAITING,
    BatchItem,
    BatchPlan,
    BatchProgress,
    OverBalance,
    PlannedScript,
    batch_of,
)
from .drafts import Drafts
from .jobs import JobTracker
from .outbox import Outbox
from .runtime import run_on
from .script_sending import ACTIONS, NotReady, ScriptSender, episode_title
from .session import Session
from .work import Work

__all__ = ["BATCH", "BatchItem", "BatchPlan", "BatchProgress", "BatchSender", "OverBalance", "PlannedScript"]

log = logging.getLogger(__name__)

_Checked = tuple[
    dict[str, Any] | None, str | None, tuple[str, ...], tuple[str, ...], float, int, dict[str, str]
]
"""One script checked: its body (with a stand-in podcast), what keeps it back and where, the labels
no host answers to, its seconds and credits, and the host of each label."""
_CHECKS_KEPT = 512
_NO_PODCAST_YET = "00000000-0000-4000-8000-000000000000"
"""Checked before a podcast is chosen, a body is checked with this one in its place."""


class BatchSender(QObject):
    """Sends batches of drafts and keeps their progress (one :class:`BatchProgress` each)."""

    changed = Signal(object)  # BatchProgress: a batch was sent, moved on, or was dismissed (then empty)

    def __init__(self, drafts: Drafts, scripts: ScriptSender, outbox: Outbox, jobs: JobTracker,
                 session: Session, parent: QObject | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.drafts = drafts
        self.scripts = scripts
        self.outbox = outbox
        self.jobs = jobs
        self.session = session
        self._batches: dict[str, BatchProgress] = {}
        self._members: dict[str, Draft] = {}  # draft id -> the draft as last known (without its text)
        self._pumps: dict[str, asyncio.Task[None]] = {}
        self._checked: dict[tuple[Any, ...], _Checked] = {}  # see plan()
        self._keys: set[str] = set()  # the idempotency keys planned for batches (their cards are the batch's)
        self._answered = asyncio.Event()  # set on every outbox change: a pump waiting for its answer looks
        self._closed = False
        scripts.changed.connect(self._draft_changed)
        outbox.entryChanged.connect(self._entry_changed)
        jobs.jobChanged.connect(self._job_changed)

    # --- checking ----------------------------------------------------------------------------------------------

    def plan(self, drafts: Iterable[Draft], action: str, *, podcast_id: str | None, render: bool,
             hosts: list[HostRef] | None, balance: float | None) -> BatchPlan:  # fmt: skip
        """The drafts (with their text) checked together for ``action``, in the order given. Each
        script's check is kept (by its text, its mapping, the action and the hosts): choosing a
        host for a label, or another podcast, checks again only what changed. Pure work, no Qt:
        :meth:`plan_off_thread` runs it away from the UI thread."""
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        known = tuple((h.id, h.name) for h in hosts) if hosts is not None else None
        planned: list[PlannedScript] = []
        for draft in drafts:
            key = (draft.text, tuple(sorted(draft.mapping.items())), action, known)
            checked = self._checked.get(key)
            if checked is None:
                checked = self._check_one(draft, action, hosts)
                if len(self._checked) >= _CHECKS_KEPT:
                    self._checked.pop(next(iter(self._checked)))
                self._checked[key] = checked
            template, problem, details, labels, seconds, credits, resolved = checked
            body: dict[str, Any] | None = None
            if draft.state == QUEUED:
                problem, details = "already waiting to be sent", ()
            elif draft.state in (IMPORTED, GENERATED):
                problem, details = (f"already {draft.state} as an episode; send it alone to make another (a batch "
                                    "never makes a second episode of a script by mistake)"), ()  # fmt: skip
            elif template is not None:
                body = {**template, "podcast_id": podcast_id or _NO_PODCAST_YET, "render": render}
            planned.append(PlannedScript(draft, body, problem, labels, seconds, credits, resolved, details))
        return BatchPlan(action, podcast_id, render, planned, balance)

    async def plan_off_thread(self, drafts: list[Draft], action: str, *, podcast_id: str | None, render: bool,
                              hosts: list[HostRef] | None, balance: float | None) -> BatchPlan:  # fmt: skip
        """:meth:`plan` on the runtime's files thread (fifty long scripts take a few frames' time)."""
        return await run_on(
            self.session.runtime.files,
            lambda: self.plan(
                drafts, action, podcast_id=podcast_id, render=render, hosts=hosts, balance=balance
            ),
        )

    def _check_one(self, draft: Draft, action: str, hosts: list[HostRef] | None) -> _Checked:
        analysis = analyze(draft.text, hosts=hosts, mapping=draft.mapping)
        labels: tuple[str, ...] = ()
        if hosts is not None:
            labels = tuple(label for label, found in analysis.resolutions.items() if found.host_id is None)
        resolved = {label: found.host_id for label, found in analysis.resolutions.items() if found.host_id}
        template: dict[str, Any] | None = None
        problem: str | None = None
        details: tuple[str, ...] = ()
        try:
            template = self.scripts.check(
                draft, action, podcast_id=_NO_PODCAST_YET, render=False, hosts=hosts, analysis=analysis
            )
        except NotReady as error:
            problem = str(error)
            details = tuple(f"Line {p.line + 1}, column {p.column + 1}: {p.message}" for p in error.problems)
        estimate = analysis.estimate
        return template, problem, details, labels, estimate.seconds, estimate.credits, resolved

    # --- sending -----------------------------------------------------------------------------------------------

    async def send(self, draft_ids: list[str], action: str, *, podcast_id: str, render: bool,
                   hosts: list[HostRef] | None, balance: float | None) -> BatchProgress:  # fmt: skip
        """Check the drafts again as they are stored, refuse the batch when the balance cannot hold
        the ready ones (:class:`OverBalance`; nothing is sent), store the plan, and start sending
        in order. Drafts that cannot be sent are left out (not part of the batch); raises
        :class:`NotReady` when none can."""
        if not podcast_id:
            raise NotReady("Choose the podcast the episodes belong to.")
        await self.drafts.flush()
        found = [await self.drafts.get(draft_id) for draft_id in draft_ids]
        drafts = [draft for draft in found if draft is not None]
        plan = await self.plan_off_thread(drafts, action, podcast_id=podcast_id, render=render, hosts=hosts,
                                          balance=balance)  # fmt: skip
        ready = plan.ready
        if not ready:
            first = plan.held[0] if plan.held else None
            raise NotReady(
                f"None of the scripts can be sent{f': {first.draft.title}: {first.problem}' if first else '.'}"
            )
        if plan.short_by:
            raise OverBalance(plan)
        batch_id = uuid.uuid4().hex
        kind = ACTIONS[action]
        profile = self.session.profile.name
        for script in ready:
            await self.drafts.snapshot(script.draft.id, f"before_{action}")
        changes: list[tuple[str, dict[str, Any]]] = []
        for index, script in enumerate(ready):
            draft = script.draft
            key = draft.retry_key if draft.retry_kind == kind and draft.retry_key else new_idempotency_key()
            options = {k: v for k, v in draft.options.items() if k != BATCH}
            options.update(podcast_id=podcast_id, render=render)
            options[BATCH] = {"id": batch_id, "index": index, "size": len(ready)}
            mapping = {**script.resolved, **draft.mapping} if action == "generate" else draft.mapping
            changes.append((draft.id, {"mapping": mapping,
                "state": QUEUED, "action": action, "outbox_entry": None, "episode_id": None, "profile": profile,
                "problem": None, "retry_key": key, "retry_kind": kind, "options": options,
            }))  # fmt: skip
        stored = await self.drafts.update_many(changes)  # the plan: every key kept before anything is sent
        for draft in stored:
            self._members[draft.id] = draft.evolve(text="")
            self._keys.add(str(draft.retry_key))
        log.info("batch %s: %d scripts to %s as %s", batch_id, len(stored), podcast_id, action)
        progress = self._rebuild(batch_id)
        self._start_pump(batch_id)
        return progress

    def _start_pump(self, batch_id: str) -> None:
        if self._closed or batch_id in self._pumps:
            return
        task = self.session.tasks.start(self._pump(batch_id), name="send script batch")
        self._pumps[batch_id] = task
        task.add_done_callback(lambda _t: self._pumps.pop(batch_id, None))

    async def _pump(self, batch_id: str) -> None:
        """Send the batch's queued drafts in order, each once the one before is answered (its draft's
        new state is the sender's to write meanwhile: it need not hold the next one back)."""
        while not self._closed:
            queued = sorted(
                (d for d in self._members.values() if d.state == QUEUED and (batch_of(d) or {}).get("id") == batch_id),
                key=lambda d: int((batch_of(d) or {}).get("index", 0)),
            )  # fmt: skip
            if not queued:
                return
            for draft in queued:
                entry = self._entry_of(draft)
                if entry is None:
                    await self._submit(draft)
                    break
                if entry.unsent:  # its answer holds the batch (the outbox resends it with its key)
                    self._answered.clear()
                    await self._answered.wait()
                    break
            else:  # every one answered: until the sender has settled them
                self._answered.clear()
                await self._answered.wait()

    def _entry_of(self, draft: Draft) -> OutboxEntry | None:
        """The outbox write of a queued draft: the one it names, else one already stored under its key
        (the app stopped between storing the write and noting it on the draft)."""
        if draft.outbox_entry:
            entry = self.outbox.get(draft.outbox_entry)
            if entry is not None:
                return entry
        if draft.retry_key:
            for entry in self.outbox.entries():
                if (
                    entry.idempotency_key == draft.retry_key
                    and entry.kind == draft.retry_kind
                    and entry.state != REJECTED
                ):  # fmt: skip  (a refusal under a key to reuse is history)
                    return entry
        return None

    async def _submit(self, planned: Draft) -> None:
        draft = await self.drafts.get(planned.id)
        if draft is None:  # deleted while waiting its turn
            self._members[planned.id] = planned.evolve(
                state=DRAFT, problem={"message": "The draft was deleted."}
            )
            self._rebuild_for(planned)
            return
        if draft.state != QUEUED:
            self._remember(draft)
            return
        action = draft.action or "import"
        options = draft.options
        try:
            body = self.scripts.check(draft, action, podcast_id=str(options.get("podcast_id") or ""),
                                      render=bool(options.get("render")), hosts=None)  # fmt: skip
        except NotReady as error:  # changed into something that cannot be sent while it waited
            refused = await self.drafts.update(
                draft.id, state=DRAFT, problem={"message": f"Not sent: {error}", "action": action},
            )  # fmt: skip
            self._remember(refused)
            self.scripts.changed.emit(refused)
            return
        sent = await self.scripts.submit_planned(draft, action, body)
        self._remember(sent)

    # --- resuming ----------------------------------------------------------------------------------------------

    async def resume(self) -> None:
        """At start (after the sender's reconcile, before the outbox resends): know every batch, and
        go on sending those of this profile that were not finished."""
        await self.outbox.load()
        profile = self.session.profile.name
        for draft in await self.drafts.list_drafts():
            if batch_of(draft) is not None and draft.profile == profile:  # another profile's are its own
                self._members[draft.id] = draft
                if draft.retry_key:
                    self._keys.add(draft.retry_key)
        for batch_id in {(batch_of(d) or {})["id"] for d in self._members.values()}:
            self._rebuild(batch_id)
        for draft in list(self._members.values()):
            batch = batch_of(draft)
            if batch is None or draft.state != QUEUED or draft.profile != profile:
                continue
            entry = self._entry_of(draft)
            if entry is not None and entry.id != draft.outbox_entry:
                draft = await self.scripts.adopt(draft, entry)  # the write was stored, the draft not told
                self._remember(draft)
            self._start_pump(batch["id"])

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for signal, slot in ((self.scripts.changed, self._draft_changed), (self.outbox.entryChanged,
                             self._entry_changed), (self.jobs.jobChanged, self._job_changed)):  # fmt: skip
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
        pumps = list(self._pumps.values())
        for task in pumps:
            task.cancel()
        if pumps:
            await asyncio.gather(*pumps, return_exceptions=True)

    # --- progress ----------------------------------------------------------------------------------------------

    def batches(self) -> list[BatchProgress]:
        """Every batch known, newest first."""
        return list(reversed(self._batches.values()))

    def batch(self, batch_id: str) -> BatchProgress | None:
        return self._batches.get(batch_id)

    def owns(self, work: Work) -> bool:
        """True when ``work`` is the write or the job of a batch's draft (the batch's card shows it)."""
        entry, job = work.entry, work.job
        key = entry.idempotency_key if entry is not None else None
        entry_id = entry.id if entry is not None else None
        if job is not None:
            key = key or job.extra.get("idempotency_key")
            entry_id = entry_id or job.extra.get("outbox_entry")
        if key is not None and key in self._keys:
            return True
        return entry_id is not None and any(d.outbox_entry == entry_id for d in self._members.values())

    async def dismiss(self, batch_id: str) -> bool:
        """Let go of an ended batch's card: its drafts forget it. False while it is still going."""
        progress = self._batches.get(batch_id)
        if progress is None or not progress.ended:
            return False
        changes = []
        for item in progress.items:
            draft = self._members.pop(item.draft_id, None)
            if draft is not None and item.state != REMOVED:
                changes.append(
                    (draft.id, {"options": {k: v for k, v in draft.options.items() if k != BATCH}})
                )
        if changes:
            with contextlib.suppress(KeyError):
                await self.drafts.update_many(changes)
        del self._batches[batch_id]
        for item in progress.items:  # their jobs ended: no card of their own comes back
            job = self.jobs.job("episode", item.episode_id) if item.episode_id else None
            if job is not None and job.finished:
                self.jobs.forget(job)
        self.changed.emit(BatchProgress(batch_id, progress.action, progress.podcast_id))
        return True

    def _remember(self, draft: Draft) -> None:
        if batch_of(draft) is None:
            return
        if draft.retry_key:
            self._keys.add(draft.retry_key)
        self._members[draft.id] = draft.evolve(text="")
        self._rebuild_for(draft)
        self._answered.set()

    def _rebuild_for(self, draft: Draft) -> None:
        batch = batch_of(draft)
        if batch is not None:
            self._rebuild(batch["id"])

    def _draft_changed(self, draft: Draft) -> None:
        if batch_of(draft) is not None or draft.id in self._members:
            self._remember(draft)

    def _entry_changed(self, _entry: OutboxEntry) -> None:
        self._answered.set()

    def _job_changed(self, job: Job) -> None:
        if job.kind != "episode" or not job.finished:
            return
        for draft in list(self._members.values()):
            batch = batch_of(draft)
            if batch is None or draft.episode_id != job.resource_id or batch.get("outcome") == job.state:
                continue
            options = {**draft.options, BATCH: {**batch, "outcome": job.state}}
            self._members[draft.id] = draft.evolve(options=options)
            self._rebuild(batch["id"])
            if not self._closed:  # kept with the draft: a job the tracker forgets later still counts
                self.session.tasks.start(self._keep_outcome(draft.id, job.state), name="keep batch outcome")

    async def _keep_outcome(self, draft_id: str, outcome: str) -> None:
        draft = await self.drafts.get(draft_id)
        batch = batch_of(draft) if draft is not None else None
        if draft is None or batch is None:
            return
        with contextlib.suppress(KeyError):
            await self.drafts.update(
                draft_id, options={**draft.options, BATCH: {**batch, "outcome": outcome}}
            )

    def _rebuild(self, batch_id: str) -> BatchProgress:
        members = sorted(
            (d for d in self._members.values() if (batch_of(d) or {}).get("id") == batch_id),
            key=lambda d: int((batch_of(d) or {}).get("index", 0)),
        )
        items = tuple(self._item(draft) for draft in members)
        first = members[0] if members else None
        progress = BatchProgress(
            batch_id,
            (first.action if first is not None else None) or "import",
            str(first.options.get("podcast_id")) if first is not None else None,
            items,
        )
        if items:
            self._batches[batch_id] = progress
        else:
            self._batches.pop(batch_id, None)
        self.changed.emit(progress)
        return progress

    def _item(self, draft: Draft) -> BatchItem:
        batch = batch_of(draft) or {}
        index = int(batch.get("index", 0))
        title = episode_title(draft) or draft.title
        message = str(draft.problem.get("message") or "") if draft.problem else None
        if draft.state == QUEUED:
            state = SENDING if draft.outbox_entry else WAITING
            return BatchItem(draft.id, title, index, state)
        if draft.state in (IMPORTED, GENERATED) and draft.episode_id:
            outcome = batch.get("outcome")
            job = self.jobs.job("episode", draft.episode_id)
            if job is not None and job.finished:
                outcome = job.state
            state = {"completed": FINISHED, "failed": FAILED}.get(str(outcome), ACCEPTED)
            return BatchItem(draft.id, title, index, state, draft.episode_id)
        if message == "The draft was deleted.":
            return BatchItem(draft.id, title, index, REMOVED, message=message)
        return BatchItem(draft.id, title, index, REFUSED, message=message or "Not sent.")
