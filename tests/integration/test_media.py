"""Videos, Shorts and Voiceovers over real HTTP (spec 2.9, 3.1, 4.6): options, create rules, status
phases, downloads of real MP4 files, retries, idempotency and credits."""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests import media_child
from tests.conftest import OTHER_KEY, RunningSandbox, assert_problem, field_names, wait_for
from tests.helpers import image_bytes, pdf_bytes, reserve_ok, upload_source, wait_source
from tests.tls import SHARED_TLS

COLLECTIONS = ("videos", "shorts", "voiceovers")
OBJECTS = {"videos": "video", "shorts": "short", "voiceovers": "voiceover"}
JOB_FIELDS = {
    "id", "object", "title", "status", "phase", "error", "generation_id", "studio_url", "host_id",
    "style_id", "target_duration_seconds", "created_at", "updated_at",
}  # fmt: skip
STATUS_FIELDS = {
    "id",
    "object",
    "status",
    "phase",
    "error",
    "generation_id",
    "studio_url",
    "poll_after_seconds",
}
PNG = "image/png"

# --- helpers ------------------------------------------------------------------------------------------------


def key() -> str:
    return f"test-{uuid.uuid4()}"


def create(
    api: httpx.Client, collection: str, body: dict[str, Any], idem: str | None = None
) -> httpx.Response:
    return api.post(
        f"/v1/{collection}", json=body, headers={"Idempotency-Key": key() if idem is None else idem}
    )


def accepted(api: httpx.Client, collection: str, body: dict[str, Any]) -> dict[str, Any]:
    response = create(api, collection, body)
    assert response.status_code == 202, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def retry(api: httpx.Client, collection: str, media_id: str, idem: str | None = None) -> httpx.Response:
    return api.post(
        f"/v1/{collection}/{media_id}/retry", headers={"Idempotency-Key": key() if idem is None else idem}
    )


def status_of(api: httpx.Client, collection: str, media_id: str) -> dict[str, Any]:
    response = api.get(f"/v1/{collection}/{media_id}/status")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def wait_finished(
    api: httpx.Client,
    collection: str,
    media_id: str,
    timeout: float = 60.0,
    seen: list[tuple[str, str | None]] | None = None,
    interval: float = 0.1,
) -> dict[str, Any]:
    """Poll the status until the attempt ends; ``seen`` collects (status, phase) along the way."""

    def finished() -> dict[str, Any] | None:
        data = status_of(api, collection, media_id)
        if seen is not None and (not seen or seen[-1] != (data["status"], data["phase"])):
            seen.append((data["status"], data["phase"]))
        return data if data["status"] in ("completed", "failed") else None

    result: dict[str, Any] = wait_for(finished, timeout, interval=interval)
    return result


def delivery(api: httpx.Client, collection: str, media_id: str) -> dict[str, Any]:
    response = api.get(f"/v1/{collection}/{media_id}/download")
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["id"] == media_id
    assert data["object"] == OBJECTS[collection]
    result: dict[str, Any] = data["delivery"]
    return result


def wait_available(api: httpx.Client, collection: str, media_id: str) -> dict[str, Any]:
    def available() -> dict[str, Any] | None:
        found = delivery(api, collection, media_id)
        assert found["kind"] in ("preparing", "available"), found
        return found if found["kind"] == "available" else None

    result: dict[str, Any] = wait_for(available, 20, interval=0.1)
    return result


def probe_mp4(url: str) -> dict[str, Any]:
    """Download without the API key and decode: stream kinds, frame size and duration."""
    response = httpx.get(url, timeout=60, verify=SHARED_TLS)
    assert response.status_code == 200, response.text[:300]
    assert response.content[4:8] == b"ftyp"
    media = media_child.probe(response.content)  # PyAV, in a child process
    assert len(media.video) == 1 and len(media.audio) == 1, media.streams
    video = media.video[0]
    assert video.frames >= 1, video
    assert media.duration is not None
    return {"width": video.first_width, "height": video.first_height, "duration": media.duration}


