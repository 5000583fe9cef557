"""Sources (spec 2.8, 3.2, 4.5): url, youtube and text sources, and file uploads through signed slots."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import (
    SNIFF_BYTES,
    ListQuery,
    Source,
    SourceCreate,
    UploadReservation,
    UploadReservationInput,
    canonical_mime,
    parse_source_create,
    signature_matches,
)

from ..clock import CLOCK
from ..db import Record
from ..problems import ApiProblem
from ..routing import route
from ..service import Sandbox, new_id, now_iso, org_of, owned, sandbox_of, touch
from ..signing import sign_url
from ..web import data_response, decode_cursor, json_body, page_response, query, validate


def present_source(record: Record) -> dict[str, Any]:
    return dict(record.data)


def _kick(sandbox: Sandbox) -> None:
    if sandbox.jobs is not None:
        sandbox.jobs.kick()


def upload_target(source_id: str) -> str:
    return f"/uploads/{source_id}"


def slot(sandbox: Sandbox, record: Record) -> dict[str, Any]:
    expires = int(record.meta["upload"]["expires"])
    url = sign_url(
        sandbox.signed_base_url, upload_target(record.id), sandbox.secret, "PUT", record.id, expires
    )
    return {
        "url": url,
        "method": "PUT",
        "headers": {"content-type": record.meta["upload"]["mime_type"]},
        "expires_at": datetime.fromtimestamp(expires, UTC).isoformat().replace("+00:00", "Z"),
    }


@route(
    "GET",
    "/v1/sources",
    tag="Sources",
    summary="List sources, newest first",
    query=ListQuery,
    response=("list", Source),
)
async def list_sources(request: Request) -> Response:
    q = query(request, ListQuery)
    records, more = sandbox_of(request).db.page(
        "source", org_of(request).id, limit=q.limit, before_seq=decode_cursor("source", q.cursor)
    )
    return page_response(request, "source", records, more, present_source)


@route(
    "POST",
    "/v1/sources",
    tag="Sources",
    summary="Create a url, youtube or text source",
    status=201,
    body=SourceCreate,
    response=Source,
    errors=(400, 401, 403, 415, 429, 500),
)
async def create_source(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    payload = validate(parse_source_create, await json_body(request))
    now = now_iso()
    source_id = new_id()
    data: dict[str, Any] = {
        "id": source_id,
        "status": "processing",
        "type": payload.type,
        "title": payload.title,
        "error_message": None,
        "metadata": {},
        "created_at": now,
        "updated_at": now,
    }
    meta: dict[str, Any] = {}
    if payload.type == "text":
        meta["text"] = payload.content
        data["metadata"] = {"characters": len(payload.content)}
        data["title"] = payload.title or (payload.content.strip().split("\n")[0][:80] or "Text")
    else:
        data["metadata"] = {"url": str(payload.url)}
        data["title"] = payload.title or str(payload.url)
        meta["url"] = str(payload.url)
    with sandbox.db.transaction():
        record = sandbox.db.insert("source", source_id, org.id, data, meta)
        sandbox.db.add_job(f"source:{source_id}", "source", org.id, {"source_id": source_id})
    _kick(sandbox)
    return data_response(present_source(record), 201, {"Location": f"/v1/sources/{source_id}"})


@route(
    "POST",
    "/v1/sources/uploads",
    tag="Sources",
    summary="Reserve an upload slot for a file source",
    status=201,
    body=UploadReservationInput,
    response=UploadReservation,
    errors=(400, 401, 403, 415, 429, 500),
)
async def reserve_upload(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    payload = validate(UploadReservationInput, await json_body(request))
    now = now_iso()
    source_id = new_id()
    mime = canonical_mime(payload.mime_type) or payload.mime_type.lower()
    data = {
        "id": source_id,
        "status": "awaiting_upload",
        "type": "upload",
        "title": payload.title or payload.file_name,
        "error_message": None,
        "metadata": {
            "file_name": payload.file_name,
            "mime_type": mime,
            "size_bytes": payload.size_bytes,
            "prepare_visuals": payload.prepare_visuals,
        },
        "created_at": now,
        "updated_at": now,
    }
    meta = {
        "upload": {
            # MIME types are case-insensitive: the slot's header and the PUT check use the lowercase form
            # (".pptm" is "...macroEnabled.12" in the table, and the PUT check lowercases what it receives)
            "mime_type": mime.lower(),
            "size_bytes": payload.size_bytes,
            "file_name": payload.file_name,
            # rounded up: a slot lives at least its lifetime (whole seconds in the signed address)
            "expires": math.ceil(CLOCK.time()) + sandbox.settings.upload_slot_lifetime,
            "prepare_visuals": payload.prepare_visuals,
        }
    }
    with sandbox.db.transaction():
        record = sandbox.db.insert("source", source_id, org.id, data, meta)
    return data_response({"source": present_source(record), "upload": slot(sandbox, record)}, 201)


@route("GET", "/v1/sources/{source_id}", tag="Sources", summary="Retrieve a source", response=Source)
async def get_source(request: Request) -> Response:
    record = owned(sandbox_of(request).db, "source", str(request.path_params["source_id"]), org_of(request))
    headers = {}
    if record.data.get("status") == "processing":
        headers["Retry-After"] = str(sandbox_of(request).poll_hint(2))
    return data_response(present_source(record), headers=headers)


@route(
    "POST",
    "/v1/sources/{source_id}/complete-upload",
    tag="Sources",
    summary="Verify the uploaded bytes and start processing",
    body=None,
    response=Source,
    errors=(400, 401, 403, 404, 409, 415, 422, 429, 500),
)
async def complete_upload(request: Request) -> Response:
    sandbox = sandbox_of(request)
    await json_body(request, optional=True)
    # From here on nothing awaits: the checks and the state change happen as one step.
    record = owned(sandbox.db, "source", str(request.path_params["source_id"]), org_of(request))
    if record.data.get("status") != "awaiting_upload":
        return data_response(present_source(record))  # already processing or done: its current record
    upload = record.meta.get("upload") or {}
    if sandbox.file_path(f"uploads/{record.id}.part").exists():
        raise ApiProblem(
            409,
            "The file is still being uploaded to this slot; complete the upload once the transfer has finished.",
            recovery={"action": "retry"},
        )
    if int(upload.get("expires", 0)) < CLOCK.time():
        raise ApiProblem(
            422,
            "The upload slot expired; reserve a new slot and upload the file again.",
            recovery={"action": "correct_input"},
            extra={"reason_code": "slot_expired"},
        )
    path = sandbox.file_path(f"uploads/{record.id}")
    if not path.exists():
        raise ApiProblem(
            422, "No file has been uploaded to this slot yet.", recovery={"action": "correct_input"}
        )
    size = path.stat().st_size
    if size != upload["size_bytes"]:
        raise ApiProblem(
            422,
            f"The uploaded file has {size} bytes but {upload['size_bytes']} were reserved.",
            errors=[{"field": "size_bytes", "message": "does not match the uploaded file"}],
            recovery={"action": "correct_input"},
        )
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    if not signature_matches(head, upload["mime_type"], upload["file_name"]):
        raise ApiProblem(
            422,
            f"The uploaded bytes are not a {upload['mime_type']} file.",
            errors=[{"field": "mime_type", "message": "does not match the file's signature"}],
            recovery={"action": "correct_input"},
        )
    record.data["status"] = "processing"
    touch(record)
    with sandbox.db.transaction():
        sandbox.db.save(record)
        sandbox.db.add_job(f"source:{record.id}", "source", record.org_id or "", {"source_id": record.id})
    _kick(sandbox)
    return data_response(present_source(record))


@route(
    "DELETE",
    "/v1/sources/{source_id}",
    tag="Sources",
    summary="Delete an unused source",
    status=204,
    errors=(401, 403, 404, 422, 429, 500),
)
async def delete_source(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    record = owned(sandbox.db, "source", str(request.path_params["source_id"]), org)
    users = [
        f"{kind} {r.id}"
        for kind in ("episode", "video", "short", "voiceover")
        for r in sandbox.db.all(kind, org.id)
        if record.id in (r.data.get("source_ids") or [])
    ]
    if users:
        raise ApiProblem(
            422,
            f"The source is used by {', '.join(users[:3])}{' and more' if len(users) > 3 else ''}.",
            recovery={"action": "check_content"},
        )
    with sandbox.db.transaction():
        sandbox.db.delete("source", record.id)
        sandbox.db.finish_job(f"source:{record.id}")
    sandbox.file_path(f"uploads/{record.id}").unlink(missing_ok=True)
    return Response(status_code=204)
