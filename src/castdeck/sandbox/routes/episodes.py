"""Episodes (spec 2.3, 3.3, 4.2): list, create, retrieve, update, publish, unpublish, delete,
cover image, word timestamps and analytics. Generation and import live in ``generation.py``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import (
    Episode,
    EpisodeAnalytics,
    EpisodeCreate,
    EpisodeImageResult,
    EpisodeListQuery,
    EpisodeUpdate,
    PublishInput,
    PublishResult,
    WordTimestamps,
    signature_matches,
)

from .. import seed_content
from ..clock import CLOCK
from ..db import Record
from ..problems import ApiProblem, field_problem
from ..routing import route
from ..service import Sandbox, new_id, now_iso, org_of, owned, parse_iso, sandbox_of, save_changes
from ..web import (
    PATCH_TYPES,
    data_response,
    decode_cursor,
    json_body,
    page_response,
    query,
    uuid_param,
    validate,
)
from .podcasts import check_hosts, days_since

MAX_IMAGE_BYTES = 10 * 1024 * 1024
IMAGE_TYPES = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}


def promote_due(sandbox: Sandbox, record: Record) -> None:
    """A scheduled episode whose time has come is published."""
    scheduled = record.data.get("scheduled_at")
    if record.data.get("status") == "scheduled" and scheduled and parse_iso(scheduled) <= CLOCK.now():
        record.data["status"] = "published"
        record.data["published_at"] = scheduled
        record.data["scheduled_at"] = None
        with sandbox.db.transaction():
            sandbox.db.save(record)


def requested_episode(request: Request) -> Record:
    """The episode named by the path, when it belongs to the caller's organization (else 404/400)."""
    return owned(sandbox_of(request).db, "episode", uuid_param(request, "episode_id"), org_of(request))


def present_episode(sandbox: Sandbox, record: Record) -> dict[str, Any]:
    promote_due(sandbox, record)
    data = dict(record.data)
    meta = record.meta
    data["audio_url"] = sandbox.file_url(meta["audio_file"]) if meta.get("audio_file") else None
    data["video_url"] = sandbox.file_url(meta["video_file"]) if meta.get("video_file") else None
    if meta.get("image_file"):
        data["image_url"] = sandbox.file_url(meta["image_file"])
    podcast = sandbox.db.get("podcast", str(data.get("podcast_id")))
    public = podcast is not None and podcast.data.get("visibility") in ("public", "unlisted")
    published = data.get("status") == "published"
    data["url"] = (
        f"{sandbox.base_url}/shows/{data['podcast_id']}/episodes/{record.id}"
        if published and public
        else None
    )
    data["rendered"] = bool(meta.get("rendered"))
    if meta.get("duration") is not None:
        data["duration"] = round(float(meta["duration"]), 2)
    return data


def analytics_lag(sandbox: Any, podcast_id: object) -> float:
    """Days of figures the analytics provider has not delivered for a podcast's episodes: 0 while it
    is healthy; a degraded provider (a seeded show) lags, and its figures are floors."""
    podcast = sandbox.db.get("podcast", str(podcast_id))
    degraded = podcast is not None and podcast.meta.get("analytics_degraded")
    return seed_content.DEGRADED_LAG_DAYS if degraded else 0.0


def episode_analytics_numbers(record: Record, lag: float = 0.0) -> dict[str, Any]:
    """Downloads since publish and rolling video views of one episode, as counted ``lag`` days ago."""
    if record.data.get("status") != "published":
        zero = {"first_7_days": 0, "first_30_days": 0, "total": 0}
        return {"downloads": zero, "video_views": {"last_7_days": 0, "last_30_days": 0, "total": 0}}
    age = max(0.0, days_since(record.data.get("published_at")) - lag)
    numbers = seed_content.analytics_numbers(record.id, age)
    return {"downloads": numbers["downloads"], "video_views": numbers["video_views"]}


