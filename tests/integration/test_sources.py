"""Sources over real HTTP (spec 2.8, 3.2, 4.5): url/youtube/text sources, upload slots, signed
upload addresses, completion checks, processing and deletion."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx
import pytest

from tests.conftest import RunningSandbox, assert_problem, field_names
from tests.helpers import (
    ODP,
    complete,
    image_bytes,
    mp3_bytes,
    odp_bytes,
    office_bytes,
    pdf_bytes,
    put_bytes,
    reserve,
    reserve_ok,
    upload_source,
    wait_source,
)
from tests.tls import SHARED_TLS

TEXT = "Tidal power turns the rise and fall of the sea into electricity.\nBarrages and turbines both work.\n"
MARKDOWN = "# Tidal power\n\n- Barrages hold water back\n- Turbines sit in fast streams\n"
CSV = "site,capacity_mw\nRance,240\nSihwa,254\nMeyGen,6\n"
PNG = "image/png"
PDF = "application/pdf"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
PPTM = "application/vnd.ms-powerpoint.presentation.macroEnabled.12"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

# --- helpers ------------------------------------------------------------------------------------------------


def tampered(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    params = {k: v[0] for k, v in parse_qs(parts.query).items()}
    params.update(changes)
    return urlunsplit(parts._replace(query=urlencode(params)))


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --- url, youtube and text sources ----------------------------------------------------------------------------


def test_create_url_youtube_and_text_sources(api: httpx.Client) -> None:
    bodies = [
        {"type": "URL", "url": "https://example.com/tides", "title": "Tides"},
        {"type": "youtube", "url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"},
        {"type": "YouTube", "url": "https://youtu.be/dQw4w9WgXcQ", "title": "Short link"},
        {
            "type": "Text",
            "content": "Kelp forests store carbon in their holdfasts and fronds.",
            "title": "Kelp",
        },
    ]
    created = []
    for body in bodies:
        response = api.post("/v1/sources", json=body)
        assert response.status_code in (200, 201, 202), response.text
        data = response.json()["data"]
        uuid.UUID(data["id"])
        assert data["type"] == str(body["type"]).lower()
        assert data["status"] in ("processing", "completed")
        assert data["error_message"] is None
        for field in ("created_at", "updated_at"):
            parse_time(data[field])
        if "title" in body:
            assert data["title"] == body["title"]
        created.append(data)
    finished = [wait_source(api, d["id"]) for d in created]
    assert [f["status"] for f in finished] == ["completed"] * 4
    assert finished[0]["metadata"]["url"] == "https://example.com/tides"
    assert finished[3]["metadata"]["words"] == 9
    listed = {s["id"] for s in api.get("/v1/sources", params={"limit": 100}).json()["data"]}
    assert {d["id"] for d in created} <= listed


def test_url_on_unreachable_host_ends_in_error(api: httpx.Client) -> None:
    response = api.post("/v1/sources", json={"type": "url", "url": "https://nowhere.invalid/page"})
    assert response.status_code == 201
    assert response.json()["data"]["status"] == "processing"
    final = wait_source(api, response.json()["data"]["id"])
    assert final["status"] == "error"
    assert final["error_message"] and "nowhere.invalid" in final["error_message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "url", "url": "not a uri"}, "url"),
        ({"type": "url", "url": "example.com/page"}, "url"),
        ({"type": "url"}, "url"),
        ({"type": "youtube", "url": "https://vimeo.com/12345"}, "url"),
        ({"type": "youtube", "url": "https://notyoutube.com/watch?v=1"}, "url"),
        ({"type": "text", "content": "x" * 100_001}, "content"),
        ({"type": "text", "content": ""}, "content"),
        ({"type": "text"}, "content"),
        ({"url": "https://example.com"}, "type"),
        ({"type": "pdf", "url": "https://example.com"}, "type"),
        ({"type": 7, "url": "https://example.com"}, "type"),
        ({"type": "url", "url": "https://example.com", "colour": "blue"}, "colour"),
        ({"type": "text", "content": "fine", "url": "https://example.com"}, "url"),
    ],
)
def test_create_source_rules(api: httpx.Client, body: dict[str, Any], field: str) -> None:
    before = len(api.get("/v1/sources", params={"limit": 100}).json()["data"])
    problem = assert_problem(api.post("/v1/sources", json=body), 400, "validation_error")
    assert field in field_names(problem), problem
    assert problem["recovery"]["action"] == "correct_input"
    assert len(api.get("/v1/sources", params={"limit": 100}).json()["data"]) == before


def test_text_source_at_the_limit_is_accepted(api: httpx.Client) -> None:
    response = api.post("/v1/sources", json={"type": "text", "content": "word " * 20_000})
    assert response.status_code == 201, response.text
    assert wait_source(api, response.json()["data"]["id"])["metadata"]["words"] == 20_000


# --- uploads --------------------------------------------------------------------------------------------------

UPLOADS = [
    ("chart.png", PNG, lambda: image_bytes("PNG"), True, 1),
    ("photo.jpg", "image/jpeg", lambda: image_bytes("JPEG"), True, 1),
    ("photo.jpeg", "image/jpeg", lambda: image_bytes("JPEG"), False, None),
    ("frame.webp", "image/webp", lambda: image_bytes("WEBP"), True, 1),
    ("deck.pdf", PDF, lambda: pdf_bytes(3), True, 3),
    ("deck.pptx", PPTX, lambda: office_bytes("pptx", 4), True, 4),
    ("macros.pptm", PPTM, lambda: office_bytes("pptx", 2), True, 2),
    ("slides.odp", ODP, lambda: odp_bytes(3), True, 3),
    ("notes.txt", "text/plain", lambda: TEXT.encode(), False, None),
    ("notes.md", "text/markdown", lambda: MARKDOWN.encode(), False, None),
    ("table.csv", "text/csv", lambda: CSV.encode(), False, None),
    ("report.docx", DOCX, lambda: office_bytes("docx"), False, None),
    ("interview.mp3", "audio/mpeg", mp3_bytes, False, None),
]


@pytest.mark.parametrize(
    ("file_name", "mime", "make", "visuals", "visual_count"), UPLOADS, ids=[u[0] for u in UPLOADS]
)
def test_upload_flow(
    api: httpx.Client, file_name: str, mime: str, make: Any, visuals: bool, visual_count: int | None
) -> None:
    content: bytes = make()
    reserved_at = datetime.now(UTC)
    response = reserve(
        api, file_name, mime, len(content), prepare_visuals=visuals, title=f"Upload of {file_name}"
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    source, slot = data["source"], data["upload"]
    uuid.UUID(source["id"])
    assert source["status"] == "awaiting_upload"
    assert source["title"] == f"Upload of {file_name}"
    assert slot["method"] == "PUT"
    assert slot["headers"]["content-type"].lower() == mime.lower()
    assert slot["url"].startswith("http")
    assert "sk_sandbox" not in slot["url"]
    expires = parse_time(slot["expires_at"])
    assert abs((expires - reserved_at) - timedelta(hours=2)) < timedelta(seconds=30)
    assert api.get(f"/v1/sources/{source['id']}").json()["data"]["status"] == "awaiting_upload"

    put = put_bytes(slot, content)
    assert put.status_code == 200, put.text
    assert "authorization" not in put.request.headers

    completed = complete(api, source["id"])
    assert completed.status_code == 200, completed.text
    assert completed.json()["data"]["status"] in ("processing", "completed")

    final = wait_source(api, source["id"])
    assert final["status"] == "completed", final
    assert final["error_message"] is None
    metadata = final["metadata"]
    assert metadata["file_name"] == file_name
    assert metadata["mime_type"].lower() == mime.lower()
    assert metadata["size_bytes"] == len(content)
    if mime.startswith("text/"):
        assert metadata["words"] == len(content.decode().split())
    if visuals:
        assert metadata["visual_count"] == visual_count
    else:
        assert "visual_count" not in metadata


def test_mime_type_is_case_insensitive_and_canonicalised(api: httpx.Client) -> None:
    content = image_bytes("PNG")
    data = reserve_ok(api, "CHART.PNG", "Image/PNG", content)
    assert data["upload"]["headers"]["content-type"] == PNG
    assert put_bytes(data["upload"], content).status_code == 200
    assert complete(api, data["source"]["id"]).status_code == 200
    assert wait_source(api, data["source"]["id"])["status"] == "completed"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"file_name": "dir/notes.txt", "mime_type": "text/plain", "size_bytes": 10}, "file_name"),
        ({"file_name": "dir\\notes.txt", "mime_type": "text/plain", "size_bytes": 10}, "file_name"),
        ({"file_name": "a" * 252 + ".txt", "mime_type": "text/plain", "size_bytes": 10}, "file_name"),
        ({"file_name": "", "mime_type": "text/plain", "size_bytes": 10}, "file_name"),
        ({"file_name": "notes.pdf", "mime_type": "text/plain", "size_bytes": 10}, "file_name"),
        ({"file_name": "notes", "mime_type": "text/plain", "size_bytes": 10}, "file_name"),
        ({"file_name": "tool.exe", "mime_type": "application/x-msdownload", "size_bytes": 10}, "mime_type"),
        ({"file_name": "clip.mp4", "mime_type": "video/mp4", "size_bytes": 10}, "mime_type"),
        ({"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 0}, "size_bytes"),
        ({"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 104_857_601}, "size_bytes"),
        ({"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": "10"}, "size_bytes"),
        ({"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 1.5}, "size_bytes"),
        ({"file_name": "notes.txt", "mime_type": "text/plain"}, "size_bytes"),
        ({"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 10, "title": ""}, "title"),
        (
            {"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 10, "title": "t" * 501},
            "title",
        ),
        (
            {"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 10, "prepare_visuals": True},
            "mime_type",
        ),
        (
            {"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 10, "prepare_visuals": "yes"},
            "prepare_visuals",
        ),
        ({"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": 10, "folder": "x"}, "folder"),
    ],
)
def test_reservation_rules(api: httpx.Client, body: dict[str, Any], field: str) -> None:
    problem = assert_problem(api.post("/v1/sources/uploads", json=body), 400, "validation_error")
    assert field in field_names(problem), problem
    if body["mime_type"].startswith("video/"):
        assert "audio" in " ".join(e["message"] for e in problem["errors"])


def test_reservation_limits_are_inclusive(api: httpx.Client) -> None:
    ok = [
        {"file_name": "a" * 251 + ".txt", "mime_type": "text/plain", "size_bytes": 1, "title": "t"},
        {"file_name": "big.pdf", "mime_type": PDF, "size_bytes": 104_857_600, "title": "t" * 500},
    ]
    for body in ok:
        response = api.post("/v1/sources/uploads", json=body)
        assert response.status_code == 201, response.text
        api.delete(f"/v1/sources/{response.json()['data']['source']['id']}")


# --- signed upload address ------------------------------------------------------------------------------------


def test_signed_address_rules(api: httpx.Client) -> None:
    content = TEXT.encode()
    data = reserve_ok(api, "notes.txt", "text/plain", content)
    slot, source_id = data["upload"], data["source"]["id"]
    signature = parse_qs(urlsplit(slot["url"]).query)["signature"][0]
    bad_signature = signature[:-1] + ("0" if signature[-1] != "0" else "1")

    assert_problem(httpx.put(tampered(slot["url"], signature=bad_signature), content=content,
                             headers=slot["headers"], verify=SHARED_TLS), 403)  # fmt: skip
    later = str(int(parse_time(slot["expires_at"]).timestamp()) + 3600)
    assert_problem(
        httpx.put(
            tampered(slot["url"], expires=later), content=content, headers=slot["headers"], verify=SHARED_TLS
        ),
        403,
    )
    assert_problem(put_bytes(slot, content, Authorization="Bearer sk_sandbox_demo"), 400)
    # nothing was stored: completion finds no bytes
    assert_problem(complete(api, source_id), 422)

    def chunks() -> Iterator[bytes]:
        yield content[:10]
        yield content[10:]

    chunked = put_bytes(slot, chunks())
    assert "content-length" not in chunked.request.headers
    assert_problem(chunked, 411)
    assert_problem(put_bytes(slot, content[:-1]), 400)
    assert_problem(put_bytes(slot, content + b"!"), 400)
    assert_problem(put_bytes(slot, content, **{"content-type": "text/markdown"}), 400)
    assert_problem(complete(api, source_id), 422)
    assert api.get(f"/v1/sources/{source_id}").json()["data"]["status"] == "awaiting_upload"

    assert put_bytes(slot, content).status_code == 200
    assert complete(api, source_id).status_code == 200
    # a completed slot takes no more bytes
    assert put_bytes(slot, content).status_code == 409
    assert wait_source(api, source_id)["status"] == "completed"


def test_expired_slot(sandbox_factory: Callable[..., RunningSandbox]) -> None:
    running = sandbox_factory("--speed", "50", "--upload-slot-lifetime", "2", "--no-seed-media")
    api = running.client()
    content = CSV.encode()
    uploaded = reserve_ok(api, "table.csv", "text/csv", content)
    idle = reserve_ok(api, "table.csv", "text/csv", content)
    expires = parse_time(idle["upload"]["expires_at"])
    assert timedelta(seconds=0) < expires - running.now() <= timedelta(seconds=3)  # 2 s, rounded up
    assert put_bytes(uploaded["upload"], content).status_code == 200
    running.advance(3.1)
    assert_problem(put_bytes(idle["upload"], content), 403)
    assert_problem(put_bytes(uploaded["upload"], content), 403)
    problem = assert_problem(complete(api, uploaded["source"]["id"]), 422)
    assert "expired" in problem["detail"]
    assert_problem(complete(api, idle["source"]["id"]), 422)
    assert api.get(f"/v1/sources/{uploaded['source']['id']}").json()["data"]["status"] == "awaiting_upload"
    # a fresh reservation works (used at once, within its 2 s)
    fresh = upload_source(api, "table.csv", "text/csv", content)
    assert fresh["status"] == "completed"


# --- completion -----------------------------------------------------------------------------------------------


def test_complete_upload_verification_leaves_the_slot_usable(api: httpx.Client) -> None:
    content = image_bytes("PNG")
    data = reserve_ok(api, "chart.png", PNG, content, prepare_visuals=True)
    slot, source_id = data["upload"], data["source"]["id"]

    assert_problem(complete(api, source_id), 422)
    assert api.get(f"/v1/sources/{source_id}").json()["data"]["status"] == "awaiting_upload"

    wrong = (b"This is plain text, not a PNG image at all. " * 200)[: len(content)]
    assert len(wrong) == len(content)
    assert put_bytes(slot, wrong).status_code == 200
    problem = assert_problem(complete(api, source_id), 422)
    assert "mime_type" in field_names(problem)
    assert api.get(f"/v1/sources/{source_id}").json()["data"]["status"] == "awaiting_upload"

    assert put_bytes(slot, content).status_code == 200
    first = complete(api, source_id)
    assert first.status_code == 200
    assert first.json()["data"]["status"] == "processing"
    second = complete(api, source_id)
    assert second.status_code == 200, second.text
    assert second.json()["data"]["id"] == source_id
    assert second.json()["data"]["status"] in ("processing", "completed")
    final = wait_source(api, source_id)
    assert final["status"] == "completed"
    third = complete(api, source_id)
    assert third.status_code == 200
    assert third.json()["data"] == final


def test_pdf_with_too_many_pages_for_visuals_ends_in_error(api: httpx.Client) -> None:
    final = upload_source(api, "long.pdf", PDF, pdf_bytes(100), prepare_visuals=True)
    assert final["status"] == "error"
    assert "50" in final["error_message"]
    # the same file as a research upload is fine
    assert upload_source(api, "long.pdf", PDF, pdf_bytes(100))["status"] == "completed"


def test_pdf_text_is_extracted(api: httpx.Client) -> None:
    final = upload_source(api, "deck.pdf", PDF, pdf_bytes(2))
    assert final["status"] == "completed"
    assert final["metadata"]["words"] == 12


def test_foreign_sources_are_not_found(api: httpx.Client, other_api: httpx.Client) -> None:
    data = reserve_ok(api, "notes.txt", "text/plain", TEXT.encode())
    source_id = data["source"]["id"]
    for response in (
        other_api.get(f"/v1/sources/{source_id}"),
        other_api.post(f"/v1/sources/{source_id}/complete-upload"),
        other_api.delete(f"/v1/sources/{source_id}"),
    ):
        assert_problem(response, 404)
    assert source_id not in {s["id"] for s in other_api.get("/v1/sources").json()["data"]}
    assert api.get(f"/v1/sources/{source_id}").status_code == 200


# --- deletion -------------------------------------------------------------------------------------------------


def test_delete_unused_source(api: httpx.Client) -> None:
    content = TEXT.encode()
    data = reserve_ok(api, "notes.txt", "text/plain", content)
    source_id = data["source"]["id"]
    response = api.delete(f"/v1/sources/{source_id}")
    assert response.status_code == 204
    assert response.content == b""
    assert_problem(api.get(f"/v1/sources/{source_id}"), 404)
    assert_problem(api.delete(f"/v1/sources/{source_id}"), 404)
    assert put_bytes(data["upload"], content).status_code in (403, 404)
    assert_problem(complete(api, source_id), 404)

    text = api.post("/v1/sources", json={"type": "text", "content": "Delete me after processing."})
    text_id = text.json()["data"]["id"]
    assert wait_source(api, text_id)["status"] == "completed"
    assert api.delete(f"/v1/sources/{text_id}").status_code == 204
    assert text_id not in {s["id"] for s in api.get("/v1/sources", params={"limit": 100}).json()["data"]}


def test_delete_source_in_use_is_refused(api: httpx.Client) -> None:
    used_by_short = api.post("/v1/sources", json={"type": "text", "content": "Tides rise twice a day."})
    used_by_episode = api.post("/v1/sources", json={"type": "text", "content": "Kelp grows fast."})
    short_source, episode_source = used_by_short.json()["data"]["id"], used_by_episode.json()["data"]["id"]
    short = api.post(
        "/v1/shorts",
        json={"prompt": "Why tides happen", "source_ids": [short_source]},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    assert short.status_code == 202, short.text

    host_id = api.get("/v1/hosts").json()["data"][0]["id"]
    podcast = api.post("/v1/podcasts", json={"title": "Source deletion checks", "host_ids": [host_id]})
    assert podcast.status_code == 201, podcast.text
    episode = api.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast.json()["data"]["id"],
            "prompt": "A one-minute note on how fast kelp grows.",
            "source_ids": [episode_source],
            "options": {"episode_length_minutes": 1},
        },
    )
    assert episode.status_code == 202, episode.text

    for source_id in (short_source, episode_source):
        problem = assert_problem(api.delete(f"/v1/sources/{source_id}"), 422)
        assert problem["detail"]
        assert api.get(f"/v1/sources/{source_id}").status_code == 200


# --- a 100 MiB upload -----------------------------------------------------------------------------------------


def test_largest_upload(api: httpx.Client, tmp_path: Path) -> None:
    size = 104_857_600
    path = tmp_path / "huge.txt"
    line = b"The tide comes in and the tide goes out again.\n"
    with path.open("wb") as handle:
        block = line * (1024 * 1024 // len(line) + 1)
        written = 0
        while written < size:
            piece = block[: size - written]
            handle.write(piece)
            written += len(piece)
    assert path.stat().st_size == size
    response = reserve(api, "huge.txt", "text/plain", size)
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    with path.open("rb") as handle:
        put = put_bytes(data["upload"], handle)
    assert put.status_code == 200, put.text
    assert put.request.headers["content-length"] == str(size)
    assert complete(api, data["source"]["id"]).status_code == 200
    final = wait_source(api, data["source"]["id"], timeout=30)
    assert final["status"] == "completed"
    assert final["metadata"]["size_bytes"] == size
