"""Episodes over real loopback HTTP: create, update, list, publish/schedule/unpublish, delete, cover images,
word timestamps, signed downloads and the public RSS feed of published episodes."""

from __future__ import annotations

import io
import itertools
import re
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from PIL import Image

from castdeck.api.models import (
    Episode,
    EpisodeAccepted,
    EpisodeAnalytics,
    EpisodeImageResult,
    PublishResult,
    WordTimestamps,
)
from tests import media_child
from tests.conftest import OTHER_KEY, RunningSandbox, assert_problem, field_names, start_sandbox, wait_for
from tests.tls import SHARED_TLS

EPISODE_FIELDS = (
    "id", "podcast_id", "status", "title", "description", "image_url", "audio_url", "video_url", "url",
    "host_ids", "source_ids", "published_at", "scheduled_at", "created_at", "updated_at", "generation",
)  # fmt: skip

SCRIPT = [
    ("a", "Welcome back to the harbour show, where the tide tells the story."),
    ("b", "Thanks for having me. Today we talk about lighthouses and the keepers who ran them."),
    ("a", "Every lighthouse had a keeper who trimmed the wick and wound the clockwork each night."),
    ("b", "And when the fog rolled in, the keeper sounded the horn until morning."),
]


# helpers -----------------------------------------------------------------------------------------------------
def parse_feed(content: bytes) -> ET.Element:
    """Parse the sandbox's own RSS feed (trusted local content)."""
    return ET.fromstring(content)  # noqa: S314 - the sandbox's own feed, not untrusted input


def parse_time(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert moment.tzinfo is not None, stamp
    return moment


def create_episode(client: httpx.Client, podcast_id: str, **fields: Any) -> dict[str, Any]:
    response = client.post("/v1/episodes", json={"podcast_id": podcast_id, **fields})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def get_episode(client: httpx.Client, episode_id: str) -> dict[str, Any]:
    response = client.get(f"/v1/episodes/{episode_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def wait_generated(client: httpx.Client, episode_id: str, timeout: float = 60) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        data = get_episode(client, episode_id)
        return data if data["generation"]["state"] != "generating" else None

    data: dict[str, Any] = wait_for(finished, timeout=timeout, interval=0.25)
    assert data["generation"]["state"] == "completed", data["generation"]
    return data


def image_bytes(fmt: str, size: tuple[int, int] = (48, 32)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (20, 120, 200)).save(buffer, format=fmt)
    return buffer.getvalue()


def normalise(text: str) -> list[str]:
    return [w for w in re.sub(r"[^\w' ]+", " ", text.lower()).split() if w.strip("'")]


def cue_times(body: str, separator: str) -> list[tuple[float, float]]:
    pattern = re.compile(
        rf"^(\d\d):(\d\d):(\d\d){separator}(\d\d\d) --> (\d\d):(\d\d):(\d\d){separator}(\d\d\d)$", re.M
    )
    cues = []
    for match in pattern.finditer(body):
        h1, m1, s1, f1, h2, m2, s2, f2 = (int(g) for g in match.groups())
        cues.append((h1 * 3600 + m1 * 60 + s1 + f1 / 1000, h2 * 3600 + m2 * 60 + s2 + f2 / 1000))
    return cues


def decoded_seconds(content: bytes) -> float:
    """Decode every audio frame (proves the file is real) and return the decoded duration (PyAV, in a
    child process: tests/media_child.py)."""
    return media_child.probe(content).audio[0].seconds


# fixtures ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSandbox]:
    """A sandbox of this module's own: its generations do not queue behind the seeded media renders."""
    running = start_sandbox(
        tmp_path_factory.mktemp("episodes"), "--speed", "50", "--workers", "2", "--no-seed-media"
    )
    yield running
    running.stop()


@pytest.fixture(scope="module")
def demo(sb: RunningSandbox) -> httpx.Client:
    return sb.client()


@pytest.fixture(scope="module")
def other(sb: RunningSandbox) -> httpx.Client:
    return sb.client(OTHER_KEY)


@pytest.fixture(scope="module")
def hosts(demo: httpx.Client) -> list[str]:
    ids = []
    for name, voice in (("Nora Keel", 1002), ("Tom Brine", 1003)):
        response = demo.post(
            "/v1/hosts",
            json={"name": name, "backstory": "Talks about the sea every week.", "voice_id": voice},
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["data"]["id"])
    return ids


@pytest.fixture(scope="module")
def podcast(demo: httpx.Client, hosts: list[str]) -> dict[str, Any]:
    response = demo.post("/v1/podcasts", json={"title": "Episode Tests", "host_ids": hosts})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


@pytest.fixture(scope="module")
def generating(demo: httpx.Client, podcast: dict[str, Any]) -> dict[str, Any]:
    """A 1-minute prompt generation with render: true; publish and delete are tried at once."""
    response = demo.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast["id"],
            "prompt": "A friendly one-minute chat about lighthouses and their keepers.",
            "options": {"episode_length_minutes": 1},
            "render": True,
        },
    )
    assert response.status_code == 202, response.text
    accepted = EpisodeAccepted.model_validate(response.json()["data"])
    path = f"/v1/episodes/{accepted.id}"
    return {
        "id": accepted.id,
        "accepted": response,
        "publish": demo.post(f"{path}/publish"),
        "delete": demo.delete(path),
        "state": get_episode(demo, accepted.id)["generation"]["state"],
    }