def finished_download(api: httpx.Client, collection: str, media_id: str) -> dict[str, Any]:
    found = wait_available(api, collection, media_id)
    assert found["origin"] == "storage"
    assert "sk_sandbox" not in found["url"]
    return probe_mp4(found["url"])


def account(api: httpx.Client) -> dict[str, float]:
    credits: dict[str, float] = api.get("/v1/account").json()["data"]["credits"]
    return credits


def visual_source(api: httpx.Client, **extra: Any) -> str:
    source = upload_source(
        api, "slide.png", PNG, image_bytes("PNG", (160, 90)), prepare_visuals=True, **extra
    )
    assert source["status"] == "completed"
    assert source["metadata"]["visual_count"] == 1
    source_id: str = source["id"]
    return source_id


def make_host(api: httpx.Client, name: str) -> str:
    voice_id = api.get("/v1/voices").json()["data"][0]["id"]
    response = api.post(
        "/v1/hosts",
        json={"name": name, "backstory": "A presenter made for the media tests.", "voice_id": voice_id},
    )
    assert response.status_code == 201, response.text
    host_id: str = response.json()["data"]["id"]
    return host_id


def short_credits(seconds: float) -> float:
    return seconds / 60 * 30 + max(1, math.ceil(seconds / 30)) * 7 + max(1, math.ceil(seconds / 120)) * 20


# --- options ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_options(api: httpx.Client, collection: str) -> None:
    response = api.get(f"/v1/{collection}/options")
    assert response.status_code == 200
    data = response.json()["data"]
    hosts = {h["id"] for h in api.get("/v1/hosts", params={"limit": 100}).json()["data"]}
    assert data["default_host_id"] in hosts  # the organization has hosts: one is proposed
    assert isinstance(data["default_language"], str) and data["default_language"]
    if collection == "voiceovers":
        assert data["styles"] == []
        assert data["default_style_id"] is None
        assert data["default_duration_seconds"] is None
        assert data["default_orientation"] == "LANDSCAPE"
        assert data["supported_duration_seconds"] == [180, 300, 420, 600, 900, 1200, 1800]  # creator plan
        return
    expected = [300, 420, 600, 900, 1200] if collection == "videos" else [30, 60]
    assert data["supported_duration_seconds"] == expected
    assert data["default_duration_seconds"] in expected
    assert data["default_orientation"] == ("LANDSCAPE" if collection == "videos" else "PORTRAIT")
    assert data["styles"], data
    for style in data["styles"]:
        assert style["id"] and style["name"] and style["description"]
    assert data["default_style_id"] in {s["id"] for s in data["styles"]}


def test_options_need_a_key(sandbox: RunningSandbox) -> None:
    response = sandbox.client(None).get("/v1/videos/options")
    assert_problem(response, 401, "unauthorized")


# --- create: keys and validation ----------------------------------------------------------------------------


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_create_requires_an_idempotency_key(api: httpx.Client, collection: str) -> None:
    before = len(api.get(f"/v1/{collection}", params={"limit": 100}).json()["data"])
    body = (
        {"prompt": "A short about tides"}
        if collection != "voiceovers"
        else {"source_ids": [str(uuid.uuid4())]}
    )
    problem = assert_problem(api.post(f"/v1/{collection}", json=body), 400, "validation_error")
    assert field_names(problem) == ["Idempotency-Key"]
    for bad in ("has space", "x" * 256, ""):
        problem = assert_problem(create(api, collection, body, bad), 400, "validation_error")
        assert field_names(problem) == ["Idempotency-Key"]
    assert len(api.get(f"/v1/{collection}", params={"limit": 100}).json()["data"]) == before


