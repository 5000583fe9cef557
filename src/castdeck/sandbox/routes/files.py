"""Addresses outside ``/v1``: signed upload slots, signed downloads, studio links and public show pages.

None of them takes the API key; signed ones refuse a request that carries an Authorization header.
"""

from __future__ import annotations

import html
import mimetypes
from email.utils import format_datetime
from xml.sax.saxutils import escape

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response

from ..problems import ApiProblem
from ..routing import route
from ..service import parse_iso, plain_text, sandbox_of
from ..signing import verify
from ..web import json_response
from .episodes import present_episode

mimetypes.add_type("audio/mpeg", ".mp3")
mimetypes.add_type("video/mp4", ".mp4")
mimetypes.add_type("image/webp", ".webp")


def _refuse_credentials(request: Request) -> None:
    if "authorization" in request.headers:
        raise ApiProblem(
            400,
            "Signed addresses must not be sent credentials: remove the Authorization header.",
            title="Credentials sent to a signed address",
        )


def _check_signature(request: Request, method: str, target: str, refusal: str) -> None:
    """No credentials, and a current signature over this method and target; else 400 or 403."""
    _refuse_credentials(request)
    problem = verify(
        sandbox_of(request).secret,
        method,
        target,
        request.query_params.get("expires"),
        request.query_params.get("signature"),
    )
    if problem:
        raise ApiProblem(403, refusal.format(problem), recovery={"action": "retry"})