@pytest.fixture(scope="module")
def scripted(demo: httpx.Client, podcast: dict[str, Any], hosts: list[str]) -> dict[str, Any]:
    """A short scripted episode (known text), narrated without rendering."""
    by_label = {"a": hosts[0], "b": hosts[1]}
    segments = [{"host_id": by_label[label], "text": text} for label, text in SCRIPT]
    response = demo.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast["id"],
            "script": {"chapters": [{"title": "Lights", "segments": segments}]},
        },
    )
    assert response.status_code == 202, response.text
    return wait_generated(demo, response.json()["data"]["id"])


# create ------------------------------------------------------------------------------------------------------
def test_create_empty_episode(demo: httpx.Client, podcast: dict[str, Any], hosts: list[str]) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    response = demo.post("/v1/episodes", json={"podcast_id": podcast["id"]})
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert response.headers["location"] == f"/v1/episodes/{data['id']}"
    for name in EPISODE_FIELDS:
        assert name in data, name
    episode = Episode.model_validate(data)
    uuid.UUID(episode.id)
    assert episode.podcast_id == podcast["id"]
    assert episode.status == "draft"
    assert episode.generation is None and data["generation"] is None
    assert episode.title is None and episode.description is None and episode.image_url is None
    assert episode.audio_url is None and episode.video_url is None and episode.url is None
    assert episode.published_at is None and episode.scheduled_at is None
    assert episode.host_ids == hosts
    assert episode.source_ids == []
    assert parse_time(data["created_at"]) >= before
    assert get_episode(demo, episode.id) == data

    full = create_episode(
        demo,
        podcast["id"],
        title="t" * 255,
        description="d" * 2000,
        host_ids=[hosts[1]],
        image="https://example.org/cover.png",
    )
    assert full["title"] == "t" * 255 and full["description"] == "d" * 2000
    assert full["host_ids"] == [hosts[1]]
    assert full["image_url"] == "https://example.org/cover.png"
    for name in EPISODE_FIELDS:
        assert name in full, name


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": ""}, "title"),
        ({"title": "t" * 256}, "title"),
        ({"description": "d" * 2001}, "description"),
        ({"image": "not a uri"}, "image"),
        ({"image": "/relative/cover.png"}, "image"),
        ({"podcast_id": "not-a-uuid"}, "podcast_id"),
        ({"podcast_id": None}, "podcast_id"),
        ({"host_ids": ["ffffffff"]}, "host_ids.0"),
        ({"status": "published"}, "status"),
        ({"audio_url": "https://example.org/a.mp3"}, "audio_url"),
    ],
)
def test_create_rejections(
    demo: httpx.Client, podcast: dict[str, Any], change: dict[str, Any], field: str
) -> None:
    body = {k: v for k, v in {"podcast_id": podcast["id"], **change}.items() if v is not None}
    problem = assert_problem(demo.post("/v1/episodes", json=body), 400, "validation_error")
    assert field in field_names(problem), problem
    assert problem["recovery"]["action"] == "correct_input"