TWO = [str(uuid.uuid4()) for _ in range(2)]
INVALID: list[tuple[str, dict[str, Any], set[str]]] = [
    ("videos", {"prompt": "   "}, {"prompt"}),
    ("videos", {"prompt": "x" * 20_001}, {"prompt"}),
    ("videos", {}, {"prompt"}),
    ("videos", {"prompt": 5}, {"prompt"}),
    ("videos", {"prompt": "Tides", "target_duration_seconds": 360}, {"target_duration_seconds"}),
    ("videos", {"prompt": "Tides", "target_duration_seconds": 30}, {"target_duration_seconds"}),
    ("videos", {"prompt": "Tides", "target_duration_seconds": "300"}, {"target_duration_seconds"}),
    ("videos", {"prompt": "Tides", "orientation": "DIAGONAL"}, {"orientation"}),
    ("videos", {"prompt": "Tides", "host_id": "abc", "host_ids": ["abc"]}, {"host_id", "host_ids"}),
    ("videos", {"prompt": "Tides", "host_ids": []}, {"host_ids"}),
    ("videos", {"prompt": "Tides", "host_ids": ["a1", "a2", "a3", "a4", "a5"]}, {"host_ids"}),
    ("videos", {"prompt": "Tides", "host_ids": ["a1", "a1"]}, {"host_ids", "host_ids.1"}),
    ("videos", {"prompt": "Tides", "host_ids": ["nosuchhost"]}, {"host_ids.0"}),
    ("videos", {"prompt": "Tides", "host_id": "nosuchhost"}, {"host_id"}),
    ("videos", {"prompt": "Tides", "source_ids": [str(uuid.uuid4()) for _ in range(101)]}, {"source_ids"}),
    ("videos", {"prompt": "Tides", "source_ids": [TWO[0], TWO[0]]}, {"source_ids", "source_ids.1"}),
    ("videos", {"prompt": "Tides", "source_ids": ["not-a-uuid"]}, {"source_ids.0"}),
    ("videos", {"prompt": "Tides", "source_ids": [TWO[1]]}, {"source_ids.0"}),
    ("videos", {"prompt": "Tides", "style_id": "neon"}, {"style_id"}),
    ("videos", {"prompt": "Tides", "colour": "blue"}, {"colour"}),
    ("videos", {"script": "[Alex] Hello there."}, {"style_id"}),
    ("videos", {"script": "[Alex] Hello.", "style_id": "explainer", "host_id": "abc"}, {"host_id"}),
    ("videos", {"script": "[Alex] Hello.", "style_id": "explainer", "host_ids": ["abc"]}, {"host_ids"}),
    ("videos", {"script": "[Alex] Hello.", "style_id": "explainer", "source_ids": TWO}, {"source_ids"}),
    ("videos", {"script": "[Alex] Hello.", "style_id": "neon"}, {"style_id"}),
    ("videos", {"script": " ", "style_id": "explainer"}, {"script"}),
    ("videos", {"script": "Narration without any speaker label.", "style_id": "explainer"}, {"script"}),
    ("shorts", {"script": "[MUSIC]\nNo speaker here either.", "style_id": "punchy"}, {"script"}),
    ("videos", {"script": "[Alex] Hello.", "prompt": "Tides", "style_id": "explainer"}, {"prompt", "script"}),
    ("shorts", {"prompt": ""}, {"prompt"}),
    ("shorts", {"prompt": "Tides", "target_duration_seconds": 300}, {"target_duration_seconds"}),
    ("shorts", {"prompt": "Tides", "target_duration_seconds": 45}, {"target_duration_seconds"}),
    ("shorts", {"prompt": "Tides", "style_id": "explainer"}, {"style_id"}),
    ("shorts", {"prompt": "Tides", "orientation": "portrait"}, {"orientation"}),
    ("shorts", {"prompt": "Tides", "background_music": "yes"}, {"background_music"}),
    ("shorts", {"prompt": "Tides", "host_ids": ["a1", "a2", "a3", "a4", "a5"]}, {"host_ids"}),
    ("voiceovers", {"source_ids": TWO, "prompt": "Tides"}, {"prompt"}),
    ("voiceovers", {"source_ids": TWO, "style_id": "explainer"}, {"style_id"}),
    ("voiceovers", {}, {"source_ids"}),
    ("voiceovers", {"source_ids": []}, {"source_ids"}),
    ("voiceovers", {"source_ids": [str(uuid.uuid4()) for _ in range(11)]}, {"source_ids"}),
    ("voiceovers", {"source_ids": [TWO[0], TWO[0]]}, {"source_ids", "source_ids.1"}),
    ("voiceovers", {"source_ids": TWO, "direction": "d" * 4001}, {"direction"}),
    ("voiceovers", {"source_ids": TWO, "visual_motion": "spin"}, {"visual_motion"}),
    ("voiceovers", {"source_ids": TWO, "target_duration_seconds": 240}, {"target_duration_seconds"}),
    ("voiceovers", {"source_ids": TWO, "captions_enabled": "yes"}, {"captions_enabled"}),
    ("voiceovers", {"source_ids": TWO, "orientation": "WIDE"}, {"orientation"}),
    ("voiceovers", {"source_ids": [TWO[0]]}, {"source_ids.0"}),
]


