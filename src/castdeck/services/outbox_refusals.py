"""How the outbox reads the service's refusal of a write: an acceptance still under way (spec
4.6, wait and ask again with the same key) or a problem kept with the entry."""

from __future__ import annotations

from typing import Any

from castdeck.api import ApiError

__all__ = ["problem_of", "unresolved_acceptance"]


def unresolved_acceptance(error: ApiError) -> bool:
    """A 409 saying an earlier send of this write is still being accepted (spec 4.6)."""
    recovery = error.recovery
    return (
        error.status == 409
        and recovery is not None
        and recovery.action == "poll_content"
        and recovery.idempotency_key in (None, "reuse")
    )


def problem_of(error: ApiError) -> dict[str, Any]:
    """The refusal as the outbox stores it beside the entry (its card and a resend read it back)."""
    return {
        "status": error.status,
        "type": error.type,
        "title": error.title,
        "detail": error.detail,
        "errors": [e.model_dump(mode="json") for e in error.errors],
        "reason": error.reason,
        "speakers": list(error.speakers),
        "recovery": error.recovery.model_dump(mode="json", exclude_none=True)
        if error.recovery is not None
        else None,
    }