def test_create_for_unknown_or_foreign_podcast_is_404(demo: httpx.Client, other: httpx.Client) -> None:
    before = len(demo.get("/v1/episodes", params={"limit": 100}).json()["data"])
    assert_problem(demo.post("/v1/episodes", json={"podcast_id": str(uuid.uuid4())}), 404, "not_found")
    foreign = other.get("/v1/podcasts").json()["data"][0]["id"]
    assert_problem(demo.post("/v1/episodes", json={"podcast_id": foreign}), 404, "not_found")
    assert len(demo.get("/v1/episodes", params={"limit": 100}).json()["data"]) == before
    response = demo.post("/v1/episodes", content=b"podcast_id=1", headers={"content-type": "text/plain"})
    assert_problem(response, 415, "unsupported_media_type")


# update ------------------------------------------------------------------------------------------------------
def test_patch_episode(demo: httpx.Client, podcast: dict[str, Any], other: httpx.Client) -> None:
    episode = create_episode(demo, podcast["id"], title="Before", description="Some words.")
    path = f"/v1/episodes/{episode['id']}"
    response = demo.patch(path, json={"title": "After", "image": "https://example.org/new.jpg"})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["title"], data["description"], data["image_url"]) == (
        "After",
        "Some words.",
        "https://example.org/new.jpg",
    )
    for name in EPISODE_FIELDS:
        assert name in data, name
    assert parse_time(data["updated_at"]) >= parse_time(episode["updated_at"])

    response = demo.patch(
        path,
        content=b'{"description": null, "image": null}',
        headers={"content-type": "application/merge-patch+json"},
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["description"] is None and data["image_url"] is None and data["title"] == "After"
    assert get_episode(demo, episode["id"])["description"] is None

    for body, field in [
        ({"title": None}, "title"),
        ({"title": ""}, "title"),
        ({"title": "t" * 256}, "title"),
        ({"description": "d" * 2001}, "description"),
        ({"image": "nope"}, "image"),
        ({"status": "published"}, "status"),
        ({"podcast_id": str(uuid.uuid4())}, "podcast_id"),
    ]:
        problem = assert_problem(demo.patch(path, json=body), 400, "validation_error")
        assert field in field_names(problem), (body, problem)
    assert get_episode(demo, episode["id"])["title"] == "After"
    assert_problem(demo.patch(path, content=b'{"title": "x"}', headers={"content-type": "text/plain"}), 415)
    assert_problem(other.patch(path, json={"title": "Stolen"}), 404, "not_found")
    assert_problem(other.get(path), 404, "not_found")
    assert_problem(demo.patch(f"/v1/episodes/{uuid.uuid4()}", json={"title": "x"}), 404, "not_found")
    problem = assert_problem(demo.get("/v1/episodes/123"), 400, "validation_error")
    assert field_names(problem) == ["episode_id"]


# list --------------------------------------------------------------------------------------------------------
def test_list_filters_order_and_pagination(demo: httpx.Client, hosts: list[str]) -> None:
    show = demo.post("/v1/podcasts", json={"title": "List Tests", "host_ids": hosts}).json()["data"]
    created = [create_episode(demo, show["id"], title=f"Episode {i}")["id"] for i in range(5)]
    newest_first = created[::-1]

    everything = demo.get("/v1/episodes", params={"podcast_id": show["id"]})
    assert everything.status_code == 200
    assert [e["id"] for e in everything.json()["data"]] == newest_first
    assert "next" not in everything.links
    for raw in everything.json()["data"]:
        Episode.model_validate(raw)

    pages = []
    response = demo.get("/v1/episodes", params={"podcast_id": show["id"], "limit": 2})
    while True:
        assert response.status_code == 200
        pages.append([e["id"] for e in response.json()["data"]])
        following = response.links.get("next")
        if following is None:
            break
        assert following["url"].startswith("http") and "cursor=" in following["url"]
        response = demo.get(following["url"])
    assert pages == [newest_first[0:2], newest_first[2:4], newest_first[4:5]]

    drafts = demo.get("/v1/episodes", params={"podcast_id": show["id"], "status": "draft"}).json()["data"]
    assert [e["id"] for e in drafts] == newest_first
    assert (
        demo.get("/v1/episodes", params={"podcast_id": show["id"], "status": "published"}).json()["data"]
        == []
    )
    published = demo.get("/v1/episodes", params={"status": "published", "limit": 100}).json()["data"]
    assert published and all(e["status"] == "published" for e in published)
    whole = demo.get("/v1/episodes", params={"limit": 100}).json()["data"]
    assert any(e["podcast_id"] != show["id"] for e in whole)
    stamps = [parse_time(e["created_at"]) for e in whole]
    assert stamps[: len(created)] == sorted(stamps[: len(created)], reverse=True)

    rejected: list[tuple[dict[str, str | int], str]] = [
        ({"podcast_id": "abc"}, "podcast_id"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"cursor": "!!!"}, "cursor"),
    ]
    for params, field in rejected:
        problem = assert_problem(demo.get("/v1/episodes", params=params), 400, "validation_error")
        assert field_names(problem) == [field], problem
    host_cursor = demo.get("/v1/hosts", params={"limit": 1}).links["next"]["url"].split("cursor=")[1]
    problem = assert_problem(
        demo.get("/v1/episodes", params={"cursor": host_cursor}), 400, "validation_error"
    )
    assert field_names(problem) == ["cursor"]
    assert demo.get("/v1/episodes", params={"podcast_id": str(uuid.uuid4())}).json()["data"] == []