@pytest.mark.parametrize(("collection", "body", "fields"), INVALID)
def test_create_rules(api: httpx.Client, collection: str, body: dict[str, Any], fields: set[str]) -> None:
    problem = assert_problem(create(api, collection, body), 400, "validation_error")
    assert set(field_names(problem)) & fields, problem
    assert problem["recovery"]["action"] == "correct_input"


def test_unresolved_script_speakers(api: httpx.Client) -> None:
    script = "[Zebedee Quartermaine-Nobody]\nHello and welcome.\n\n[Ygritte Notahost]\nThanks for having me."
    problem = assert_problem(
        create(api, "videos", {"script": script, "style_id": "explainer"}), 422, "unprocessable_entity"
    )
    assert problem["reason"] == "unresolved_speakers"
    assert problem["speakers"] == ["Zebedee Quartermaine-Nobody", "Ygritte Notahost"]
    assert problem["recovery"]["action"] == "choose_characters"


# --- sources and media ----------------------------------------------------------------------------------------


def test_source_states_for_video_and_short(sandbox_factory: Callable[..., RunningSandbox]) -> None:
    running = sandbox_factory("--speed", "1", "--no-seed-media")
    api = running.client()
    text = api.post("/v1/sources", json={"type": "text", "content": "Tidal lagoons hold water back."})
    assert text.json()["data"]["status"] == "processing"
    text_id = text.json()["data"]["id"]
    for collection in ("shorts", "videos"):
        response = create(api, collection, {"prompt": "Tidal lagoons", "source_ids": [text_id]})
        assert response.status_code == 202, response.text
        assert response.json()["data"]["source_ids"] == [text_id]
    # it was still processing when both were accepted
    assert api.get(f"/v1/sources/{text_id}").json()["data"]["status"] == "processing"

    reserved = reserve_ok(api, "notes.txt", "text/plain", b"abc")
    problem = assert_problem(
        create(api, "shorts", {"prompt": "Tides", "source_ids": [reserved["source"]["id"]]}), 422
    )
    assert field_names(problem) == ["source_ids.0"]

    broken = api.post("/v1/sources", json={"type": "url", "url": "https://gone.invalid/x"}).json()["data"]
    assert wait_source(api, broken["id"])["status"] == "error"
    for collection in ("shorts", "videos"):
        body = {"prompt": "Tides", "source_ids": [text_id, broken["id"]]}
        problem = assert_problem(create(api, collection, body), 422)
        assert field_names(problem) == ["source_ids.1"]


def test_voiceover_source_rules(api: httpx.Client) -> None:
    visual = visual_source(api)
    plain = upload_source(api, "still.png", PNG, image_bytes("PNG"))  # no prepared visuals
    text = api.post("/v1/sources", json={"type": "text", "content": "Not a visual."}).json()["data"]
    assert wait_source(api, text["id"])["status"] == "completed"
    pending = reserve_ok(api, "later.png", PNG, image_bytes("PNG"), prepare_visuals=True)["source"]
    for bad in (text["id"], plain["id"], pending["id"]):
        problem = assert_problem(create(api, "voiceovers", {"source_ids": [visual, bad]}), 422)
        assert field_names(problem) == ["source_ids.1"], problem

    decks = [upload_source(api, "deck.pdf", "application/pdf", pdf_bytes(26), prepare_visuals=True)]
    decks.append(upload_source(api, "deck2.pdf", "application/pdf", pdf_bytes(25), prepare_visuals=True))
    assert [d["metadata"]["visual_count"] for d in decks] == [26, 25]
    problem = assert_problem(create(api, "voiceovers", {"source_ids": [d["id"] for d in decks]}), 422)
    assert "source_ids" in field_names(problem)
    assert "51" in problem["detail"]

    long = create(api, "voiceovers", {"source_ids": [visual], "target_duration_seconds": 2700})
    problem = assert_problem(long, 422)
    assert problem["recovery"]["action"] == "check_account"
    assert field_names(problem) == ["target_duration_seconds"]


