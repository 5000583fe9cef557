"""Import a draft or generate from it, through the outbox, exactly once.

:meth:`ScriptSender.send` checks the draft (every problem that would stop the request, the labels
that resolve to no host), keeps a snapshot of it, and hands the request to the outbox, which stores
it with its idempotency key before sending: offline it waits and goes out once on reconnect, and a
lost answer is resent with the same key. The draft becomes ``queued``, then ``imported`` or
``generated`` with its episode when the service accepts it.

A refusal never loses the draft: it goes back to ``draft`` with what the service said (a 422
``unresolved_speakers`` names the labels, so the workspace opens the mapping on them; a 422 from
the speech provider, a 409, a 400 say what to correct). Spec 4.2: when the refusal's
``recovery.idempotency_key`` is ``reuse``, the corrected request is sent under the same key; when it
is ``new`` (or not given) a new key is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, Signal

from castdeck.api import CastdeckError, NotFoundError
from castdeck.api.models import EpisodeGenerateInput, EpisodeImportInput, field_errors
from castdeck.api.models.limits import MAX_EPISODE_TITLE_CHARS
from castdeck.scripts import Analysis, HostRef, Problem, analyze, to_structured
from castdeck.scripts.requests import generate_body, import_body
from castdeck.store.drafts import DRAFT, GENERATED, IMPORTED, QUEUED, Draft
from castdeck.store.outbox import OutboxEntry

from .drafts import SCRIPT_SUFFIXES, UNTITLED, Drafts
from .outbox import Outbox
from .session import Session
from .starting import JobStarter

__all__ = ["ACTIONS", "TITLE_OWED", "NotReady", "Refusal", "ScriptSender", "episode_title"]

log = logging.getLogger(__name__)

ACTIONS = {"import": "episode_import", "generate": "episode_generate"}
TITLE_OWED = "title_owed"
"""In a sent draft's options: its episode has not been given the draft's title yet."""


def episode_title(draft: Draft) -> str | None:
    """The title the episode made from ``draft`` gets: the draft's name (a file's without its
    suffix), at most the service's limit; None for a draft never named ("Untitled script")."""
    name = draft.title.strip()
    if name.lower().endswith(SCRIPT_SUFFIXES):
        name = name.rsplit(".", 1)[0].strip()
    if not name or name == UNTITLED:
        return None
    return name[:MAX_EPISODE_TITLE_CHARS]


_DONE = {"import": IMPORTED, "generate": GENERATED}


