"""Videos, Shorts and Voiceovers (spec 2.9, 3.1, 4.6): options, create, list, retrieve, status,
retry and download, registered once per collection."""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import (
    CREDITS_PER_IMAGE,
    CREDITS_PER_NARRATION_MINUTE,
    CREDITS_PER_VIDEO_CLIP,
    SHORT_DURATIONS,
    VIDEO_DURATIONS,
    VOICEOVER_DURATIONS,
    ListQuery,
    MediaDownload,
    MediaJob,
    MediaOptions,
    MediaStatus,
    ShortCreateInput,
    ShortScriptCreateInput,
    VideoCreateInput,
    VideoScriptCreateInput,
    VoiceoverCreateInput,
    parse_short_create,
    parse_video_create,
)

from .. import importer, seed_content
from ..clock import CLOCK
from ..config import FAIL_PHRASE
from ..db import Database, Org, Record
from ..idempotency import idempotency_key, run_idempotent
from ..problems import ApiProblem, field_problem
from ..routing import route
from ..service import (
    PLAN_MAX_VOICEOVER_SECONDS,
    Sandbox,
    hold_credits,
    new_id,
    now_iso,
    org_of,
    owned,
    sandbox_of,
    touch,
)
from ..web import data_response, decode_cursor, json_body, page_response, query, validate
from .podcasts import check_hosts

COLLECTIONS = {"videos": "video", "shorts": "short", "voiceovers": "voiceover"}
MAX_VOICEOVER_VISUALS = 50


def estimate(kind: str, seconds: float) -> tuple[float, int, int]:
    """(narration minutes, generated images, generated video clips) of a media job."""
    minutes = seconds / 60
    if kind == "voiceover":
        return minutes, 0, 0
    images = max(1, math.ceil(seconds / 30))
    clips = max(1, math.ceil(seconds / 120))
    return minutes, images, clips


def credits_for(kind: str, seconds: float) -> float:
    minutes, images, clips = estimate(kind, seconds)
    return (
        minutes * CREDITS_PER_NARRATION_MINUTE + images * CREDITS_PER_IMAGE + clips * CREDITS_PER_VIDEO_CLIP
    )


def styles_for(kind: str) -> list[dict[str, str]]:
    if kind == "voiceover":
        return []
    return list(seed_content.SHORT_STYLES if kind == "short" else seed_content.STYLES)


def default_host(db: Database, org: Org) -> str | None:
    settings = db.org_settings(org.id)
    narrator = settings.get("narrator_host_id")
    if narrator:
        host = db.get("host", narrator)
        if host is not None and not host.meta.get("archived"):
            return str(narrator)
    active = [r for r in db.all("host", org.id) if not r.meta.get("archived")]
    return active[0].id if active else None


def options_for(db: Database, org: Org, kind: str) -> dict[str, Any]:
    styles = styles_for(kind)
    if kind == "video":
        durations, duration, orientation = list(VIDEO_DURATIONS), 420, "LANDSCAPE"
    elif kind == "short":
        durations, duration, orientation = list(SHORT_DURATIONS), 30, "PORTRAIT"
    else:
        cap = PLAN_MAX_VOICEOVER_SECONDS.get(org.plan, 1800)
        durations, duration, orientation = [d for d in VOICEOVER_DURATIONS if d <= cap], None, "LANDSCAPE"
    return {
        "supported_duration_seconds": durations,
        "styles": styles,
        "default_host_id": default_host(db, org),
        "default_language": db.org_settings(org.id).get("language", "en"),
        "default_orientation": orientation,
        "default_style_id": styles[0]["id"] if styles else None,
        "default_duration_seconds": duration,
    }


def present_media(sandbox: Sandbox, record: Record) -> dict[str, Any]:
    return dict(record.data)


def status_of(sandbox: Sandbox, record: Record) -> dict[str, Any]:
    data = record.data
    generating = data.get("status") == "generating"
    return {
        "id": record.id,
        "object": data["object"],
        "status": data["status"],
        "phase": data.get("phase"),
        "error": data.get("error"),
        "generation_id": data.get("generation_id"),
        "studio_url": data.get("studio_url"),
        "poll_after_seconds": round(10 / sandbox.settings.speed, 2) if generating else 0,
        "progress_pct": data.get("progress_pct"),
    }


