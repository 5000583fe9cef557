"""Idempotency keys for the writes that start generation (spec 4.2 and 4.6).

Within 24 hours a key replays the original answer; the same key with other input is 409.
The record is written in the same transaction as the resource it created, so an answer
lost on the way back (a dropped connection) replays exactly what was stored.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import is_valid_idempotency_key

from .db import Database
from .problems import ApiProblem, field_problem
from .service import request_id_of, sandbox_of

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


def run_idempotent(
    request: Request,
    db: Database,
    org_id: str,
    scope: str,
    key: str | None,
    body: Any,
    produce: Callable[[], tuple[Response, str | None]],
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
    print_ = fingerprint(body, request.url.path)
    row = db.idempotency(org_id, scope, key)
    if row is not None and time.time() - row["created_at"] > sandbox_of(request).settings.idempotency_window:
        db.drop_idempotency(org_id, scope, key)
        row = None
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
            raise ApiProblem(
                409,
                f"A request with this Idempotency-Key is still being accepted (resource {row['resource_id']}); "
                "poll it instead of creating again.",
                recovery={"action": "poll_content", "idempotency_key": "reuse"},
                extra={"resource_id": row["resource_id"]},
            )
        headers = json.loads(row["headers"])
        headers[REPLAYED_HEADER] = "true"
        headers["X-Request-Id"] = request_id_of(request)
        media = headers.pop("content-type", "application/json")
        if row["status"] >= 400 and "request_id" in (stored := json.loads(row["body"])):
            stored["request_id"] = request_id_of(request)
            return Response(json.dumps(stored), status_code=row["status"], media_type=media, headers=headers)
        return Response(row["body"], status_code=row["status"], media_type=media, headers=headers)
    try:
        with db.transaction():
            response, resource_id = produce()
            kept = {k: v for k, v in response.headers.items() if k in KEPT_HEADERS}
            db.put_idempotency(
                org_id,
                scope,
                key,
                print_,
                state="done",
                status=response.status_code,
                body=bytes(response.body),
                headers=kept,
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