@route(
    "GET",
    "/v1/episodes",
    tag="Episodes",
    summary="List episodes, newest first",
    query=EpisodeListQuery,
    response=("list", Episode),
)
async def list_episodes(request: Request) -> Response:
    sandbox = sandbox_of(request)
    q = query(request, EpisodeListQuery)
    where: dict[str, Any] = {}
    if q.podcast_id is not None:
        where["podcast_id"] = str(q.podcast_id)
    if q.status is not None:
        where["status"] = q.status
    for record in sandbox.db.matching("episode", org_of(request).id, "status", "scheduled"):
        promote_due(sandbox, record)  # before the page is read: a status filter sees the time passing
    records, more = sandbox.db.page(
        "episode",
        org_of(request).id,
        limit=q.limit,
        before_seq=decode_cursor("episode", q.cursor),
        where=where,
    )
    return page_response(request, "episode", records, more, lambda r: present_episode(sandbox, r))


def new_episode_data(podcast_id: str, host_ids: list[str] | None, **fields: Any) -> dict[str, Any]:
    now = now_iso()
    data: dict[str, Any] = {
        "id": new_id(),
        "podcast_id": podcast_id,
        "status": "draft",
        "title": None,
        "description": None,
        "image_url": None,
        "audio_url": None,
        "video_url": None,
        "url": None,
        "host_ids": host_ids,
        "source_ids": [],
        "published_at": None,
        "scheduled_at": None,
        "created_at": now,
        "updated_at": now,
        "generation": None,
    }
    data.update(fields)
    return data


