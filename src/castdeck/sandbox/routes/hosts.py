"""Hosts (spec 2.6) and the voice catalogue (2.7)."""

from __future__ import annotations

import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import Host, HostCreate, HostUpdate, ListQuery, Voice, VoiceListQuery

from ..problems import ApiProblem, field_problem
from ..routing import route
from ..service import as_html, now_iso, org_of, owned, sandbox_of, save_changes
from ..web import PATCH_TYPES, data_response, decode_cursor, json_body, page_response, query, validate

VOICE_FIELDS = ("id", "gender", "voice_type", "accent", "description", "language", "model")


def present_host(request: Request, record: Any) -> dict[str, Any]:
    sandbox = sandbox_of(request)
    data = dict(record.data)
    voice = sandbox.db.get("voice", str(data.get("voice_id"))) if data.get("voice_id") is not None else None
    data["voice"] = None if voice is None else {k: voice.data.get(k) for k in VOICE_FIELDS}
    data.setdefault("archived_at", None)  # every host has the field; set once DELETE archives it
    if record.meta.get("archived"):
        data["archived"] = True
    return data


def check_voice(request: Request, voice_id: int) -> None:
    if sandbox_of(request).db.get("voice", str(voice_id)) is None:
        raise field_problem("voice_id", f"no voice with id {voice_id}; list them with GET /v1/voices")


@route(
    "GET",
    "/v1/hosts",
    tag="Hosts",
    summary="List active hosts, newest first",
    query=ListQuery,
    response=("list", Host),
)
async def list_hosts(request: Request) -> Response:
    q = query(request, ListQuery)
    records, more = sandbox_of(request).db.page(
        "host",
        org_of(request).id,
        limit=q.limit,
        before_seq=decode_cursor("host", q.cursor),
        meta_where={"archived": None},
    )
    return page_response(request, "host", records, more, lambda r: present_host(request, r))


@route(
    "POST",
    "/v1/hosts",
    tag="Hosts",
    summary="Create a host",
    status=201,
    body=HostCreate,
    response=Host,
    errors=(400, 401, 403, 415, 429, 500),
)
async def create_host(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    payload = validate(HostCreate, await json_body(request))
    check_voice(request, payload.voice_id)
    host_id = secrets.token_hex(4)
    while sandbox.db.get("host", host_id) is not None:
        host_id = secrets.token_hex(4)
    now = now_iso()
    data = {
        "id": host_id,
        "name": payload.name,
        "title": payload.title,
        "backstory": as_html(payload.backstory),
        "personality": payload.personality,
        "voice_id": payload.voice_id,
        "image_path": payload.image_path,
        "is_guest": bool(payload.is_guest),
        "created_at": now,
        "updated_at": now,
    }
    with sandbox.db.transaction():
        record = sandbox.db.insert("host", host_id, org.id, data)
    return data_response(present_host(request, record), 201, {"Location": f"/v1/hosts/{host_id}"})


@route(
    "GET", "/v1/hosts/{host_id}", tag="Hosts", summary="Retrieve a host (archived hosts too)", response=Host
)
async def get_host(request: Request) -> Response:
    record = owned(sandbox_of(request).db, "host", str(request.path_params["host_id"]), org_of(request))
    return data_response(present_host(request, record))


@route(
    "PATCH",
    "/v1/hosts/{host_id}",
    tag="Hosts",
    summary="Update a host",
    body=HostUpdate,
    body_media_types=PATCH_TYPES,
    response=Host,
    errors=(400, 401, 403, 404, 415, 422, 429, 500),
)
async def update_host(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = owned(sandbox.db, "host", str(request.path_params["host_id"]), org_of(request))
    payload = validate(HostUpdate, await json_body(request, accept=PATCH_TYPES))
    if record.meta.get("archived"):
        raise ApiProblem(
            422, "This host is archived and can no longer be changed.", recovery={"action": "correct_input"}
        )
    changes = payload.model_dump(exclude_unset=True)
    if "voice_id" in changes:
        check_voice(request, changes["voice_id"])
    for name, value in changes.items():
        record.data[name] = as_html(value) if name == "backstory" else value
    save_changes(sandbox.db, record)
    return data_response(present_host(request, record))


@route(
    "DELETE",
    "/v1/hosts/{host_id}",
    tag="Hosts",
    summary="Archive a host",
    description="Archives the host; nothing is erased. It leaves `GET /v1/hosts` and can no longer be "
    "named in a new podcast, but `GET /v1/hosts/{host_id}` still returns it, with `archived_at` set "
    "to when it was archived. Archiving an archived host changes nothing and answers "
    "204 again.",
    status=204,
    errors=(401, 403, 404, 429, 500),
)
async def delete_host(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = owned(sandbox.db, "host", str(request.path_params["host_id"]), org_of(request))
    if not record.meta.get("archived"):
        record.meta["archived"] = True
        record.data["archived_at"] = now_iso()
        save_changes(sandbox.db, record)
    return Response(status_code=204)


@route(
    "GET",
    "/v1/voices",
    tag="Voices",
    summary="The voice catalogue",
    query=VoiceListQuery,
    response=("list", Voice),
)
async def list_voices(request: Request) -> Response:
    q = query(request, VoiceListQuery)
    where = {
        k: v for k, v in (("language", q.language), ("gender", q.gender), ("voice_type", q.voice_type)) if v
    }
    records, more = sandbox_of(request).db.page(
        "voice", None, limit=q.limit, before_seq=decode_cursor("voice", q.cursor), where=where
    )
    return page_response(request, "voice", records, more, lambda r: dict(r.data))