# publish, unpublish and delete --------------------------------------------------------------------------------
def test_publish_of_an_unrendered_draft_and_unpublish_of_a_draft(
    demo: httpx.Client, podcast: dict[str, Any], scripted: dict[str, Any]
) -> None:
    empty = create_episode(demo, podcast["id"])
    for episode in (empty, scripted):  # never rendered: no audio at all, or narration without a render
        problem = assert_problem(
            demo.post(f"/v1/episodes/{episode['id']}/publish"), 422, "unprocessable_entity"
        )
        assert "poll_after_seconds" not in (problem.get("recovery") or {}), problem
        problem = assert_problem(
            demo.post(f"/v1/episodes/{episode['id']}/unpublish"), 422, "unprocessable_entity"
        )
        assert get_episode(demo, episode["id"])["status"] == "draft"
    problem = assert_problem(
        demo.post(f"/v1/episodes/{empty['id']}/publish", json={"scheduled_time": "2099-01-01T00:00:00Z"}), 422
    )
    assert "poll_after_seconds" not in (problem.get("recovery") or {})


def test_publish_and_delete_while_generating(demo: httpx.Client, generating: dict[str, Any]) -> None:
    accepted = generating["accepted"]
    assert accepted.headers["location"] == f"/v1/episodes/{generating['id']}"
    assert int(accepted.headers["retry-after"]) >= 1
    ack = accepted.json()["data"]
    assert ack["status"] == "generating"
    assert generating["state"] == "generating"
    problem = assert_problem(generating["publish"], 422, "unprocessable_entity")
    assert problem["recovery"]["poll_after_seconds"] >= 0
    problem = assert_problem(generating["delete"], 422, "unprocessable_entity")
    assert get_episode(demo, generating["id"])["id"] == generating["id"]