@route(
    "PUT",
    "/uploads/{source_id}",
    tag="Sources",
    summary="Signed upload address (from a reservation)",
    auth=False,
    in_schema=False,
)
async def put_upload(request: Request) -> Response:
    sandbox = sandbox_of(request)
    source_id = str(request.path_params["source_id"])
    _check_signature(request, "PUT", source_id, "Upload refused: {}. Reserve a new upload slot.")
    record = sandbox.db.get("source", source_id)
    if record is None:
        raise ApiProblem(404, "This upload slot no longer exists.")
    if record.data.get("status") != "awaiting_upload":
        raise ApiProblem(409, "This upload was already completed.")
    upload = record.meta["upload"]
    if (
        "chunked" in request.headers.get("transfer-encoding", "").lower()
        or "content-length" not in request.headers
    ):
        raise ApiProblem(411, "Send the file with a Content-Length header; chunked uploads are refused.")
    length = int(request.headers["content-length"])
    if length != upload["size_bytes"]:
        raise ApiProblem(
            400, f"Content-Length {length} does not match the reserved size {upload['size_bytes']}."
        )
    mime = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if mime != str(upload["mime_type"]).lower():
        raise ApiProblem(
            400, f"Content-Type must be {upload['mime_type']!r}, as the reservation's headers say."
        )
    target = sandbox.file_path(f"uploads/{source_id}")
    partial = target.with_suffix(".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    received = 0
    try:
        with partial.open("wb") as handle:
            async for chunk in request.stream():
                received += len(chunk)
                if received > length:
                    raise ApiProblem(400, "More bytes than Content-Length announced.")
                handle.write(chunk)
        if received != length:
            raise ApiProblem(400, f"Received {received} of {length} bytes.")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return json_response({"status": "uploaded", "source_id": source_id, "size_bytes": received})


@route(
    "GET", "/files/{path:path}", tag="Sources", summary="Signed download address", auth=False, in_schema=False
)
async def get_file(request: Request) -> Response:
    sandbox = sandbox_of(request)
    relative = str(request.path_params["path"])
    _check_signature(request, "GET", relative, "Download refused: {}. Fetch a fresh address from the API.")
    path = sandbox.file_path(relative).resolve()
    if sandbox.files_dir.resolve() not in path.parents or not path.is_file():
        raise ApiProblem(404, "This file no longer exists.")
    media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return FileResponse(path, media_type=media, headers={"Cache-Control": "private, max-age=3600"})


KIND_NAMES = {"videos": "Video", "shorts": "Short", "voiceovers": "Voiceover", "episodes": "Episode"}


@route(
    "GET", "/studio/{kind}/{item_id}", tag="Health", summary="Studio link target", auth=False, in_schema=False
)
async def studio_page(request: Request) -> Response:
    kind = str(request.path_params["kind"])
    item = html.escape(str(request.path_params["item_id"]))
    name = KIND_NAMES.get(kind)
    if name is None:
        raise ApiProblem(404, "No such studio page.")
    return HTMLResponse(
        f"<!doctype html><title>{name} {item} · Castdeck sandbox studio</title>"
        f"<h1>{name} {item}</h1><p>This is where the studio application would open this {name.lower()}. "
        "The sandbox has no studio editor; everything the API offers is available through the API.</p>"
    )


def _public_podcast(request: Request):  # type: ignore[no-untyped-def]
    sandbox = sandbox_of(request)
    record = sandbox.db.get("podcast", str(request.path_params["podcast_id"]))
    if record is None or record.data.get("visibility") not in ("public", "unlisted"):
        raise ApiProblem(404, "No public show here.")
    return sandbox, record


@route(
    "GET",
    "/shows/{podcast_id}",
    tag="Podcasts",
    summary="Public website of a podcast",
    auth=False,
    in_schema=False,
)
async def show_page(request: Request) -> Response:
    sandbox, record = _public_podcast(request)
    episodes = [
        present_episode(sandbox, e)
        for e in reversed(sandbox.db.matching("episode", record.org_id, "podcast_id", record.id))
    ]
    items = "".join(
        f"<li><a href='{html.escape(e['url'] or '')}'>{html.escape(e.get('title') or 'Untitled')}</a></li>"
        for e in episodes
        if e["status"] == "published"
    )
    title = html.escape(record.data.get("title") or "")
    return HTMLResponse(
        f"<!doctype html><title>{title}</title><h1>{title}</h1>"
        f"<p>{html.escape(plain_text(record.data.get('description')))}</p><ul>{items}</ul>"
        f"<p><a href='/shows/{record.id}/feed.xml'>RSS feed</a></p>"
    )


@route(
    "GET",
    "/shows/{podcast_id}/episodes/{episode_id}",
    tag="Podcasts",
    summary="Public episode page",
    auth=False,
    in_schema=False,
)
async def show_episode_page(request: Request) -> Response:
    sandbox, podcast = _public_podcast(request)
    record = sandbox.db.get("episode", str(request.path_params["episode_id"]))
    if record is None or record.data.get("podcast_id") != podcast.id:
        raise ApiProblem(404, "No such episode.")
    episode = present_episode(sandbox, record)
    if episode["status"] != "published":
        raise ApiProblem(404, "No such episode.")
    title = html.escape(episode.get("title") or "Untitled")
    audio = (
        f"<audio controls src='{html.escape(episode['audio_url'])}'></audio>" if episode["audio_url"] else ""
    )
    return HTMLResponse(
        f"<!doctype html><title>{title}</title><h1>{title}</h1>"
        f"<p>{html.escape(plain_text(episode.get('description')))}</p>{audio}"
    )


@route(
    "GET",
    "/shows/{podcast_id}/feed.xml",
    tag="Podcasts",
    summary="RSS feed of a public podcast",
    auth=False,
    in_schema=False,
)
async def show_feed(request: Request) -> Response:
    sandbox, record = _public_podcast(request)
    items = []
    for raw in reversed(sandbox.db.matching("episode", record.org_id, "podcast_id", record.id)):
        episode = present_episode(sandbox, raw)
        if episode["status"] != "published" or not episode["audio_url"]:
            continue
        size = sandbox.file_path(raw.meta["audio_file"]).stat().st_size if raw.meta.get("audio_file") else 0
        items.append(
            "<item>"
            f"<title>{escape(episode.get('title') or 'Untitled')}</title>"
            f"<guid isPermaLink='false'>{episode['id']}</guid>"
            f"<pubDate>{format_datetime(parse_iso(episode['published_at']))}</pubDate>"
            f"<description>{escape(plain_text(episode.get('description')))}</description>"
            f"<enclosure url='{escape(episode['audio_url'])}' length='{size}' type='audio/mpeg'/>"
            "</item>"
        )
    title = escape(record.data.get("title") or "")
    body = (
        "<?xml version='1.0' encoding='UTF-8'?><rss version='2.0'><channel>"
        f"<title>{title}</title><link>{sandbox.base_url}/shows/{record.id}</link>"
        f"<description>{escape(plain_text(record.data.get('description')))}</description>"
        f"<language>{escape((record.data.get('languages') or ['en'])[0])}</language>"
        f"{''.join(items)}</channel></rss>"
    )
    return Response(body, media_type="application/rss+xml")
