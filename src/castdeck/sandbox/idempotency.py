"""Idempotency keys for the writes that start generation (spec 4.2 and 4.6).

Within 24 hours a key replays the original answer; the same key with other input is 409.
The record is written in the same transaction as the resource it created, so an answer
lost on the way back (a dropped connection) replays exactly what was stored.

With ``--accept-hold SECONDS`` an acceptance stays unresolved for a while before it is
answered (spec 4.6: "an idempotency conflict whose acceptance is unresolved is 409 and names
the resource ID"). The key's row is ``pending`` meanwhile, and a resend gets 409
``poll_content``. ``--accept-hold-stage`` says how far the acceptance got: ``created`` (the
resource exists and is named) or ``received`` (nothing exists yet). The hold ends after the
given seconds or as soon as a resend has been answered 409, whichever comes first.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from collections.abc import Callable, Coroutine
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import is_valid_idempotency_key

from .clock import CLOCK
from .db import Database
from .problems import ApiProblem, field_problem
from .service import Sandbox, request_id_of, sandbox_of

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEPT_HEADERS = ("location", "retry-after", "content-type")


def idempotency_key(request: Request, *, required: bool) -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        if required:
            raise field_problem(
                HEADER, "this endpoint needs an Idempotency-Key header (1..255 printable ASCII)"
            )
        return None
    if not is_valid_idempotency_key(key):
        raise field_problem(HEADER, "must be 1..255 printable ASCII characters without spaces")
    return key


def fingerprint(body: Any, path: str) -> str:
    canonical = json.dumps({"path": path, "body": body}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


Produce = Callable[[], tuple[Response, str | None]]


async def run_idempotent(
    request: Request,
    db: Database,
    org_id: str,
    scope: str,
    key: str | None,
    body: Any,
    produce: Produce,
    *,
    record_rejections: bool,
) -> Response:
    """Run ``produce`` (which returns the answer and the id of what it created) at most once per key.

    ``record_rejections``: a 4xx rejection is stored under the key and replayed (media
    collections, "after correcting it use a new key"); otherwise a rejection leaves the key
    free to be reused once the input is fixed (episodes, ``recovery.idempotency_key = reuse``).
    """
    if key is None:
        with db.transaction():
            response, _ = produce()
        return response
    sandbox = sandbox_of(request)
    ident = (org_id, scope, key)
    work: Coroutine[Any, Any, Response]
    print_ = fingerprint(body, request.url.path)
    row = db.idempotency(org_id, scope, key)
    held = sandbox.acceptances.holding(ident)  # then the row is pending, whatever its age
    if (
        row is not None
        and not held
        and CLOCK.time() - row["created_at"] > sandbox.settings.idempotency_window
    ):
        db.drop_idempotency(org_id, scope, key)
        row = None
    if row is not None and row["state"] == "pending" and not held:
        row = _settle_orphan(db, row)
    if row is not None:
        if row["fingerprint"] != print_:
            extra = {"resource_id": row["resource_id"]} if row["resource_id"] else {}
            raise ApiProblem(
                409,
                "This Idempotency-Key was already used with different input. Send the original input, "
                "or use a new key for new input.",
                recovery={"action": "correct_input", "idempotency_key": "new"},
                extra=extra,
            )
        if row["state"] == "pending":
            return _unresolved(request, sandbox, row, ident)
        headers = json.loads(row["headers"])
        headers[REPLAYED_HEADER] = "true"
        headers["X-Request-Id"] = request_id_of(request)
        media = headers.pop("content-type", "application/json")
        if row["status"] >= 400 and "request_id" in (stored := json.loads(row["body"])):
            stored["request_id"] = request_id_of(request)
            return Response(json.dumps(stored), status_code=row["status"], media_type=media, headers=headers)
        return Response(row["body"], status_code=row["status"], media_type=media, headers=headers)
    if sandbox.settings.accept_hold <= 0:
        return _accept(request, db, ident, print_, produce, record_rejections=record_rejections)
    if sandbox.settings.accept_hold_stage == "received":
        # Received, nothing created yet: the row names no resource; the input is checked after the hold.
        db.put_idempotency(org_id, scope, key, print_, state="pending")
        work = _accept_after_hold(request, sandbox, ident, print_, produce, record_rejections)
    else:
        # Created: the resource and a pending row that names it (and holds the answer) in one
        # transaction; a rejection is answered at once and leaves nothing behind.
        response = _accept(
            request, db, ident, print_, produce, record_rejections=record_rejections, state="pending"
        )
        work = _resolve_after_hold(sandbox, ident, response)
    # No await since the row was written: every request sees the pending row and its hold together.
    # The acceptance is a task of its own, so a client that goes away cancels only this wait.
    return await asyncio.shield(sandbox.acceptances.start(ident, work))


def _accept(
    request: Request,
    db: Database,
    ident: tuple[str, str, str],
    print_: str,
    produce: Produce,
    *,
    record_rejections: bool,
    state: str = "done",
) -> Response:
    """Produce the answer and store it under the key, in one transaction with what it created."""
    org_id, scope, key = ident
    try:
        with db.transaction():
            response, resource_id = produce()
            db.put_idempotency(
                org_id,
                scope,
                key,
                print_,
                state=state,
                status=response.status_code,
                body=bytes(response.body),
                headers=_kept(response),
                resource_id=resource_id,
            )
    except ApiProblem as problem:
        if 400 <= problem.status < 500 and problem.status not in (401, 403, 429):
            recovery = dict(problem.recovery or {"action": "correct_input"})
            recovery["idempotency_key"] = "new" if record_rejections else "reuse"
            problem.recovery = recovery
            if record_rejections:
                stored = problem.body(request_id_of(request))
                db.put_idempotency(
                    org_id,
                    scope,
                    key,
                    print_,
                    state="done",
                    status=problem.status,
                    body=json.dumps(stored).encode(),
                    headers={"content-type": "application/problem+json"},
                )
        raise
    return response


async def _resolve_after_hold(sandbox: Sandbox, ident: tuple[str, str, str], response: Response) -> Response:
    """Stage ``created``: after the hold the pending row (which holds the answer) becomes ``done``.

    That happens even when the wait is cancelled; a row left behind by a killed server is settled
    the same way by the next request under the key (:func:`_settle_orphan`).
    """
    try:
        await sandbox.acceptances.wait(ident, sandbox.settings.accept_hold)
    finally:
        sandbox.db.resolve_idempotency(*ident)
    _kick(sandbox)
    return response


async def _accept_after_hold(
    request: Request,
    sandbox: Sandbox,
    ident: tuple[str, str, str],
    print_: str,
    produce: Produce,
    record_rejections: bool,
) -> Response:
    """Stage ``received``: after the hold, the usual acceptance replaces the pending row.

    A rejection then frees the key (episodes) or is stored under it (media), as without a hold.
    """
    db = sandbox.db
    try:
        await sandbox.acceptances.wait(ident, sandbox.settings.accept_hold)
        response = _accept(request, db, ident, print_, produce, record_rejections=record_rejections)
    except BaseException:
        # Nothing was accepted (a rejection, an internal error, or shutdown cut the wait short):
        # the key must not stay pending. A stored rejection has already replaced the row.
        row = db.idempotency(*ident)
        if row is not None and row["state"] == "pending":
            db.drop_idempotency(*ident)
        raise
    _kick(sandbox)
    return response


def _unresolved(
    request: Request, sandbox: Sandbox, row: sqlite3.Row, ident: tuple[str, str, str]
) -> Response:
    """409 ``poll_content`` for a resend while the acceptance is unresolved.

    Once this answer has been sent, the hold ends (the background task), so the next resend
    under the key replays the 202.
    """
    recovery = {
        "action": "poll_content",
        "idempotency_key": "reuse",
        "poll_after_seconds": round(1.0 / sandbox.settings.speed, 2),
    }
    if row["resource_id"]:
        problem = ApiProblem(
            409,
            f"A request with this Idempotency-Key is still being accepted (resource {row['resource_id']}); "
            "poll it instead of creating again.",
            recovery=recovery,
            extra={"resource_id": row["resource_id"]},
        )
    else:
        problem = ApiProblem(
            409,
            "A request with this Idempotency-Key was received and is still being accepted; nothing "
            "exists to poll yet. Send it again later with the same key and the same input; do not "
            "use a new key.",
            recovery=recovery,
        )
    response = problem.response(request_id_of(request))
    response.background = BackgroundTask(sandbox.acceptances.release, ident)
    return response


def _settle_orphan(db: Database, row: sqlite3.Row) -> sqlite3.Row | None:
    """A ``pending`` row that no acceptance in this process holds: its request died with an
    earlier run of the server. Done when its resource exists (the row holds the answer),
    otherwise dropped so the key is free again."""
    org_id, scope, key = row["org_id"], row["scope"], row["key"]
    if row["resource_id"] and row["body"] is not None and db.exists(org_id, row["resource_id"]):
        db.resolve_idempotency(org_id, scope, key)
        return db.idempotency(org_id, scope, key)
    db.drop_idempotency(org_id, scope, key)
    return None


def _kept(response: Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k in KEPT_HEADERS}


def _kick(sandbox: Sandbox) -> None:
    """Start the accepted work now that it is accepted (the request may be gone)."""
    if sandbox.jobs is not None:
        sandbox.jobs.kick()