def test_publish_lifecycle(
    sb: RunningSandbox, demo: httpx.Client, podcast: dict[str, Any], generating: dict[str, Any]
) -> None:
    episode = wait_generated(demo, generating["id"])
    path = f"/v1/episodes/{episode['id']}"
    assert episode["status"] == "draft" and episode["audio_url"] and episode["video_url"]
    assert episode["url"] is None and episode["published_at"] is None

    # now
    response = demo.post(f"{path}/publish")
    assert response.status_code == 200, response.text
    result = PublishResult.model_validate(response.json()["data"])
    assert (result.id, result.status) == (episode["id"], "published")
    assert response.json()["data"].get("scheduled_time") is None
    data = get_episode(demo, episode["id"])
    assert data["status"] == "published" and data["scheduled_at"] is None
    assert abs((parse_time(data["published_at"]) - sb.now()).total_seconds()) < 30
    assert data["url"] and data["url"].startswith("http")
    problem = assert_problem(demo.post(f"{path}/publish"), 422, "unprocessable_entity")
    assert "poll_after_seconds" not in (problem.get("recovery") or {})
    analytics = EpisodeAnalytics.model_validate(demo.get(f"{path}/analytics").json()["data"])
    downloads = analytics.downloads
    assert 0 <= downloads.first_7_days <= downloads.first_30_days <= downloads.total

    # the public pages and the RSS feed carry it, with an enclosure that downloads a real MP3
    anonymous = sb.client(None)
    assert anonymous.get(data["url"]).status_code == 200
    assert data["title"] in anonymous.get(podcast["url"]).text
    feed = anonymous.get(podcast["rss_feed_url"])
    assert feed.status_code == 200
    items = parse_feed(feed.content).findall("channel/item")
    item = next(i for i in items if i.findtext("guid") == episode["id"])
    assert item.findtext("title") == data["title"]
    assert item.findtext("pubDate")
    enclosure = item.find("enclosure")
    assert enclosure is not None and enclosure.get("type") == "audio/mpeg"
    audio = anonymous.get(enclosure.get("url", ""))
    assert audio.status_code == 200
    assert int(enclosure.get("length", "0")) == len(audio.content)
    assert decoded_seconds(audio.content) == pytest.approx(data["duration"], abs=1.0)

    # back to draft
    response = demo.post(f"{path}/unpublish")
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["status"] == "draft" and data["published_at"] is None and data["url"] is None
    assert anonymous.get(f"{podcast['url']}/episodes/{episode['id']}").status_code == 404
    feed = anonymous.get(podcast["rss_feed_url"])
    assert episode["id"] not in [i.findtext("guid") for i in parse_feed(feed.content).findall("channel/item")]

    # scheduling: aware future time (any offset) is echoed as ISO 8601 of the same instant
    when = (
        (datetime.now(UTC) + timedelta(hours=3))
        .replace(microsecond=0)
        .astimezone(timezone(timedelta(hours=2)))
    )
    response = demo.post(f"{path}/publish", json={"scheduled_time": when.isoformat()})
    assert response.status_code == 200, response.text
    result = PublishResult.model_validate(response.json()["data"])
    assert result.status == "scheduled"
    assert result.scheduled_time is not None and parse_time(result.scheduled_time) == when
    data = get_episode(demo, episode["id"])
    assert data["status"] == "scheduled" and parse_time(data["scheduled_at"]) == when
    assert data["published_at"] is None and data["url"] is None
    scheduled = demo.get("/v1/episodes", params={"status": "scheduled", "podcast_id": podcast["id"]})
    assert [e["id"] for e in scheduled.json()["data"]] == [episode["id"]]
    response = demo.post(f"{path}/unpublish")
    assert response.status_code == 200 and response.json()["data"]["status"] == "draft"
    assert response.json()["data"]["scheduled_at"] is None

    for value in ("2099-01-01T10:00:00", (datetime.now(UTC) - timedelta(hours=1)).isoformat(), "tomorrow", 5):
        problem = assert_problem(
            demo.post(f"{path}/publish", json={"scheduled_time": value}), 400, "validation_error"
        )
        assert field_names(problem) == ["scheduled_time"], (value, problem)
    assert get_episode(demo, episode["id"])["status"] == "draft"
    problem = assert_problem(demo.post(f"{path}/publish", json={"when": "now"}), 400, "validation_error")
    assert field_names(problem) == ["when"]

    # a scheduled episode whose time passes is published (the sandbox's time is moved past it)
    soon = sb.now() + timedelta(seconds=2)
    response = demo.post(f"{path}/publish", json={"scheduled_time": soon.isoformat()})
    assert response.json()["data"]["status"] == "scheduled"
    assert get_episode(demo, episode["id"])["status"] == "scheduled"
    assert sb.advance(2) >= soon
    data = get_episode(demo, episode["id"])
    assert data["status"] == "published"
    assert abs((parse_time(data["published_at"]) - soon).total_seconds()) < 1
    assert data["scheduled_at"] is None and data["url"]
    published = demo.get("/v1/episodes", params={"status": "published", "podcast_id": podcast["id"]})
    assert episode["id"] in [e["id"] for e in published.json()["data"]]