# --- failure and retry ------------------------------------------------------------------------------------------


def test_failed_short_and_retry(api: httpx.Client) -> None:
    data = accepted(api, "shorts", {"prompt": "A short that breaks [sandbox:fail] on purpose"})
    assert "[sandbox:fail]" not in data["title"]
    failed = wait_finished(api, "shorts", data["id"])
    assert failed["status"] == "failed"
    assert failed["error"]
    assert failed["phase"] is None
    assert delivery(api, "shorts", data["id"]) == {"kind": "unavailable"}

    problem = assert_problem(api.post(f"/v1/shorts/{data['id']}/retry"), 400, "validation_error")
    assert field_names(problem) == ["Idempotency-Key"]
    assert_problem(retry(api, "shorts", str(uuid.uuid4())), 404)

    retry_key = key()
    again = retry(api, "shorts", data["id"], retry_key)
    assert again.status_code == 202, again.text
    body = again.json()["data"]
    assert body["id"] == data["id"]
    assert body["status"] == "generating"
    assert body["error"] is None
    assert body["generation_id"] and body["generation_id"] != data["generation_id"]
    assert body["attempt"] == data["attempt"] + 1
    assert again.headers["location"] == f"/v1/shorts/{data['id']}/status"
    replay = retry(api, "shorts", data["id"], retry_key)
    assert replay.status_code == 202
    assert replay.json()["data"]["generation_id"] == body["generation_id"]

    problem = assert_problem(retry(api, "shorts", data["id"]), 422)  # still generating
    assert problem["recovery"]["idempotency_key"] == "new"
    final = wait_finished(api, "shorts", data["id"])
    assert final["status"] == "completed", final
    assert final["generation_id"] == body["generation_id"]
    assert final["error"] is None
    finished_download(api, "shorts", data["id"])
    assert_problem(retry(api, "shorts", data["id"]), 422)  # completed
    listed = [m["id"] for m in api.get("/v1/shorts", params={"limit": 100}).json()["data"]]
    assert listed.count(data["id"]) == 1


# --- idempotency --------------------------------------------------------------------------------------------------


def test_idempotent_create(api: httpx.Client) -> None:
    idem = key()
    body = {"prompt": f"Idempotency check {uuid.uuid4()}", "target_duration_seconds": 30}
    first = create(api, "shorts", body, idem)
    assert first.status_code == 202
    second = create(api, "shorts", body, idem)
    assert second.status_code == 202
    assert second.json() == first.json()
    assert second.headers["idempotent-replayed"] == "true"
    assert second.headers["location"] == first.headers["location"]
    assert second.headers["x-request-id"] != first.headers["x-request-id"]
    listed = [m["id"] for m in api.get("/v1/shorts", params={"limit": 100}).json()["data"]]
    assert listed.count(first.json()["data"]["id"]) == 1

    conflict = assert_problem(create(api, "shorts", {**body, "target_duration_seconds": 60}, idem), 409)
    assert conflict["type"] == "conflict"
    assert conflict["recovery"]["idempotency_key"] == "new"


def test_recorded_rejection_replays(api: httpx.Client) -> None:
    broken = api.post("/v1/sources", json={"type": "url", "url": "https://down.invalid/"}).json()["data"]
    assert wait_source(api, broken["id"])["status"] == "error"
    idem = key()
    body = {"prompt": "A short on a broken source", "source_ids": [broken["id"]]}
    before = len(api.get("/v1/shorts", params={"limit": 100}).json()["data"])
    first = assert_problem(create(api, "shorts", body, idem), 422)
    assert first["recovery"]["idempotency_key"] == "new"
    replay = create(api, "shorts", body, idem)
    again = assert_problem(replay, 422)
    assert replay.headers.get("idempotent-replayed") == "true"
    assert again["detail"] == first["detail"]
    assert again["recovery"]["idempotency_key"] == "new"
    assert again["request_id"] != first["request_id"]
    assert len(api.get("/v1/shorts", params={"limit": 100}).json()["data"]) == before
    # corrected input under the same key is a conflict; under a new key it is accepted
    corrected = {"prompt": "A short on a broken source"}
    assert_problem(create(api, "shorts", corrected, idem), 409)
    fixed = create(api, "shorts", corrected)
    assert fixed.status_code == 202, fixed.text
    assert "idempotent-replayed" not in fixed.headers


