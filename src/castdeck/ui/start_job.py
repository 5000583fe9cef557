"""Starting generation from a dialog or an action: through the session's outbox.

The write is stored with its idempotency key before it is sent. The caller gets the accepted
answer, or, when no answer came, the stored entry (the outbox sends it again with the same key
and its card follows it), or the refusal raised as the error (shown where it can be corrected).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from castdeck.api.resources.base import Accepted
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.store.outbox import OutboxEntry

__all__ = ["PENDING_TEXT", "start_job"]

PENDING_TEXT = (
    "The service did not answer yet. Castdeck keeps the request and sends it again with the same "
    "idempotency key when the service answers, so it starts only once; follow it in Jobs (Ctrl+J)."
)


async def start_job(
    session: Session,
    kind: str,
    body: dict[str, Any] | None,
    *,
    collection: str | None = None,
    resource_id: str | None = None,
    direct: Callable[[], Awaitable[Accepted[Any]]],
) -> Accepted[Any] | OutboxEntry:
    """Send a generation write through the outbox (``direct`` when the session has no background
    work, as in a bare widget test)."""
    background = Background.of(session)
    if background is None:
        return await direct()
    sent = await background.outbox.send(kind, body, collection=collection, resource_id=resource_id)
    accepted = sent.outcome()
    return accepted if accepted is not None else sent.entry