def test_scheduled_episode_is_published_in_lists_too(
    sb: RunningSandbox, demo: httpx.Client, podcast: dict[str, Any], hosts: list[str]
) -> None:
    """The time passing is seen through the list (without retrieving the episode itself)."""
    segments = [{"host_id": hosts[0], "text": "A very short scheduled note about the tide."}]
    accepted = demo.post(
        "/v1/episodes/generate",
        json={"podcast_id": podcast["id"], "script": {"chapters": [{"segments": segments}]}, "render": True},
    )
    assert accepted.status_code == 202, accepted.text
    episode = wait_generated(demo, accepted.json()["data"]["id"])
    soon = sb.now() + timedelta(seconds=1)
    response = demo.post(f"/v1/episodes/{episode['id']}/publish", json={"scheduled_time": soon.isoformat()})
    assert response.json()["data"]["status"] == "scheduled"
    sb.advance(1)
    listed = demo.get("/v1/episodes", params={"status": "published", "podcast_id": podcast["id"]}).json()[
        "data"
    ]
    assert episode["id"] in [e["id"] for e in listed]
    scheduled = demo.get("/v1/episodes", params={"status": "scheduled", "podcast_id": podcast["id"]}).json()
    assert episode["id"] not in [e["id"] for e in scheduled["data"]]


def test_delete_episode(demo: httpx.Client, podcast: dict[str, Any], other: httpx.Client) -> None:
    episode = create_episode(demo, podcast["id"])
    path = f"/v1/episodes/{episode['id']}"
    count = demo.get(f"/v1/podcasts/{podcast['id']}").json()["data"]["episode_count"]
    assert_problem(other.delete(path), 404, "not_found")
    response = demo.delete(path)
    assert response.status_code == 204 and response.content == b""
    assert_problem(demo.get(path), 404, "not_found")
    assert_problem(demo.delete(path), 404, "not_found")
    assert_problem(demo.post(f"{path}/publish"), 404, "not_found")
    assert demo.get(f"/v1/podcasts/{podcast['id']}").json()["data"]["episode_count"] == count - 1
    assert episode["id"] not in [
        e["id"] for e in demo.get("/v1/episodes", params={"limit": 100}).json()["data"]
    ]


# cover image -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")]
)
def test_episode_image_upload(
    sb: RunningSandbox, demo: httpx.Client, podcast: dict[str, Any], fmt: str, mime: str
) -> None:
    episode = create_episode(demo, podcast["id"], image="https://example.org/old.png")
    raw = image_bytes(fmt)
    response = demo.put(f"/v1/episodes/{episode['id']}/image", content=raw, headers={"content-type": mime})
    assert response.status_code == 200, response.text
    result = EpisodeImageResult.model_validate(response.json()["data"])
    assert result.id == episode["id"] and result.image_url
    download = sb.client(None).get(result.image_url)
    assert download.status_code == 200
    assert download.content == raw
    assert download.headers["content-type"] == mime
    assert Image.open(io.BytesIO(download.content)).format == fmt
    assert get_episode(demo, episode["id"])["image_url"] == result.image_url
    # a second upload replaces the first
    again = image_bytes(fmt, (16, 16))
    response = demo.put(f"/v1/episodes/{episode['id']}/image", content=again, headers={"content-type": mime})
    assert sb.client(None).get(response.json()["data"]["image_url"]).content == again