# --- ownership -------------------------------------------------------------------------------------------------


def test_media_of_another_organization_is_not_found(api: httpx.Client, other_api: httpx.Client) -> None:
    item = api.get("/v1/shorts").json()["data"][0]
    for path in ("", "/status", "/download"):
        assert_problem(other_api.get(f"/v1/shorts/{item['id']}{path}"), 404)
    assert_problem(retry(other_api, "shorts", item["id"]), 404)
    assert item["id"] not in {m["id"] for m in other_api.get("/v1/shorts").json()["data"]}
    mine = visual_source(api)
    problem = assert_problem(create(other_api, "voiceovers", {"source_ids": [mine]}), 400)
    assert field_names(problem) == ["source_ids.0"]


# --- lifecycles ---------------------------------------------------------------------------------------------


def test_short_lifecycle_credits_and_download(sandbox_factory: Callable[..., RunningSandbox]) -> None:
    # A sandbox of its own: the worker's shared one also runs other files' work for Northwind (a
    # generated image of theirs settled during this test once), so its holds and charges would not
    # all be this short's.
    api = sandbox_factory("--speed", "50", "--no-seed-media", "--workers", "2").client(OTHER_KEY)
    start = account(api)
    assert start["balance"] + start["held"] == pytest.approx(start["total"])

    body = {"prompt": "Why do tides happen twice a day?", "target_duration_seconds": 30}
    response = create(api, "shorts", body)
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert set(data) >= JOB_FIELDS
    media_id = data["id"]
    uuid.UUID(media_id)
    assert data["object"] == "short"
    assert data["status"] == "generating"
    assert data["error"] is None
    assert data["generation_id"]
    assert data["target_duration_seconds"] == 30
    assert data["style_id"] == api.get("/v1/shorts/options").json()["data"]["default_style_id"]
    # With no host given, the organization's default narrator (as the options announce) speaks.
    assert data["host_id"] == api.get("/v1/shorts/options").json()["data"]["default_host_id"]
    assert response.headers["location"] == f"/v1/shorts/{media_id}/status"
    assert int(response.headers["retry-after"]) == 1  # 10 s at --speed 50, never below 1
    assert api.get(f"/v1/shorts/{media_id}").json()["data"]["id"] == media_id
    assert api.get(data["studio_url"]).status_code == 200

    held = account(api)
    assert held["held"] - start["held"] == pytest.approx(short_credits(30))
    assert held["balance"] == pytest.approx(start["balance"] - short_credits(30))
    assert held["total"] == pytest.approx(start["total"])

    polled = api.get(f"/v1/shorts/{media_id}/status")
    first = polled.json()["data"]
    assert set(first) >= STATUS_FIELDS
    assert first["status"] == "generating"  # work takes at least 26 s / speed
    assert int(polled.headers["retry-after"]) == 1
    assert first["poll_after_seconds"] > 0
    assert delivery(api, "shorts", media_id) == {"kind": "preparing", "reason": "rendition"}

    seen: list[tuple[str, str | None]] = []
    final = wait_finished(api, "shorts", media_id, seen=seen, interval=0.02)
    # right after completion the rendition is still being prepared (for 8 s / speed)
    early = api.get(f"/v1/shorts/{media_id}/download")
    assert early.json()["data"]["delivery"] == {"kind": "preparing", "reason": "rendition"}
    assert int(early.headers["retry-after"]) >= 1
    assert final["status"] == "completed" and final["phase"] is None and final["error"] is None
    assert final["generation_id"] == data["generation_id"]
    assert final["poll_after_seconds"] == 0
    phases = [phase for status, phase in seen if status == "generating"]
    assert {"narrating", "rendering"} & set(phases), seen
    assert len(set(phases)) >= 2, seen
    assert "retry-after" not in api.get(f"/v1/shorts/{media_id}/status").headers

    video = finished_download(api, "shorts", media_id)
    assert video["height"] > video["width"]  # omitted orientation means PORTRAIT for a short
    record = api.get(f"/v1/shorts/{media_id}").json()["data"]
    assert record["status"] == "completed"
    assert abs(video["duration"] - record["duration_seconds"]) < 1.0

    settled = account(api)
    assert settled["held"] == pytest.approx(start["held"])
    assert settled["total"] == pytest.approx(
        start["total"] - short_credits(record["duration_seconds"]), abs=0.05
    )