def _check_sources(db: Database, org: Org, kind: str, source_ids: list[str]) -> int:
    """Rejects missing, failed or stalled sources; returns the number of visuals (voiceovers)."""
    visuals = 0
    for index, source_id in enumerate(source_ids):
        source = db.get("source", source_id)
        field = f"source_ids.{index}"
        if source is None or source.org_id != org.id:
            raise field_problem(field, f"no source with id {source_id} in this organization")
        status = source.data.get("status")
        if status == "error":
            raise field_problem(field, "this source failed processing", 422)
        if status == "awaiting_upload":
            raise field_problem(field, "this upload was never completed", 422)
        if kind == "voiceover":
            metadata = source.data.get("metadata") or {}
            if status != "completed":
                raise field_problem(field, "voiceover visuals must be completed sources", 422)
            if source.data.get("type") != "upload" or not metadata.get("prepare_visuals"):
                raise field_problem(
                    field, "voiceover visuals must be uploaded files with prepared visuals", 422
                )
            visuals += int(metadata.get("visual_count") or 1)
    if kind == "voiceover" and visuals > MAX_VOICEOVER_VISUALS:
        raise field_problem("source_ids", f"the sources hold {visuals} visuals; at most 50 are allowed", 422)
    return visuals


def _hosts(db: Database, org: Org, payload: Any) -> list[str]:
    host_ids: list[str] = []
    if getattr(payload, "host_ids", None):
        host_ids = list(payload.host_ids)
        check_hosts(db, org, host_ids)
    elif getattr(payload, "host_id", None):
        host = db.get("host", payload.host_id)
        if host is None or host.org_id != org.id or host.meta.get("archived"):
            raise field_problem("host_id", f"no active host with id {payload.host_id!r} in this organization")
        host_ids = [payload.host_id]
    return host_ids


def create_job(sandbox: Sandbox, org: Org, collection: str, payload: Any) -> tuple[Response, str]:
    kind = COLLECTIONS[collection]
    db = sandbox.db
    options = options_for(db, org, kind)
    style_id = getattr(payload, "style_id", None)
    if kind != "voiceover":
        style_id = style_id or options["default_style_id"]
        if style_id not in {s["id"] for s in options["styles"]}:
            raise field_problem("style_id", f"unknown style {style_id!r}; see GET /v1/{collection}/options")
    script_text: str | None = getattr(payload, "script", None)
    host_ids = _hosts(db, org, payload)
    labels: dict[str, str] = {}
    if script_text is not None:
        parsed = importer.parse_script_text(script_text)
        if not parsed.segments:
            raise field_problem(
                "script",
                "has no usable segments: put each speaker label like [Name] on its own line before the text",
            )
        hosts = [
            (r.id, str(r.data.get("name"))) for r in db.all("host", org.id) if not r.meta.get("archived")
        ]
        labels, unresolved = importer.resolve_labels(parsed.labels, hosts, {})
        if unresolved:
            raise ApiProblem(
                422,
                "Some speaker labels match no host: " + ", ".join(unresolved) + ".",
                title="Unresolved speakers",
                reason="unresolved_speakers",
                speakers=unresolved,
                recovery={"action": "choose_characters", "tool": "list_characters"},
            )
        host_ids = list(dict.fromkeys(labels.values())) or host_ids
    if not host_ids:
        narrator = default_host(db, org)
        if narrator is None:
            raise ApiProblem(
                422,
                "This organization has no active host to narrate; create one first.",
                recovery={"action": "choose_characters", "tool": "list_characters"},
            )
        host_ids = [narrator]
    source_ids = [str(s) for s in getattr(payload, "source_ids", None) or []]
    visuals = _check_sources(db, org, kind, source_ids)
    duration = payload.target_duration_seconds
    if kind == "voiceover":
        cap = PLAN_MAX_VOICEOVER_SECONDS.get(org.plan, 1800)
        if duration is not None and duration > cap:
            raise ApiProblem(
                422,
                f"The {org.plan} plan allows Voiceovers of at most {cap} seconds.",
                errors=[
                    {"field": "target_duration_seconds", "message": f"exceeds the plan's limit of {cap}"}
                ],
                recovery={"action": "check_account"},
            )
    else:
        saved = db.org_settings(org.id).get(f"{kind}_duration")
        duration = duration or (saved if saved in options["supported_duration_seconds"] else None)
        duration = duration or options["default_duration_seconds"]
    planned = float(duration or max(60, 20 * max(visuals, 1)))
    text = script_text or getattr(payload, "prompt", None) or getattr(payload, "direction", None) or ""
    media_id = new_id()
    now = now_iso()
    if script_text is not None:  # the first spoken line, not its [speaker label]
        text_for_title = importer.parse_script_text(script_text).segments[0].text
    else:
        text_for_title = text
    title = (
        text_for_title.replace(FAIL_PHRASE, "").strip().split("\n")[0][:80] if text.strip() else None
    ) or {
        "voiceover": "Voiceover",
        "video": "Video",
        "short": "Short",
    }[kind]
    orientation = (getattr(payload, "orientation", None) or "AUTO").upper()
    if orientation == "AUTO":
        orientation = "PORTRAIT" if kind == "short" else "LANDSCAPE"
    data: dict[str, Any] = {
        "id": media_id,
        "object": kind,
        "title": title,
        "status": "generating",
        "phase": "queued",
        "error": None,
        "generation_id": "gen_" + secrets.token_hex(8),
        "studio_url": f"{sandbox.base_url}/studio/{collection}/{media_id}",
        "host_id": host_ids[0],
        "host_ids": host_ids,
        "style_id": style_id,
        "target_duration_seconds": duration,
        "orientation": orientation,
        "language": getattr(payload, "language", None) or options["default_language"],
        "source_ids": source_ids,
        "mode": "script" if script_text is not None else "prompt",
        "attempt": 1,
        "progress_pct": 0,
        "created_at": now,
        "updated_at": now,
    }
    for extra in ("prompt", "direction", "captions_enabled", "visual_motion", "background_music"):
        if getattr(payload, extra, None) is not None:
            data[extra] = getattr(payload, extra)
    job = {
        "kind": kind,
        "media_id": media_id,
        "text": text,
        "labels": labels,
        "planned_seconds": planned,
        "fail": FAIL_PHRASE in text,
        "seed": secrets.randbits(31),
    }
    hold_credits(db, org, credits_for(kind, planned), kind, media_id)
    db.insert(kind, media_id, org.id, data, {"job": job})
    db.add_job(f"{kind}:{media_id}", kind, org.id, job)
    headers = {"Location": f"/v1/{collection}/{media_id}/status", "Retry-After": str(sandbox.poll_hint(10))}
    return data_response(
        present_media(sandbox, db.get(kind, media_id) or Record(kind, media_id, org.id, 0, data, {})),
        202,
        headers,
    ), media_id


