"""Podcasts (spec 2.2): list, create, retrieve, update, analytics."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import ListQuery, Podcast, PodcastAnalytics, PodcastCreate, PodcastUpdate

from .. import seed_content
from ..clock import CLOCK
from ..db import Database, Org, Record
from ..problems import field_problem
from ..routing import route
from ..service import as_html, new_id, now_iso, org_of, owned, parse_iso, sandbox_of, save_changes
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


def present_podcast(request: Request, record: Record) -> dict[str, Any]:
    sandbox = sandbox_of(request)
    data = dict(record.data)
    data["episode_count"] = sandbox.db.count("episode", record.org_id or "", "podcast_id", record.id)
    public = data.get("visibility") in ("public", "unlisted")
    data["url"] = f"{sandbox.base_url}/shows/{record.id}" if public else None
    data["rss_feed_url"] = f"{sandbox.base_url}/shows/{record.id}/feed.xml" if public else None
    if record.meta.get("image_file"):
        data["image_url"] = sandbox.file_url(record.meta["image_file"])
    return data


def check_hosts(db: Database, org: Org, host_ids: list[str], field: str = "host_ids") -> None:
    for index, host_id in enumerate(host_ids):
        host = db.get("host", host_id)
        if host is None or host.org_id != org.id or host.meta.get("archived"):
            raise field_problem(
                f"{field}.{index}", f"no active host with id {host_id!r} in this organization"
            )


@route(
    "GET",
    "/v1/podcasts",
    tag="Podcasts",
    summary="List podcasts, newest first",
    query=ListQuery,
    response=("list", Podcast),
)
async def list_podcasts(request: Request) -> Response:
    q = query(request, ListQuery)
    records, more = sandbox_of(request).db.page(
        "podcast", org_of(request).id, limit=q.limit, before_seq=decode_cursor("podcast", q.cursor)
    )
    return page_response(request, "podcast", records, more, lambda r: present_podcast(request, r))


@route(
    "POST",
    "/v1/podcasts",
    tag="Podcasts",
    summary="Create a podcast",
    status=201,
    body=PodcastCreate,
    response=Podcast,
    errors=(400, 401, 403, 415, 429, 500),
)
async def create_podcast(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    payload = validate(PodcastCreate, await json_body(request))
    check_hosts(sandbox.db, org, payload.host_ids)
    now = now_iso()
    podcast_id = new_id()
    data = {
        "id": podcast_id,
        "title": payload.title,
        "description": as_html(payload.description),
        "episode_count": 0,
        "episode_order": payload.episode_order,
        "host_ids": payload.host_ids,
        "image_url": None,
        "languages": [payload.language.lower()],
        "rss_feed_url": None,
        "url": None,
        "visibility": payload.visibility,
        "created_at": now,
        "updated_at": now,
    }
    with sandbox.db.transaction():
        record = sandbox.db.insert("podcast", podcast_id, org.id, data)
    return data_response(present_podcast(request, record), 201, {"Location": f"/v1/podcasts/{podcast_id}"})


@route("GET", "/v1/podcasts/{podcast_id}", tag="Podcasts", summary="Retrieve a podcast", response=Podcast)
async def get_podcast(request: Request) -> Response:
    record = owned(sandbox_of(request).db, "podcast", uuid_param(request, "podcast_id"), org_of(request))
    return data_response(present_podcast(request, record))


@route(
    "PATCH",
    "/v1/podcasts/{podcast_id}",
    tag="Podcasts",
    summary="Update a podcast",
    body=PodcastUpdate,
    body_media_types=PATCH_TYPES,
    response=Podcast,
    errors=(400, 401, 403, 404, 415, 429, 500),
)
async def update_podcast(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    record = owned(sandbox.db, "podcast", uuid_param(request, "podcast_id"), org)
    payload = validate(PodcastUpdate, await json_body(request, accept=PATCH_TYPES))
    changes = payload.model_dump(exclude_unset=True)
    if "host_ids" in changes:
        check_hosts(sandbox.db, org, changes["host_ids"])
    for name, value in changes.items():
        if name == "language":
            record.data["languages"] = [str(value).lower()]
        elif name == "description":
            record.data["description"] = as_html(value)
        else:
            record.data[name] = value
    save_changes(sandbox.db, record)
    return data_response(present_podcast(request, record))


@route(
    "GET",
    "/v1/podcasts/{podcast_id}/analytics",
    tag="Analytics",
    summary="Podcast analytics",
    response=PodcastAnalytics,
)
async def podcast_analytics(request: Request) -> Response:
    from .episodes import analytics_lag, episode_analytics_numbers

    sandbox, org = sandbox_of(request), org_of(request)
    record = owned(sandbox.db, "podcast", uuid_param(request, "podcast_id"), org)
    episodes = sandbox.db.matching("episode", org.id, "podcast_id", record.id)
    enabled = record.data.get("visibility") != "private"
    lag = analytics_lag(sandbox, record.id)
    per_episode = [episode_analytics_numbers(e, lag) for e in episodes]
    if not enabled:  # audio metrics are 0 while analytics are disabled, in the totals and per episode
        for numbers in per_episode:
            numbers["downloads"] = {"first_7_days": 0, "first_30_days": 0, "total": 0}
    downloads = sum(n["downloads"]["total"] for n in per_episode)
    views = sum(n["video_views"]["total"] for n in per_episode)
    # last_7_days / last_30_days are rolling windows of combined plays (not the since-publish windows)
    recent = [_recent_downloads(e, lag) if enabled else (0, 0) for e in episodes]
    last_7 = sum(r[0] + n["video_views"]["last_7_days"] for r, n in zip(recent, per_episode, strict=True))
    last_30 = sum(r[1] + n["video_views"]["last_30_days"] for r, n in zip(recent, per_episode, strict=True))
    apps = seed_content.analytics_numbers(record.id, 30.0).get("plays_by_app", {})
    # plays by app count what "plays" counts (downloads plus video views), split by the podcast's
    # app shares and summing to it exactly (largest remainders get the units rounding left over)
    plays_by_app = _split(((downloads if enabled else 0) + views), apps)
    return data_response(
        {
            "podcast_id": record.id,
            "as_of": now_iso(),
            "complete": lag == 0,
            "analytics_enabled": enabled,
            "totals": {
                "downloads": downloads if enabled else 0,
                "video_views": views,
                "plays": (downloads if enabled else 0) + views,
                "last_7_days": last_7,
                "last_30_days": last_30,
            },
            "plays_by_app": plays_by_app if enabled else {},
            "episodes": [
                {"episode_id": e.id, "downloads": n["downloads"], "video_views": n["video_views"]}
                for e, n in zip(episodes, per_episode, strict=True)
            ],
        }
    )


def _split(total: int, weights: dict[str, float]) -> dict[str, int]:
    """``total`` in whole parts proportional to ``weights``, summing to ``total``."""
    scale = sum(weights.values())
    if not scale:
        return {}
    exact = {name: total * value / scale for name, value in weights.items()}
    parts = {name: int(share) for name, share in exact.items()}
    left = total - sum(parts.values())
    for name in sorted(exact, key=lambda n: (-(exact[n] - parts[n]), n))[:left]:
        parts[name] += 1
    return parts


def _recent_downloads(record: Record, lag: float = 0.0) -> tuple[int, int]:
    """Audio downloads of a published episode during the last 7 and the last 30 days (as counted
    ``lag`` days ago: a lagging provider's rolling windows are floors too)."""
    if record.data.get("status") != "published":
        return 0, 0
    age = max(0.0, days_since(record.data.get("published_at")) - lag)
    total = seed_content.analytics_numbers(record.id, age)["downloads"]["total"]

    def before(days: float) -> int:
        return int(seed_content.analytics_numbers(record.id, max(0.0, age - days))["downloads"]["total"])

    return max(0, total - before(7)), max(0, total - before(30))


def days_since(stamp: str | None) -> float:
    if not stamp:
        return 0.0
    return max(0.0, (CLOCK.now() - parse_iso(stamp)).total_seconds() / 86400)