def test_video_prompt_mode_lifecycle(api: httpx.Client) -> None:
    data = accepted(api, "videos", {"prompt": "How tidal barrages work", "target_duration_seconds": 300})
    assert data["object"] == "video"
    assert data["target_duration_seconds"] == 300
    listed = api.get("/v1/videos").json()["data"]
    assert listed[0]["id"] == data["id"]
    final = wait_finished(api, "videos", data["id"])
    assert final["status"] == "completed", final
    video = finished_download(api, "videos", data["id"])
    assert video["width"] > video["height"]  # omitted orientation means landscape


def test_video_finished_script_mode(api: httpx.Client) -> None:
    suffix = uuid.uuid4().hex[:6]
    first, second = f"Marisol Tide{suffix}", f"Osgood Reef{suffix}"
    first_id, second_id = make_host(api, first), make_host(api, second)
    script = (
        f"[{first}]\nWelcome to a very short video about tides.\n\n"
        f"[{second}]\nTides come from the pull of the moon.\n\n"
        f"[{first}]\nThanks for watching."
    )
    data = accepted(api, "videos", {"script": script, "style_id": "minimal", "orientation": "SQUARE"})
    assert data["style_id"] == "minimal"
    assert data["title"] == "Welcome to a very short video about tides."
    assert data["host_id"] == first_id
    assert data["host_ids"] == [first_id, second_id]
    final = wait_finished(api, "videos", data["id"])
    assert final["status"] == "completed", final
    video = finished_download(api, "videos", data["id"])
    assert video["width"] == video["height"]


def test_voiceover_lifecycle(api: httpx.Client) -> None:
    sources = [visual_source(api), visual_source(api)]
    body = {
        "source_ids": sources,
        "direction": "Walk through both slides calmly.",
        "captions_enabled": True,
        "visual_motion": "dynamic",
        "orientation": "PORTRAIT",
    }
    data = accepted(api, "voiceovers", body)
    assert data["object"] == "voiceover"
    assert data["style_id"] is None
    assert data["target_duration_seconds"] is None
    final = wait_finished(api, "voiceovers", data["id"])
    assert final["status"] == "completed", final
    video = finished_download(api, "voiceovers", data["id"])
    assert video["height"] > video["width"]
    # a source used by a voiceover cannot be deleted
    assert_problem(api.delete(f"/v1/sources/{sources[0]}"), 422)


def test_retry_of_a_seeded_idle_short(sandbox_factory: Callable[..., RunningSandbox]) -> None:
    running = sandbox_factory("--speed", "50", "--workers", "2", "--no-seed-media")
    api = running.client()
    idle = [m for m in api.get("/v1/shorts", params={"limit": 100}).json()["data"] if m["status"] == "idle"]
    assert idle, "the seed has an idle short"
    item = idle[0]
    assert delivery(api, "shorts", item["id"]) == {"kind": "unavailable"}
    response = retry(api, "shorts", item["id"])
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert data["id"] == item["id"]
    assert data["generation_id"] and data["generation_id"] != item["generation_id"]
    assert data["attempt"] == item["attempt"] + 1
    final = wait_finished(api, "shorts", item["id"])
    assert final["status"] == "completed", final
    video = finished_download(api, "shorts", item["id"])
    assert video["height"] > video["width"]