class NotReady(Exception):
    """The draft cannot be sent as it is; ``problems`` say where, ``labels`` need a host."""

    def __init__(
        self, message: str, problems: list[Problem] | None = None, labels: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.problems = problems or []
        self.labels = labels or []


@dataclass(frozen=True)
class Refusal:
    """The service refused a draft's request: what it said, the labels it could not resolve, and
    whether the next attempt reuses the key."""

    draft: Draft
    message: str
    speakers: list[str] = field(default_factory=list)
    reuse_key: bool = False
    status: int | None = None
    reason: str | None = None


class ScriptSender(QObject):
    changed = Signal(object)  # Draft: its state changed (queued, imported, generated, back to draft)
    refused = Signal(object)  # Refusal

    def __init__(self, drafts: Drafts, outbox: Outbox, starter: JobStarter, session: Session,
                 parent: QObject | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.drafts = drafts
        self.outbox = outbox
        self.starter = starter
        self.session = session
        self._entries: dict[str, str] = {}  # outbox entry id -> draft id
        self._locks: dict[str, asyncio.Lock] = {}  # one change of a draft's state at a time
        self._settling: set[asyncio.Task[None]] = set()
        self._closed = False
        outbox.entryChanged.connect(self._entry_changed)
        session.reconnected.connect(self._reconnected)

    async def close(self) -> None:
        """Stop hearing the outbox and let the drafts' changes under way end (before the drafts
        close). A request answered after this leaves its draft queued; the next start's
        :meth:`reconcile` settles it."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(RuntimeError, TypeError):
            self.outbox.entryChanged.disconnect(self._entry_changed)
        with contextlib.suppress(RuntimeError, TypeError):
            self.session.reconnected.disconnect(self._reconnected)
        if self._settling:
            await asyncio.gather(*self._settling, return_exceptions=True)

    # --- sending ---------------------------------------------------------------------------------------------

    def check(self, draft: Draft, action: str, *, podcast_id: str | None, render: bool,
              hosts: list[HostRef] | None, analysis: Analysis | None = None) -> dict[str, Any]:  # fmt: skip
        """The request body for ``action``, or :class:`NotReady` saying what to fix first.
        ``analysis``: the draft's text already read with these hosts and its mapping."""
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        if analysis is None:
            analysis = analyze(draft.text, hosts=hosts, mapping=draft.mapping)
        blocking = analysis.blocking(action)
        unresolved = [label for p in blocking if p.code == "unresolved_speaker" for label in p.labels]
        if unresolved:
            raise NotReady(f"Choose a host for {', '.join(unresolved)} first.", blocking, unresolved)
        if blocking:
            first = blocking[0]
            more = f" (and {len(blocking) - 1} more)" if len(blocking) > 1 else ""
            raise NotReady(f"Line {first.line + 1}: {first.message}{more}", blocking)
        if not podcast_id:
            raise NotReady("Choose the podcast the episode belongs to.")
        if action == "import":
            body = import_body(analysis.script, draft.mapping, podcast_id=podcast_id, render=render)
            model: type[Any] = EpisodeImportInput
        else:
            structured, _table, problems = to_structured(analysis.script, draft.mapping, hosts)
            if structured is None:
                labels = [label for p in problems for label in p.labels]
                raise NotReady(f"Choose a host for {', '.join(labels)} first.", problems, labels)
            body = generate_body(structured, podcast_id=podcast_id, render=render)
            model = EpisodeGenerateInput
        try:
            model.model_validate(body)
        except ValidationError as error:
            details = "; ".join(f"{e.field or 'request'}: {e.message}" for e in field_errors(error))
            raise NotReady(f"The request would be refused: {details}") from error
        return body

    async def send(self, draft_id: str, action: str, *, podcast_id: str | None, render: bool,
                   hosts: list[HostRef] | None) -> Draft:  # fmt: skip
        """Queue the draft's request in the outbox (it is sent now, or on reconnect). Returns the
        draft as ``queued``; raises :class:`NotReady` when something must be fixed first."""
        await self.drafts.flush()
        draft = await self.drafts.get(draft_id)
        if draft is None:
            raise NotReady("The draft is gone.")
        if draft.state == QUEUED and draft.outbox_entry and self._still_unsent(draft.outbox_entry):
            raise NotReady(
                "This draft is already waiting to be sent; it goes out once when the service answers."
            )
        if draft.state == QUEUED and not draft.outbox_entry:
            raise NotReady("This draft waits its turn in a batch; it is sent in order, once.")
        body = self.check(draft, action, podcast_id=podcast_id, render=render, hosts=hosts)
        await self.drafts.snapshot(draft_id, f"before_{action}")
        kind = ACTIONS[action]
        key = draft.retry_key if draft.retry_kind == kind else None
        async with self._lock(draft_id):  # its answer is settled only once the draft says queued
            entry = self.starter.submit(kind, body, idempotency_key=key)
            self._entries[entry.id] = draft_id
            options = {**draft.options, "podcast_id": podcast_id, "render": render}
            queued = await self.drafts.update(
                draft_id, state=QUEUED, action=action, outbox_entry=entry.id, episode_id=None,
                profile=self.session.profile.name, problem=None, retry_key=None, retry_kind=None,
                options=options,
            )  # fmt: skip
        self.changed.emit(queued)
        return queued

    async def submit_planned(self, draft: Draft, action: str, body: dict[str, Any]) -> Draft:
        """Hand a planned draft's request to the outbox under the key its plan holds (a batch's turn:
        :mod:`castdeck.services.batch_sending`); its answer settles it as :meth:`send`'s does."""
        kind = ACTIONS[action]
        async with self._lock(draft.id):
            entry = self.starter.submit(kind, body, idempotency_key=draft.retry_key)
            self._entries[entry.id] = draft.id
            queued = await self.drafts.update(draft.id, outbox_entry=entry.id, retry_kind=kind)
        self.changed.emit(queued)
        return queued

    async def adopt(self, draft: Draft, entry: OutboxEntry) -> Draft:
        """A queued draft's write found in the outbox by its key (the app stopped after storing the
        write, before noting it on the draft): the draft follows it, and settles now if answered."""
        async with self._lock(draft.id):
            adopted = await self.drafts.update(draft.id, outbox_entry=entry.id)
            self._entries[entry.id] = draft.id
        self.changed.emit(adopted)
        if entry.done:
            self._start_settling(draft.id, entry)
        return adopted

    def _lock(self, draft_id: str) -> asyncio.Lock:
        return self._locks.setdefault(draft_id, asyncio.Lock())

    def _still_unsent(self, entry_id: str) -> bool:
        entry = self.outbox.get(entry_id)
        return entry is not None and entry.unsent

    # --- answers ---------------------------------------------------------------------------------------------

    def _reconnected(self) -> None:
        self._track(self.session.tasks.start(self.give_owed_titles(), name="give owed titles"))

    def _track(self, task: asyncio.Task[None]) -> None:
        if self._closed:
            task.cancel()
            return
        self._settling.add(task)
        task.add_done_callback(self._settling.discard)

    async def give_owed_titles(self) -> None:
        """Give the episodes of sent drafts the titles still owed to them (the service could not be
        reached when they were accepted, or the app stopped first): at start and on reconnect."""
        for draft in await self.drafts.list_drafts():
            if draft.options.get(TITLE_OWED) and draft.episode_id:
                async with self._lock(draft.id):
                    fresh = await self.drafts.get(draft.id)
                    if fresh is not None:
                        await self._give_title(fresh)

    async def _give_title(self, draft: Draft) -> None:
        """The episode made from ``draft`` carries the draft's title: the service names an imported
        episode after its first spoken words. Owed (``title_owed`` in the draft's options, stored
        with the draft's new state) until the service has it; then not again, so a title the
        creator changes later is theirs."""
        title = episode_title(draft)
        if not draft.options.get(TITLE_OWED) or not draft.episode_id:
            return
        if title is not None:
            episode_id = draft.episode_id
            try:
                await self.session.call(lambda c: c.episodes.update(episode_id, title=title), write=True)
            except NotFoundError:
                pass  # the episode is gone: nothing is owed any more
            except CastdeckError as error:
                log.info("the title of episode %s stays owed: %s", episode_id, error)
                return
        options = {k: v for k, v in draft.options.items() if k != TITLE_OWED}
        self.changed.emit(await self.drafts.update(draft.id, options=options))

    async def reconcile(self) -> None:
        """At start, before the outbox resends anything: follow the requests of queued drafts (sent
        meanwhile, refused, or still waiting). One small read of the drafts file and the outbox's
        load, each on its disk thread."""
        queued = await self.drafts.queued()
        await self.outbox.load()
        for draft_id, entry_id in queued:
            self._entries[entry_id] = draft_id
            entry = self.outbox.get(entry_id)
            if entry is not None and entry.done:
                self._start_settling(draft_id, entry)

    def _entry_changed(self, entry: OutboxEntry) -> None:
        if entry.id in self._entries and entry.done:
            self._start_settling(self._entries[entry.id], entry)

    def _start_settling(self, draft_id: str, entry: OutboxEntry) -> None:
        if self._closed:
            return
        self._track(self.session.tasks.start(self._settle(draft_id, entry), name="settle script request"))

    async def _settle(self, draft_id: str, entry: OutboxEntry) -> None:
        async with self._lock(draft_id):
            await self._settle_now(draft_id, entry)

    async def _settle_now(self, draft_id: str, entry: OutboxEntry) -> None:
        self._entries.pop(entry.id, None)
        draft = await self.drafts.get(draft_id)
        if draft is None or draft.outbox_entry != entry.id or draft.state != QUEUED:
            return  # settled already, or the draft has moved on
        action = "import" if entry.kind == "episode_import" else "generate"
        if entry.state == "sent":
            owed = episode_title(draft) is not None
            done = await self.drafts.update(
                draft_id, state=_DONE[action], episode_id=entry.resource_id, problem=None, retry_key=None,
                retry_kind=None, options={**draft.options, TITLE_OWED: True} if owed else draft.options,
            )  # fmt: skip
            self.changed.emit(done)
            await self._give_title(done)
            return
        problem = dict(entry.problem or {})
        recovery = problem.get("recovery") or {}
        reuse = isinstance(recovery, dict) and recovery.get("idempotency_key") == "reuse"
        speakers = [str(s) for s in problem.get("speakers") or []]
        message = entry.last_error or "The service refused the request."
        stored = {**problem, "message": message, "request_id": entry.request_id, "action": action}
        refused = await self.drafts.update(
            draft_id, state=DRAFT, problem=stored, retry_key=entry.idempotency_key if reuse else None,
            retry_kind=entry.kind if reuse else None,
        )  # fmt: skip
        log.info("script %s refused (%s); next attempt uses %s key", action, problem.get("status"),
                 "the same" if reuse else "a new")  # fmt: skip
        self.changed.emit(refused)
        self.refused.emit(
            Refusal(refused, message, speakers, reuse, problem.get("status"), problem.get("reason"))
        )