def _register(collection: str, tag: str, parser: Any, body_models: Any) -> None:
    kind = COLLECTIONS[collection]
    noun = tag[:-1]

    @route("GET", f"/v1/{collection}/options", tag=tag, summary=f"{noun} options", response=MediaOptions)
    async def options(request: Request) -> Response:
        return data_response(options_for(sandbox_of(request).db, org_of(request), kind))

    @route(
        "POST",
        f"/v1/{collection}",
        tag=tag,
        summary=f"Create a {noun}",
        status=202,
        body=body_models,
        response=MediaJob,
        idempotency="required",
        response_headers=("Location", "Retry-After"),
        errors=(400, 401, 403, 404, 409, 415, 422, 429, 500, 502),
    )
    async def create(request: Request) -> Response:
        sandbox, org = sandbox_of(request), org_of(request)
        key = idempotency_key(request, required=True)
        body = await json_body(request)

        def produce() -> tuple[Response, str | None]:
            payload = validate(parser, body)
            return create_job(sandbox, org, collection, payload)

        response = await run_idempotent(
            request, sandbox.db, org.id, f"{collection}.create", key, body, produce, record_rejections=True
        )
        if sandbox.jobs is not None:
            sandbox.jobs.kick()
        return response

    @route(
        "GET",
        f"/v1/{collection}",
        tag=tag,
        summary=f"List {collection}, newest first",
        query=ListQuery,
        response=("list", MediaJob),
    )
    async def list_items(request: Request) -> Response:
        sandbox = sandbox_of(request)
        q = query(request, ListQuery)
        records, more = sandbox.db.page(
            kind, org_of(request).id, limit=q.limit, before_seq=decode_cursor(kind, q.cursor)
        )
        return page_response(request, kind, records, more, lambda r: present_media(sandbox, r))

    @route("GET", f"/v1/{collection}/{{media_id}}", tag=tag, summary=f"Retrieve a {noun}", response=MediaJob)
    async def retrieve(request: Request) -> Response:
        sandbox = sandbox_of(request)
        record = owned(sandbox.db, kind, str(request.path_params["media_id"]), org_of(request), noun.lower())
        return data_response(present_media(sandbox, record))

    @route(
        "GET",
        f"/v1/{collection}/{{media_id}}/status",
        tag=tag,
        summary=f"{noun} status (poll here)",
        response=MediaStatus,
    )
    async def status(request: Request) -> Response:
        sandbox = sandbox_of(request)
        record = owned(sandbox.db, kind, str(request.path_params["media_id"]), org_of(request), noun.lower())
        headers = (
            {"Retry-After": str(sandbox.poll_hint(10))} if record.data.get("status") == "generating" else {}
        )
        return data_response(status_of(sandbox, record), headers=headers)

    @route(
        "POST",
        f"/v1/{collection}/{{media_id}}/retry",
        tag=tag,
        summary=f"Start a new attempt of a failed or idle {noun}",
        status=202,
        response=MediaJob,
        idempotency="required",
        body=None,
        response_headers=("Location", "Retry-After"),
        errors=(400, 401, 403, 404, 409, 415, 422, 429, 500, 502),
    )
    async def retry(request: Request) -> Response:
        sandbox, org = sandbox_of(request), org_of(request)
        key = idempotency_key(request, required=True)
        media_id = str(request.path_params["media_id"])
        await json_body(request, optional=True)

        def produce() -> tuple[Response, str | None]:
            record = owned(sandbox.db, kind, media_id, org, noun.lower())
            if record.data.get("status") not in ("failed", "idle"):
                raise ApiProblem(
                    422,
                    f"Only a failed or idle {noun.lower()} can be retried; this one is "
                    f"{record.data.get('status')}.",
                    recovery={"action": "check_result"},
                )
            job = dict(
                record.meta.get("job")
                or {
                    "kind": kind,
                    "media_id": media_id,
                    "text": record.data.get("title") or "",
                    "labels": {},
                    "planned_seconds": float(record.data.get("target_duration_seconds") or 60),
                }
            )
            job.update(fail=False, seed=secrets.randbits(31))
            hold_credits(sandbox.db, org, credits_for(kind, float(job["planned_seconds"])), kind, media_id)
            record.data.update(
                status="generating",
                phase="queued",
                error=None,
                progress_pct=0,
                generation_id="gen_" + secrets.token_hex(8),
                # a seeded idle item has had no attempt yet (0); older records without the field had one
                attempt=int(1 if record.data.get("attempt") is None else record.data["attempt"]) + 1,
            )
            record.meta["job"] = job
            record.meta.pop("video_file", None)
            record.meta.pop("ready_at", None)
            touch(record)
            sandbox.db.save(record)
            sandbox.db.add_job(f"{kind}:{media_id}", kind, org.id, job)
            headers = {
                "Location": f"/v1/{collection}/{media_id}/status",
                "Retry-After": str(sandbox.poll_hint(10)),
            }
            return data_response(present_media(sandbox, record), 202, headers), media_id

        response = await run_idempotent(
            request,
            sandbox.db,
            org.id,
            f"{collection}.retry:{media_id}",
            key,
            {},
            produce,
            record_rejections=True,
        )
        if sandbox.jobs is not None:
            sandbox.jobs.kick()
        return response

    @route(
        "GET",
        f"/v1/{collection}/{{media_id}}/download",
        tag=tag,
        summary=f"Download a finished {noun}",
        response=MediaDownload,
    )
    async def download(request: Request) -> Response:
        sandbox = sandbox_of(request)
        record = owned(sandbox.db, kind, str(request.path_params["media_id"]), org_of(request), noun.lower())
        status = record.data.get("status")
        delivery: dict[str, Any]
        if status == "generating":
            delivery = {"kind": "preparing", "reason": "rendition"}
        elif status != "completed" or not record.meta.get("video_file"):
            delivery = {"kind": "unavailable"}
        elif CLOCK.time() < float(record.meta.get("ready_at") or 0):
            delivery = {"kind": "preparing", "reason": record.meta.get("preparing_reason", "rendition")}
        else:
            delivery = {
                "kind": "available",
                "url": sandbox.file_url(record.meta["video_file"]),
                "origin": "storage",
            }
        headers = {"Retry-After": str(sandbox.poll_hint(5))} if delivery["kind"] == "preparing" else {}
        return data_response({"id": record.id, "object": kind, "delivery": delivery}, headers=headers)

    _ = (options, create, list_items, retrieve, status, retry, download)


_register("videos", "Videos", parse_video_create, [VideoCreateInput, VideoScriptCreateInput])
_register("shorts", "Shorts", parse_short_create, [ShortCreateInput, ShortScriptCreateInput])
_register("voiceovers", "Voiceovers", VoiceoverCreateInput, VoiceoverCreateInput)

__all__: list[str] = []
_unused: Callable[..., Any] = estimate