def test_episode_image_rejections(demo: httpx.Client, podcast: dict[str, Any], other: httpx.Client) -> None:
    episode = create_episode(demo, podcast["id"])
    path = f"/v1/episodes/{episode['id']}/image"
    png = image_bytes("PNG")
    assert_problem(
        demo.put(path, content=png, headers={"content-type": "image/gif"}), 415, "unsupported_media_type"
    )
    assert_problem(demo.put(path, content=png, headers={"content-type": "application/json"}), 415)
    problem = assert_problem(demo.put(path, content=png, headers={"content-type": "image/jpeg"}), 400)
    assert field_names(problem) == ["image"]
    problem = assert_problem(
        demo.put(path, content=b"plain text", headers={"content-type": "image/png"}), 400
    )
    assert field_names(problem) == ["image"]
    problem = assert_problem(demo.put(path, content=b"", headers={"content-type": "image/png"}), 400)
    assert field_names(problem) == ["image"]
    huge = png + b"\0" * (10 * 1024 * 1024 + 1 - len(png))
    problem = assert_problem(demo.put(path, content=huge, headers={"content-type": "image/png"}), 400)
    assert field_names(problem) == ["image"]
    exactly = png + b"\0" * (10 * 1024 * 1024 - len(png))
    assert demo.put(path, content=exactly, headers={"content-type": "image/png"}).status_code == 200
    assert_problem(other.put(path, content=png, headers={"content-type": "image/png"}), 404, "not_found")
    assert_problem(
        demo.put(f"/v1/episodes/{uuid.uuid4()}/image", content=png, headers={"content-type": "image/png"}),
        404,
    )


