"""Starting generation (an episode from a prompt, a script or imported text; a Video, Short or
Voiceover, or a retry of one) through the outbox.

The write is stored with its idempotency key before it is sent. The caller (a dialog, a pane) gets
the accepted answer; or the tracked job when the service said it is still accepting an earlier
send of this very write (409, followed, never started again); or, when no answer came, the stored
entry (the outbox sends it again with the same key and its card follows it); or the refusal raised
as the error (shown where it can be corrected).
"""

from __future__ import annotations

from typing import Any

from castdeck.api import Accepted
from castdeck.api.models import EpisodeGenerateInput
from castdeck.api.resources.base import body_of
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry

from .outbox import Outbox

__all__ = ["ACCEPTING_TEXT", "PENDING_TEXT", "Accepted", "JobStarter", "Started", "started_text"]

PENDING_TEXT = (
    "The service did not answer yet. Castdeck keeps the request and sends it again with the same "
    "idempotency key when the service answers, so it starts only once; follow it in Jobs (Ctrl+J)."
)
ACCEPTING_TEXT = (
    "The service is still accepting this request (an earlier answer was lost on the way). Castdeck "
    "follows it in Jobs (Ctrl+J); it starts only once, so there is nothing to start again."
)

Started = Accepted[Any] | Job | OutboxEntry


class JobStarter:
    """The one way the UI starts a job."""

    def __init__(self, outbox: Outbox) -> None:
        self._outbox = outbox

    async def start(
        self,
        kind: str,
        body: dict[str, Any] | None,
        *,
        collection: str | None = None,
        resource_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> Started:
        sent = await self._outbox.send(
            kind, body, collection=collection, resource_id=resource_id, idempotency_key=idempotency_key
        )
        outcome = sent.outcome()
        return outcome if outcome is not None else sent.entry

    async def generate_episode(self, payload: EpisodeGenerateInput) -> Started:
        """Generate an episode from a prompt or a structured script (spec 4.2)."""
        return await self.start("episode_generate", body_of(payload))

    def submit(
        self, kind: str, body: dict[str, Any] | None, *, collection: str | None = None,
        resource_id: str | None = None, idempotency_key: str | None = None,
    ) -> OutboxEntry:  # fmt: skip
        """Start without waiting for the answer (its card shows what comes of it). ``idempotency_key``:
        the key to send again with when the service asked for it to be reused (spec 4.2)."""
        return self._outbox.submit(
            kind, body, collection=collection, resource_id=resource_id, idempotency_key=idempotency_key
        )


def started_text(started: Started) -> tuple[str, str]:
    """What to tell the person who started it: the message and its kind (info or warning)."""
    if isinstance(started, Job):
        return ACCEPTING_TEXT, "info"
    if isinstance(started, OutboxEntry):
        return PENDING_TEXT, "warning"
    return "Started; its card in Jobs (Ctrl+J) follows its progress.", "info"