@route(
    "POST",
    "/v1/episodes",
    tag="Episodes",
    summary="Create an empty episode (no content generated)",
    status=201,
    body=EpisodeCreate,
    response=Episode,
    errors=(400, 401, 403, 404, 415, 429, 500),
)
async def create_episode(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    payload = validate(EpisodeCreate, await json_body(request))
    podcast = owned(sandbox.db, "podcast", str(payload.podcast_id), org)
    if payload.host_ids:
        check_hosts(sandbox.db, org, payload.host_ids)
    data = new_episode_data(
        podcast.id,
        payload.host_ids if payload.host_ids is not None else podcast.data.get("host_ids"),
        title=payload.title,
        description=payload.description,
        image_url=payload.image,
    )
    with sandbox.db.transaction():
        record = sandbox.db.insert("episode", data["id"], org.id, data)
    return data_response(present_episode(sandbox, record), 201, {"Location": f"/v1/episodes/{record.id}"})


@route(
    "GET",
    "/v1/episodes/{episode_id}",
    tag="Episodes",
    summary="Retrieve an episode (poll generation here)",
    response=Episode,
)
async def get_episode(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    headers = {}
    generation = record.data.get("generation") or {}
    if generation.get("state") == "generating":
        headers["Retry-After"] = str(sandbox.poll_hint(5))
    return data_response(present_episode(sandbox, record), headers=headers)


@route(
    "PATCH",
    "/v1/episodes/{episode_id}",
    tag="Episodes",
    summary="Update an episode",
    body=EpisodeUpdate,
    body_media_types=PATCH_TYPES,
    response=Episode,
    errors=(400, 401, 403, 404, 415, 429, 500),
)
async def update_episode(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    payload = validate(EpisodeUpdate, await json_body(request, accept=PATCH_TYPES))
    # read again after awaiting the body: a generation job may have changed the record meanwhile
    record = owned(sandbox.db, "episode", record.id, org_of(request))
    for name, value in payload.model_dump(exclude_unset=True).items():
        if name == "image":
            record.data["image_url"] = value
            record.meta.pop("image_file", None)
        else:
            record.data[name] = value
    save_changes(sandbox.db, record)
    return data_response(present_episode(sandbox, record))


@route(
    "DELETE",
    "/v1/episodes/{episode_id}",
    tag="Episodes",
    summary="Delete an episode",
    status=204,
    errors=(400, 401, 403, 404, 422, 429, 500),
)
async def delete_episode(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    if (record.data.get("generation") or {}).get("state") == "generating":
        raise ApiProblem(
            422,
            "The episode is still generating; delete it once generation has finished.",
            recovery={
                "action": "poll_content",
                "poll_after_seconds": float(sandbox.poll_hint(5)),
                "tool": "get_content",
            },
        )
    with sandbox.db.transaction():
        sandbox.db.delete("episode", record.id)
    for key in ("audio_file", "video_file", "image_file"):
        if record.meta.get(key):
            sandbox.file_path(record.meta[key]).unlink(missing_ok=True)
    return Response(status_code=204)


@route(
    "POST",
    "/v1/episodes/{episode_id}/publish",
    tag="Episodes",
    summary="Publish now, or schedule with scheduled_time",
    body=PublishInput,
    body_required=False,
    response=PublishResult,
    errors=(400, 401, 403, 404, 415, 422, 429, 500),
)
async def publish_episode(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    body = await json_body(request, optional=True)
    payload = validate(PublishInput, {} if body is None else body)
    record = owned(sandbox.db, "episode", record.id, org_of(request))  # fresh after the await
    promote_due(sandbox, record)
    generation = record.data.get("generation") or {}
    if generation.get("state") == "generating":
        raise ApiProblem(
            422,
            "Generation or rendering is still running; poll the episode and publish when it has finished.",
            recovery={
                "action": "poll_content",
                "poll_after_seconds": float(sandbox.poll_hint(5)),
                "tool": "get_content",
            },
        )
    if record.data.get("status") == "published":
        raise ApiProblem(422, "The episode is already published.", recovery={"action": "check_result"})
    if not record.meta.get("rendered"):
        raise ApiProblem(
            422,
            "This draft has never been rendered; render it in the studio application before publishing.",
            recovery={"action": "open_studio"},
        )
    when = payload.scheduled_time
    result: dict[str, Any] = {"id": record.id}
    if when is None or when <= CLOCK.now():
        if when is not None and (CLOCK.now() - when).total_seconds() > 60:
            raise field_problem("scheduled_time", "must be in the future")
        record.data.update(status="published", published_at=now_iso(), scheduled_at=None)
        result["status"] = "published"
    else:
        stamp = now_iso(when)
        record.data.update(status="scheduled", scheduled_at=stamp, published_at=None)
        result.update(status="scheduled", scheduled_time=stamp)
    save_changes(sandbox.db, record)
    return data_response(result)


@route(
    "POST",
    "/v1/episodes/{episode_id}/unpublish",
    tag="Episodes",
    summary="Take a published or scheduled episode back to draft",
    response=Episode,
    errors=(400, 401, 403, 404, 422, 429, 500),
)
async def unpublish_episode(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    promote_due(sandbox, record)
    if record.data.get("status") not in ("published", "scheduled"):
        raise ApiProblem(
            422,
            "Only a published or scheduled episode can be unpublished.",
            recovery={"action": "check_result"},
        )
    record.data.update(status="draft", published_at=None, scheduled_at=None)
    save_changes(sandbox.db, record)
    return data_response(present_episode(sandbox, record))


@route(
    "PUT",
    "/v1/episodes/{episode_id}/image",
    tag="Episodes",
    summary="Upload the episode's cover image",
    body="image",
    body_media_types=tuple(IMAGE_TYPES),
    response=EpisodeImageResult,
    errors=(400, 401, 403, 404, 415, 429, 500),
)
async def upload_episode_image(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    mime = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if mime not in IMAGE_TYPES:
        raise ApiProblem(415, "Send the image as image/jpeg, image/png or image/webp.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_IMAGE_BYTES:
            raise field_problem("image", f"is larger than {MAX_IMAGE_BYTES} bytes (10 MB)")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw:
        raise field_problem("image", "is empty")
    if not signature_matches(raw[:4096], mime):
        raise field_problem("image", f"the bytes do not match the image type {mime}")
    # read again after the (possibly slow) upload: a generation job may have changed the record meanwhile
    record = owned(sandbox.db, "episode", record.id, org_of(request))
    relative = f"episodes/{record.id}/cover-{new_id()[:8]}.{IMAGE_TYPES[mime]}"
    path = sandbox.file_path(relative)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    old = record.meta.get("image_file")
    record.meta["image_file"] = relative
    save_changes(sandbox.db, record)
    if old:
        sandbox.file_path(old).unlink(missing_ok=True)
    return data_response({"id": record.id, "image_url": sandbox.file_url(relative)})


def _clock(seconds: float, sep: str) -> str:
    millis = round(seconds * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{sep}{millis:03d}"


def _cues(words: list[list[Any]], speakers: list[dict[str, Any]]) -> list[tuple[float, float, str]]:
    """Group words into subtitle cues: one speaker, at most ~7 seconds or 14 words each."""
    cues: list[tuple[float, float, str]] = []
    current: list[list[Any]] = []
    for word in words:
        if current and (
            word[3] != current[0][3]
            or len(current) >= 14
            or word[1] - current[0][0] > 7
            or (str(current[-1][2]).endswith((".", "?", "!")) and len(current) >= 6)
        ):
            cues.append(_cue(current, speakers))
            current = []
        current.append(word)
    if current:
        cues.append(_cue(current, speakers))
    return cues


def _cue(words: list[list[Any]], speakers: list[dict[str, Any]]) -> tuple[float, float, str]:
    speaker = words[0][3]
    text = " ".join(str(w[2]) for w in words)
    if speaker is not None and 0 <= speaker < len(speakers):
        text = f"{speakers[speaker]['name']}: {text}"
    return float(words[0][0]), float(words[-1][1]), text


@route(
    "GET",
    "/v1/episodes/{episode_id}/timestamps",
    tag="Episodes",
    summary="Word timestamps as JSON, SRT or WebVTT (404 until audio exists)",
    response=WordTimestamps,
    response_media_types=("application/json", "application/x-subrip", "text/vtt"),
    extra={"format_param": True},
)
async def episode_timestamps(request: Request) -> Response:
    sandbox = sandbox_of(request)
    record = requested_episode(request)
    fmt = request.query_params.get("format", "json").lower()
    if fmt not in ("json", "srt", "vtt"):
        raise field_problem("format", "must be json, srt or vtt")
    stored = sandbox.db.timestamps(record.id)
    if stored is None or not record.meta.get("audio_file"):
        raise ApiProblem(
            404,
            "This episode has no audio yet, so it has no word timestamps.",
            recovery={"action": "poll_content", "tool": "get_content"},
        )
    speakers, words = stored
    if fmt == "json":
        return data_response(
            {
                "episode_id": record.id,
                "speakers": speakers,
                "words": [{"start": w[0], "end": w[1], "speaker": w[3], "text": w[2]} for w in words],
            }
        )
    cues = _cues(words, speakers)
    if fmt == "srt":
        body = "\n".join(
            f"{i}\n{_clock(start, ',')} --> {_clock(end, ',')}\n{text}\n"
            for i, (start, end, text) in enumerate(cues, 1)
        )
        return Response(body, media_type="application/x-subrip")
    body = "WEBVTT\n\n" + "\n".join(
        f"{_clock(start, '.')} --> {_clock(end, '.')}\n{text}\n" for start, end, text in cues
    )
    return Response(body, media_type="text/vtt")


@route(
    "GET",
    "/v1/episodes/{episode_id}/analytics",
    tag="Analytics",
    summary="Episode analytics",
    response=EpisodeAnalytics,
)
async def episode_analytics(request: Request) -> Response:
    record = requested_episode(request)
    lag = analytics_lag(sandbox_of(request), record.data.get("podcast_id"))
    numbers = episode_analytics_numbers(record, lag)
    return data_response({"episode_id": record.id, "as_of": now_iso(), "complete": lag == 0, **numbers})