def test_image_upload_during_generation_keeps_the_generation(
    demo: httpx.Client, podcast: dict[str, Any], hosts: list[str]
) -> None:
    """A slow cover upload that spans the end of a generation must not undo the generation's result."""
    segments = [{"host_id": hosts[0], "text": "A quick note about harbour lights."}]
    accepted = demo.post(
        "/v1/episodes/generate",
        json={"podcast_id": podcast["id"], "script": {"chapters": [{"segments": segments}]}},
    )
    assert accepted.status_code == 202, accepted.text
    episode_id = accepted.json()["data"]["id"]
    png = image_bytes("PNG", (64, 64))

    def slowly() -> Any:
        yield png[:64]
        deadline = time.monotonic() + 20
        while (
            get_episode(demo, episode_id)["generation"]["state"] == "generating"
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        yield png[64:]

    with httpx.Client(
        base_url=str(demo.base_url), headers=dict(demo.headers), timeout=30, verify=SHARED_TLS
    ) as uploader:
        response = uploader.put(
            f"/v1/episodes/{episode_id}/image", content=slowly(), headers={"content-type": "image/png"}
        )
    assert response.status_code == 200, response.text
    data = get_episode(demo, episode_id)
    assert data["generation"]["state"] == "completed", data["generation"]
    assert data["audio_url"] and data["image_url"] == response.json()["data"]["image_url"]


# word timestamps, audio and signed downloads ------------------------------------------------------------------
def test_timestamps_before_audio_are_404(demo: httpx.Client, podcast: dict[str, Any]) -> None:
    episode = create_episode(demo, podcast["id"])
    for fmt in ("json", "srt", "vtt"):
        assert_problem(
            demo.get(f"/v1/episodes/{episode['id']}/timestamps", params={"format": fmt}), 404, "not_found"
        )


def test_word_timestamps(
    demo: httpx.Client, scripted: dict[str, Any], hosts: list[str], other: httpx.Client
) -> None:
    path = f"/v1/episodes/{scripted['id']}/timestamps"
    response = demo.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert demo.get(path, params={"format": "json"}).json() == response.json()
    raw = response.json()["data"]
    timestamps = WordTimestamps.model_validate(raw)
    assert timestamps.episode_id == scripted["id"]
    host_names = {h: demo.get(f"/v1/hosts/{h}").json()["data"]["name"] for h in hosts}
    assert [s.model_dump() for s in timestamps.speakers] == [
        {"host_id": h, "name": host_names[h]} for h in hosts
    ]
    words = timestamps.words
    assert words
    previous_end = 0.0
    for word in words:
        assert 0 <= word.start < word.end, word
        assert word.start >= previous_end - 0.001, word
        previous_end = word.end
        assert word.speaker is not None and 0 <= word.speaker < len(timestamps.speakers)
        assert isinstance(raw["words"][0]["speaker"], int)
    # the words are the script's words, each said by the host of its segment
    expected = [(label, w) for label, text in SCRIPT for w in normalise(text)]
    said = [(word.speaker, w) for word in words for w in normalise(word.text)]
    assert [w for _, w in said] == [w for _, w in expected]
    index = {"a": 0, "b": 1}
    assert [s for s, _ in said] == [index[label] for label, _ in expected]

    srt = demo.get(path, params={"format": "srt"})
    assert srt.status_code == 200 and srt.headers["content-type"].startswith("application/x-subrip")
    blocks = [b for b in srt.text.strip().split("\n\n") if b.strip()]
    assert [b.splitlines()[0] for b in blocks] == [str(i) for i in range(1, len(blocks) + 1)]
    srt_cues = cue_times(srt.text, ",")
    assert len(srt_cues) == len(blocks)
    vtt = demo.get(path, params={"format": "VTT"})
    assert vtt.status_code == 200 and vtt.headers["content-type"].startswith("text/vtt")
    assert vtt.text.startswith("WEBVTT\n")
    vtt_cues = cue_times(vtt.text, r"\.")
    assert vtt_cues == srt_cues
    assert vtt_cues[0][0] == pytest.approx(words[0].start, abs=0.001)
    assert vtt_cues[-1][1] == pytest.approx(words[-1].end, abs=0.001)
    for (start, end), (next_start, _) in itertools.pairwise(vtt_cues):
        assert start < end <= next_start + 0.001
    cue_words = [
        w for line in re.split(r"\n\n", vtt.text)[1:] for w in normalise(" ".join(line.splitlines()[1:]))
    ]
    names = {w for n in host_names.values() for w in normalise(n)}
    assert [w for w in cue_words if w not in names] == [w for _, w in expected if w not in names]

    for bad in ("xml", "txt", ""):
        problem = assert_problem(demo.get(path, params={"format": bad}), 400, "validation_error")
        assert field_names(problem) == ["format"]
    assert_problem(other.get(path), 404, "not_found")

    # the audio is a real MP3 as long as the narration the words describe
    audio = httpx.get(scripted["audio_url"], timeout=30, verify=SHARED_TLS)
    assert audio.status_code == 200 and audio.headers["content-type"] == "audio/mpeg"
    seconds = decoded_seconds(audio.content)
    assert seconds == pytest.approx(words[-1].end, abs=1.0)
    assert scripted["video_url"] is None


def test_signed_download_addresses(demo: httpx.Client, scripted: dict[str, Any]) -> None:
    url = get_episode(demo, scripted["id"])["audio_url"]
    assert "signature=" in url and "expires=" in url
    assert get_episode(demo, scripted["id"])["audio_url"] == url  # stable between reads
    good = httpx.get(url, timeout=30, verify=SHARED_TLS)
    assert good.status_code == 200 and len(good.content) > 1000
    assert_problem(
        httpx.get(url, headers={"Authorization": "Bearer sk_sandbox_demo"}, timeout=30, verify=SHARED_TLS),
        400,
    )
    assert_problem(demo.get(url), 400)

    signature = re.search(r"signature=([0-9a-f]+)", url)
    expires = re.search(r"expires=(\d+)", url)
    assert signature and expires
    flipped = "0" if signature.group(1)[0] != "0" else "1"
    for tampered in (
        url.replace(signature.group(0), f"signature={flipped}{signature.group(1)[1:]}"),
        url.replace(expires.group(0), f"expires={int(expires.group(1)) + 3600}"),
        url.replace(expires.group(0), "expires=1"),
        url.split("?")[0],
        url.replace(f"/files/episodes/{scripted['id']}/", f"/files/episodes/{uuid.uuid4()}/"),
    ):
        assert_problem(httpx.get(tampered, timeout=30, verify=SHARED_TLS), 403, "forbidden")
