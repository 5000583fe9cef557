"""Account, podcasts (with public show pages and RSS), hosts, voices, analytics and the seeded demo content,
over real loopback HTTP against the sandbox."""

from __future__ import annotations

import os
import re
import uuid
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from castdeck.api.models import (
    Account,
    EpisodeAnalytics,
    Host,
    MediaJob,
    Podcast,
    PodcastAnalytics,
    Source,
    Voice,
)
from tests import media_child
from tests.conftest import FREE_KEY, RunningSandbox, assert_problem, field_names, wait_for

HEX8 = re.compile(r"^[0-9a-f]{8}$")
BACKSTORY = "A retired lighthouse keeper who now tells stories about the sea."


# helpers -----------------------------------------------------------------------------------------------------
def all_pages(client: httpx.Client, path: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a list, following ``Link: rel="next"`` until the last page (which has none)."""
    items: list[dict[str, Any]] = []
    response = client.get(path, params=params)
    for _ in range(200):
        assert response.status_code == 200, response.text
        items.extend(response.json()["data"])
        following = response.links.get("next")
        if following is None:
            return items
        response = client.get(following["url"])
    raise AssertionError("pagination did not end")


def make_host(api: httpx.Client, **fields: Any) -> dict[str, Any]:
    body = {"name": "Test Host", "backstory": BACKSTORY, "voice_id": 1001, **fields}
    response = api.post("/v1/hosts", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def make_podcast(api: httpx.Client, host_ids: list[str], **fields: Any) -> dict[str, Any]:
    response = api.post("/v1/podcasts", json={"title": "Test Show", "host_ids": host_ids, **fields})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def parse_feed(content: bytes) -> ET.Element:
    """Parse the sandbox's own RSS feed (trusted local content)."""
    return ET.fromstring(content)  # noqa: S314 - the sandbox's own feed, not untrusted input


def parse_time(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert moment.tzinfo is not None, stamp
    return moment


def process_start(pid: int) -> datetime:
    """When a process started (Linux /proc): everything the sandbox seeded was created before."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    boot = next(
        int(line.split()[1])
        for line in Path("/proc/stat").read_text().splitlines()
        if line.startswith("btime")
    )
    return datetime.fromtimestamp(boot + int(fields[19]) / os.sysconf("SC_CLK_TCK"), UTC)


@pytest.fixture(scope="module")
def demo(sandbox: RunningSandbox) -> httpx.Client:
    return sandbox.client()


@pytest.fixture(scope="module")
def host_id(demo: httpx.Client) -> str:
    return str(make_host(demo, name="Catalog Host")["id"])


# account -----------------------------------------------------------------------------------------------------
def test_account_reports_organization_plan_and_balance(api: httpx.Client, other_api: httpx.Client) -> None:
    response = api.get("/v1/account")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    data = response.json()["data"]
    account = Account.model_validate(data)
    assert account.organization_id
    assert data["organization_name"] == "Demo Studio"
    assert account.plan == "creator"
    credits = data["credits"]
    assert isinstance(credits["balance"], int | float)
    assert 0 < account.credits.balance <= 50_000
    assert credits["balance"] == pytest.approx(credits["total"] - credits["held"], abs=0.02)

    other = Account.model_validate(other_api.get("/v1/account").json()["data"])
    assert other.organization_id != account.organization_id
    assert other.plan == "creator"
    assert 0 < other.credits.balance <= 5_000


def test_account_of_free_plan_and_missing_key_are_refused(sandbox: RunningSandbox) -> None:
    body = assert_problem(sandbox.client(FREE_KEY).get("/v1/account"), 403, "forbidden")
    assert body["recovery"]["action"] == "check_account"
    response = sandbox.client(None).get("/v1/account")
    assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].lower().startswith("bearer")


# podcasts ----------------------------------------------------------------------------------------------------
def test_podcast_create_defaults_and_shape(demo: httpx.Client, host_id: str) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    response = demo.post(
        "/v1/podcasts",
        # not a seeded show's title: tests of the seeded "Harbour Lights" look it up by its title
        json={"title": "Harbour Lanterns", "host_ids": [host_id], "description": "Stories & tides."},
    )
    assert response.status_code == 201, response.text
    assert response.headers["location"].endswith(response.json()["data"]["id"])
    data = response.json()["data"]
    podcast = Podcast.model_validate(data)
    for name in Podcast.model_fields:
        assert name in data, name
    uuid.UUID(podcast.id)
    assert podcast.title == "Harbour Lanterns"
    assert podcast.description == "<p>Stories &amp; tides.</p>"
    assert podcast.episode_order == "serial"
    assert podcast.languages == ["en"]
    assert podcast.visibility == "public"
    assert podcast.host_ids == [host_id]
    assert podcast.episode_count == 0
    assert podcast.image_url is None
    assert podcast.url and podcast.url.startswith("http")
    assert podcast.rss_feed_url and podcast.rss_feed_url.startswith("http")
    assert parse_time(data["created_at"]) >= before
    assert data["created_at"] == data["updated_at"]

    fetched = demo.get(f"/v1/podcasts/{podcast.id}")
    assert fetched.status_code == 200
    assert fetched.json()["data"] == data
    assert podcast.id in [p["id"] for p in all_pages(demo, "/v1/podcasts", limit=100)]


def test_podcast_html_description_kept_and_private_has_no_public_urls(
    demo: httpx.Client, host_id: str
) -> None:
    markup = "<p>Deep <strong>water</strong></p><ul><li>one</li></ul>"
    data = make_podcast(
        demo,
        [host_id],
        description=markup,
        visibility="private",
        episode_order="episodic",
        language="FR",
    )
    assert data["description"] == markup
    assert data["visibility"] == "private"
    assert data["episode_order"] == "episodic"
    assert data["languages"] == ["fr"]
    assert data["url"] is None
    assert data["rss_feed_url"] is None
    paragraphs = make_podcast(demo, [host_id], description="First line.\n\nSecond line.")
    assert paragraphs["description"] == "<p>First line.</p><p>Second line.</p>"
    comparison = make_podcast(demo, [host_id], description="When a < b and c > d, the harbour floods.")
    assert comparison["description"] == "<p>When a &lt; b and c &gt; d, the harbour floods.</p>"


def test_podcast_episode_count_counts_its_episodes(demo: httpx.Client, host_id: str) -> None:
    first = make_podcast(demo, [host_id])
    second = make_podcast(demo, [host_id])
    for _ in range(3):
        assert demo.post("/v1/episodes", json={"podcast_id": first["id"]}).status_code == 201
    assert demo.post("/v1/episodes", json={"podcast_id": second["id"]}).status_code == 201
    assert demo.get(f"/v1/podcasts/{first['id']}").json()["data"]["episode_count"] == 3
    assert demo.get(f"/v1/podcasts/{second['id']}").json()["data"]["episode_count"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": "x" * 101}, "title"),
        ({"title": ""}, "title"),
        ({"title": None}, "title"),
        ({"host_ids": []}, "host_ids"),
        ({"host_ids": "abc"}, "host_ids"),
        ({"host_ids": ["00000000"]}, "host_ids.0"),
        ({"language": "english"}, "language"),
        ({"language": "e"}, "language"),
        ({"language": "e1"}, "language"),
        ({"episode_order": "random"}, "episode_order"),
        ({"episode_order": "SERIAL"}, "episode_order"),
        ({"visibility": "secret"}, "visibility"),
        ({"visibility": "unlisted"}, "visibility"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_podcast_create_rejections(
    demo: httpx.Client, host_id: str, change: dict[str, Any], field: str
) -> None:
    body: dict[str, Any] = {"title": "Valid", "host_ids": [host_id], **change}
    if change.get("title") is None and "title" in change:
        del body["title"]
    problem = assert_problem(demo.post("/v1/podcasts", json=body), 400, "validation_error")
    assert field in field_names(problem), problem
    assert problem["recovery"]["action"] == "correct_input"


def test_podcast_create_edges(demo: httpx.Client, host_id: str, other_api: httpx.Client) -> None:
    assert make_podcast(demo, [host_id], title="x" * 100)["title"] == "x" * 100
    assert make_podcast(demo, [host_id], language="deu")["languages"] == ["deu"]
    other_host = other_api.get("/v1/hosts").json()["data"][0]["id"]
    problem = assert_problem(
        demo.post("/v1/podcasts", json={"title": "T", "host_ids": [host_id, other_host]}),
        400,
        "validation_error",
    )
    assert field_names(problem) == ["host_ids.1"]
    problem = assert_problem(demo.post("/v1/podcasts", json={"title": "T"}), 400, "validation_error")
    assert field_names(problem) == ["host_ids"]
    response = demo.post(
        "/v1/podcasts", content=b'{"title": "T"', headers={"content-type": "application/json"}
    )
    assert_problem(response, 400)
    response = demo.post("/v1/podcasts", content=b"title=T", headers={"content-type": "text/plain"})
    assert_problem(response, 415, "unsupported_media_type")


def test_podcast_patch(demo: httpx.Client, host_id: str) -> None:
    second_host = make_host(demo, name="Second")["id"]
    podcast = make_podcast(demo, [host_id], description="Before.")
    path = f"/v1/podcasts/{podcast['id']}"

    response = demo.patch(path, json={"visibility": "unlisted"})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["visibility"] == "unlisted"
    assert data["url"] and data["rss_feed_url"]
    assert data["title"] == podcast["title"] and data["description"] == "<p>Before.</p>"
    assert parse_time(data["updated_at"]) >= parse_time(podcast["updated_at"])

    response = demo.patch(
        path,
        content=b'{"visibility": "private", "title": "Renamed", "description": "After."}',
        headers={"content-type": "application/merge-patch+json"},
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["visibility"], data["title"], data["description"]) == ("private", "Renamed", "<p>After.</p>")
    assert data["url"] is None and data["rss_feed_url"] is None

    data = demo.patch(
        path, json={"language": "ES", "episode_order": "episodic", "host_ids": [second_host, host_id]}
    ).json()["data"]
    assert data["languages"] == ["es"]
    assert data["episode_order"] == "episodic"
    assert data["host_ids"] == [second_host, host_id]

    unchanged = demo.patch(path, json={})
    assert unchanged.status_code == 200
    kept = unchanged.json()["data"]
    for name in ("title", "description", "visibility", "languages", "host_ids", "episode_order"):
        assert kept[name] == data[name]
    assert demo.get(path).json()["data"]["title"] == "Renamed"

    for body, field in [
        ({"title": None}, "title"),
        ({"visibility": None}, "visibility"),
        ({"host_ids": []}, "host_ids"),
        ({"host_ids": ["ffffffff"]}, "host_ids.0"),
        ({"title": "y" * 101}, "title"),
        ({"language": "fren"}, "language"),
        ({"visibility": "hidden"}, "visibility"),
        ({"episode_order": "Serial"}, "episode_order"),
        ({"episode_count": 4}, "episode_count"),
    ]:
        problem = assert_problem(demo.patch(path, json=body), 400, "validation_error")
        assert field in field_names(problem), (body, problem)
    assert demo.get(path).json()["data"]["title"] == "Renamed"
    response = demo.patch(path, content=b'{"title": "X"}', headers={"content-type": "text/plain"})
    assert_problem(response, 415, "unsupported_media_type")


def test_podcast_not_found_and_foreign(demo: httpx.Client, other_api: httpx.Client, host_id: str) -> None:
    mine = make_podcast(demo, [host_id])
    theirs = other_api.get("/v1/podcasts").json()["data"][0]["id"]
    for client, podcast_id in ((other_api, mine["id"]), (demo, theirs), (demo, str(uuid.uuid4()))):
        assert_problem(client.get(f"/v1/podcasts/{podcast_id}"), 404, "not_found")
        assert_problem(
            client.patch(f"/v1/podcasts/{podcast_id}", json={"title": "Mine now"}), 404, "not_found"
        )
        assert_problem(client.get(f"/v1/podcasts/{podcast_id}/analytics"), 404, "not_found")
    assert theirs not in [p["id"] for p in all_pages(demo, "/v1/podcasts", limit=100)]
    problem = assert_problem(demo.get("/v1/podcasts/not-a-uuid"), 400, "validation_error")
    assert field_names(problem) == ["podcast_id"]
    assert demo.get(f"/v1/podcasts/{mine['id']}").json()["data"]["title"] == mine["title"]


def test_public_show_page_and_feed(sandbox: RunningSandbox, demo: httpx.Client, host_id: str) -> None:
    public = make_podcast(demo, [host_id], title="Tides & <Tales>", description="Salt and stories.")
    private = make_podcast(demo, [host_id], title="Internal", visibility="private")
    anonymous = sandbox.client(None)

    page = anonymous.get(public["url"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "Tides &amp; &lt;Tales&gt;" in page.text
    feed = anonymous.get(public["rss_feed_url"])
    assert feed.status_code == 200
    assert "xml" in feed.headers["content-type"]
    channel = parse_feed(feed.content).find("channel")
    assert channel is not None
    assert channel.findtext("title") == "Tides & <Tales>"
    assert channel.findtext("description") == "Salt and stories."
    assert channel.findtext("language") == "en"
    assert channel.findall("item") == []

    # the private podcast has no public addresses; the ones it would have answer 404
    assert_problem(anonymous.get(f"/shows/{private['id']}"), 404)
    assert_problem(anonymous.get(f"/shows/{private['id']}/feed.xml"), 404)
    # going private takes the public pages down
    demo.patch(f"/v1/podcasts/{public['id']}", json={"visibility": "private"})
    assert_problem(anonymous.get(public["url"]), 404)
    assert_problem(anonymous.get(public["rss_feed_url"]), 404)
    assert_problem(anonymous.get(f"/shows/{uuid.uuid4()}"), 404)


# hosts -------------------------------------------------------------------------------------------------------
def test_host_create_shape(demo: httpx.Client) -> None:
    response = demo.post(
        "/v1/hosts",
        json={
            "name": "Rosa Quay",
            "backstory": "Rosa charts currents.\n\nShe sails at dawn.",
            "voice_id": 1004,
            "personality": "Warm and curious.",
            "title": "Navigator",
            "is_guest": True,
        },
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    host = Host.model_validate(data)
    for name in Host.model_fields:
        assert name in data, name
    assert HEX8.match(host.id), host.id
    assert response.headers["location"].endswith(host.id)
    assert host.name == "Rosa Quay"
    assert host.title == "Navigator"
    assert host.personality == "Warm and curious."
    assert host.backstory == "<p>Rosa charts currents.</p><p>She sails at dawn.</p>"
    assert host.voice_id == 1004
    assert isinstance(data["voice_id"], int)
    voices = {v["id"]: v for v in all_pages(demo, "/v1/voices", limit=100)}
    assert data["voice"] == {k: voices[1004][k] for k in data["voice"]}
    assert set(data["voice"]) >= {"id", "gender", "voice_type", "accent", "description", "language", "model"}
    assert demo.get(f"/v1/hosts/{host.id}").json()["data"] == data
    assert host.id in [h["id"] for h in all_pages(demo, "/v1/hosts", limit=100)]
    minimal = make_host(demo, backstory="<b>HTML</b> stays as given.")
    assert minimal["title"] is None and minimal["personality"] is None
    assert minimal["backstory"] == "<b>HTML</b> stays as given."


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "n" * 101}, "name"),
        ({"name": None}, "name"),
        ({"backstory": "Too short"}, "backstory"),
        ({"backstory": "b" * 3001}, "backstory"),
        ({"personality": ""}, "personality"),
        ({"personality": "p" * 3001}, "personality"),
        ({"title": ""}, "title"),
        ({"title": "t" * 101}, "title"),
        ({"voice_id": 999_999}, "voice_id"),
        ({"voice_id": "1001"}, "voice_id"),
        ({"voice_id": 1001.5}, "voice_id"),
        ({"voice_id": None}, "voice_id"),
        ({"is_guest": "yes"}, "is_guest"),
        ({"accent": "posh"}, "accent"),
    ],
)
def test_host_create_rejections(demo: httpx.Client, change: dict[str, Any], field: str) -> None:
    body: dict[str, Any] = {"name": "Valid Name", "backstory": BACKSTORY, "voice_id": 1001, **change}
    body = {k: v for k, v in body.items() if v is not None}
    problem = assert_problem(demo.post("/v1/hosts", json=body), 400, "validation_error")
    assert field in field_names(problem), problem


def test_host_limits_accepted_at_the_edges(demo: httpx.Client) -> None:
    data = make_host(demo, name="n" * 100, backstory="b" * 10, title="t" * 100, personality="p")
    assert data["name"] == "n" * 100 and data["title"] == "t" * 100
    assert data["backstory"] == "<p>bbbbbbbbbb</p>"
    assert make_host(demo, backstory="b" * 3000)["backstory"] == f"<p>{'b' * 3000}</p>"


def test_host_patch(demo: httpx.Client, other_api: httpx.Client) -> None:
    host = make_host(demo, name="Patchable", personality="Calm.")
    path = f"/v1/hosts/{host['id']}"
    response = demo.patch(
        path, json={"name": "Renamed", "backstory": "Now a harbour pilot.", "voice_id": 1012}
    )
    assert response.status_code == 200, response.text
    data = Host.model_validate(response.json()["data"])
    assert data.name == "Renamed"
    assert data.backstory == "<p>Now a harbour pilot.</p>"
    assert data.personality == "Calm."
    assert data.voice_id == 1012 and data.voice is not None
    assert (data.voice.id, data.voice.language) == (1012, "es")
    response = demo.patch(
        path, content=b'{"title": "Pilot"}', headers={"content-type": "application/merge-patch+json"}
    )
    assert response.status_code == 200 and response.json()["data"]["title"] == "Pilot"
    for body, field in [
        ({"voice_id": 424242}, "voice_id"),
        ({"voice_id": "1001"}, "voice_id"),
        ({"name": ""}, "name"),
        ({"name": None}, "name"),
        ({"backstory": "short"}, "backstory"),
        ({"favourite": "tea"}, "favourite"),
    ]:
        problem = assert_problem(demo.patch(path, json=body), 400, "validation_error")
        assert field in field_names(problem), (body, problem)
    assert demo.get(path).json()["data"]["name"] == "Renamed"
    assert_problem(other_api.get(path), 404, "not_found")
    assert_problem(other_api.patch(path, json={"name": "Stolen"}), 404, "not_found")
    assert_problem(other_api.delete(path), 404, "not_found")
    assert_problem(demo.get("/v1/hosts/00000000"), 404, "not_found")


def test_host_delete_archives(demo: httpx.Client) -> None:
    keeper = make_host(demo, name="Keeper")
    host = make_host(demo, name="Leaving Soon")
    path = f"/v1/hosts/{host['id']}"
    podcast = make_podcast(demo, [host["id"], keeper["id"]])
    response = demo.delete(path)
    assert response.status_code == 204
    assert response.content == b""
    assert host["id"] not in [h["id"] for h in all_pages(demo, "/v1/hosts", limit=100)]
    archived = demo.get(path)
    assert archived.status_code == 200
    assert archived.json()["data"]["archived"] is True
    assert archived.json()["data"]["name"] == "Leaving Soon"
    body = assert_problem(demo.patch(path, json={"name": "Back again"}), 422, "unprocessable_entity")
    assert body["recovery"]["action"]
    assert demo.delete(path).status_code == 204

    problem = assert_problem(
        demo.post("/v1/podcasts", json={"title": "T", "host_ids": [keeper["id"], host["id"]]}), 400
    )
    assert field_names(problem) == ["host_ids.1"]
    problem = assert_problem(
        demo.patch(f"/v1/podcasts/{podcast['id']}", json={"host_ids": [host["id"]]}), 400
    )
    assert field_names(problem) == ["host_ids.0"]
    generate = demo.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast["id"],
            "prompt": "A short chat about lighthouses.",
            "host_ids": [host["id"]],
            "options": {"episode_length_minutes": 1},
        },
    )
    problem = assert_problem(generate, 400, "validation_error")
    assert field_names(problem) == ["host_ids.0"]
    script = demo.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast["id"],
            "script": {"chapters": [{"segments": [{"host_id": host["id"], "text": "Hi."}]}]},
        },
    )
    assert_problem(script, 400, "validation_error")


def test_host_list_paginates(demo: httpx.Client) -> None:
    created = [make_host(demo, name=f"Pager {i}")["id"] for i in range(3)]
    first = demo.get("/v1/hosts", params={"limit": 2})
    assert first.status_code == 200
    assert [h["id"] for h in first.json()["data"]] == created[::-1][:2]
    following = first.links["next"]["url"]
    assert following.startswith("http") and "cursor=" in following
    second = demo.get(following)
    assert second.json()["data"][0]["id"] == created[0]
    everything = all_pages(demo, "/v1/hosts", limit=100)
    assert len({h["id"] for h in everything}) == len(everything)
    assert_problem(demo.get("/v1/hosts", params={"limit": 0}), 400, "validation_error")
    assert_problem(demo.get("/v1/hosts", params={"limit": 101}), 400, "validation_error")
    problem = assert_problem(demo.get("/v1/hosts", params={"cursor": "garbage!"}), 400, "validation_error")
    assert field_names(problem) == ["cursor"]


# voices ------------------------------------------------------------------------------------------------------
def test_voice_catalogue(demo: httpx.Client) -> None:
    voices = all_pages(demo, "/v1/voices")
    assert len(voices) == 24
    first_page = demo.get("/v1/voices")
    assert len(first_page.json()["data"]) == 20 and "next" in first_page.links
    for raw in voices:
        voice = Voice.model_validate(raw)
        assert isinstance(raw["id"], int) and raw["id"] > 0
        assert isinstance(raw["model"], str) and raw["model"]
        assert voice.gender in ("male", "female", "other")
        assert voice.voice_type in ("professional", "clone", "design")
        assert isinstance(voice.language, str) and re.match(r"^[a-z]{2,3}$", voice.language)
    assert len({v["id"] for v in voices}) == 24


@pytest.mark.parametrize(
    "filters",
    [
        {"language": "en"},
        {"language": "fr"},
        {"gender": "female"},
        {"gender": "other"},
        {"voice_type": "clone"},
        {"voice_type": "design", "gender": "male"},
        {"language": "en", "gender": "female", "voice_type": "professional"},
    ],
)
def test_voice_filters_are_applied_by_the_server(demo: httpx.Client, filters: dict[str, str]) -> None:
    everything = all_pages(demo, "/v1/voices", limit=100)
    expected = [v["id"] for v in everything if all(v[k] == value for k, value in filters.items())]
    assert expected
    first = demo.get("/v1/voices", params={**filters, "limit": 100})
    assert [v["id"] for v in first.json()["data"]] == expected
    paged = all_pages(demo, "/v1/voices", limit=2, **filters)
    assert [v["id"] for v in paged] == expected


@pytest.mark.parametrize(
    ("param", "value"),
    [("language", "EN"), ("language", "eng"), ("language", "e"), ("gender", "robot"),
     ("gender", "Female"), ("voice_type", "synthetic"), ("limit", "0"), ("limit", "abc")],
)  # fmt: skip
def test_voice_filter_rejections(demo: httpx.Client, param: str, value: str) -> None:
    problem = assert_problem(demo.get("/v1/voices", params={param: value}), 400, "validation_error")
    assert field_names(problem) == [param]


def test_voice_filter_with_no_match_is_empty(demo: httpx.Client) -> None:
    response = demo.get("/v1/voices", params={"language": "zz"})
    assert response.status_code == 200
    assert response.json()["data"] == []
    assert "next" not in response.links


# analytics ---------------------------------------------------------------------------------------------------
def test_episode_analytics_of_a_draft_are_zero(
    demo: httpx.Client, host_id: str, other_api: httpx.Client
) -> None:
    podcast = make_podcast(demo, [host_id])
    episode = demo.post("/v1/episodes", json={"podcast_id": podcast["id"]}).json()["data"]
    response = demo.get(f"/v1/episodes/{episode['id']}/analytics")
    assert response.status_code == 200
    analytics = EpisodeAnalytics.model_validate(response.json()["data"])
    assert analytics.episode_id == episode["id"]
    assert analytics.complete is True
    assert analytics.as_of is not None and parse_time(analytics.as_of)
    assert analytics.downloads.model_dump() == {"first_7_days": 0, "first_30_days": 0, "total": 0}
    assert analytics.video_views.model_dump() == {"last_7_days": 0, "last_30_days": 0, "total": 0}
    assert_problem(other_api.get(f"/v1/episodes/{episode['id']}/analytics"), 404, "not_found")
    assert_problem(demo.get(f"/v1/episodes/{uuid.uuid4()}/analytics"), 404, "not_found")

    totals = demo.get(f"/v1/podcasts/{podcast['id']}/analytics").json()["data"]
    parsed = PodcastAnalytics.model_validate(totals)
    assert parsed.analytics_enabled is True
    assert parsed.totals.plays == 0
    assert [e.episode_id for e in parsed.episodes] == [episode["id"]]


def _seeded_podcasts(demo: httpx.Client, sandbox: RunningSandbox) -> list[dict[str, Any]]:
    started = process_start(sandbox.process.pid)
    return [p for p in all_pages(demo, "/v1/podcasts", limit=100) if parse_time(p["created_at"]) < started]


def test_podcast_analytics_agree_with_episodes(demo: httpx.Client, sandbox: RunningSandbox) -> None:
    podcasts = _seeded_podcasts(demo, sandbox)
    assert {p["visibility"] for p in podcasts} == {"public", "private"}
    episodes = all_pages(demo, "/v1/episodes", limit=100)
    seen_downloads = False
    for podcast in podcasts:
        response = demo.get(f"/v1/podcasts/{podcast['id']}/analytics")
        assert response.status_code == 200
        raw = response.json()["data"]
        data = PodcastAnalytics.model_validate(raw)
        for name in (
            "podcast_id",
            "as_of",
            "complete",
            "analytics_enabled",
            "totals",
            "plays_by_app",
            "episodes",
        ):
            assert name in raw, name
        assert data.podcast_id == podcast["id"]
        mine = {e["id"]: e for e in episodes if e["podcast_id"] == podcast["id"]}
        assert {e.episode_id for e in data.episodes} == set(mine)
        totals = data.totals
        assert totals.downloads == sum(e.downloads.total for e in data.episodes)
        assert totals.video_views == sum(e.video_views.total for e in data.episodes)
        assert totals.plays == totals.downloads + totals.video_views
        assert totals.last_7_days <= totals.last_30_days <= totals.plays
        # last_7_days is a rolling window: downloads of the last 7 days of an episode published long ago
        # fall outside its since-publish windows (first_7_days, first_30_days)
        now = datetime.now(UTC)
        bound_7 = 0
        for entry in data.episodes:
            stamp = mine[entry.episode_id]["published_at"]
            age = (now - parse_time(stamp)).days if stamp else 0
            windows = entry.downloads
            if age >= 37:
                bound_7 += windows.total - windows.first_30_days
            elif age >= 14:
                bound_7 += windows.total - windows.first_7_days
            else:
                bound_7 += windows.total
            bound_7 += entry.video_views.last_7_days
        assert totals.last_7_days <= bound_7
        # plays by app add up to the plays they break down (downloads plus video views); none while
        # audio analytics are off
        assert sum(data.plays_by_app.values()) == (totals.plays if data.analytics_enabled else 0)
        for entry in data.episodes:
            windows = entry.downloads
            assert windows.first_7_days <= windows.first_30_days <= windows.total
            views = entry.video_views
            assert views.last_7_days <= views.last_30_days <= views.total
            if mine[entry.episode_id]["status"] != "published":
                assert windows.total == 0 and views.total == 0
            single = demo.get(f"/v1/episodes/{entry.episode_id}/analytics").json()["data"]
            if data.analytics_enabled:
                assert single["downloads"] == windows.model_dump()
            assert single["video_views"] == views.model_dump()
        if podcast["visibility"] == "private":
            assert data.analytics_enabled is False
            assert totals.downloads == 0
            assert data.plays_by_app == {}
        else:
            assert data.analytics_enabled is True
            # seeded episodes published days ago have downloads (one published just now has none yet)
            day_ago = datetime.now(UTC) - timedelta(days=1)
            published = [
                e
                for e in data.episodes
                if mine[e.episode_id]["status"] == "published"
                and parse_time(mine[e.episode_id]["published_at"]) < day_ago
            ]
            assert published
            for entry in published:
                assert entry.downloads.total > 0
                single = EpisodeAnalytics.model_validate(
                    demo.get(f"/v1/episodes/{entry.episode_id}/analytics").json()["data"]
                )
                assert (
                    0
                    < single.downloads.first_7_days
                    <= single.downloads.first_30_days
                    <= single.downloads.total
                )
                seen_downloads = True
    assert seen_downloads


def test_podcast_analytics_disabled_for_a_private_podcast(demo: httpx.Client, host_id: str) -> None:
    podcast = make_podcast(demo, [host_id], visibility="private")
    data = PodcastAnalytics.model_validate(demo.get(f"/v1/podcasts/{podcast['id']}/analytics").json()["data"])
    assert data.analytics_enabled is False
    assert data.totals.downloads == 0 and data.totals.plays == 0
    demo.patch(f"/v1/podcasts/{podcast['id']}", json={"visibility": "public"})
    data = PodcastAnalytics.model_validate(demo.get(f"/v1/podcasts/{podcast['id']}/analytics").json()["data"])
    assert data.analytics_enabled is True


# the seeded demo content -------------------------------------------------------------------------------------
def test_seed_content(sandbox: RunningSandbox, demo: httpx.Client) -> None:
    started = process_start(sandbox.process.pid)

    def seeded(path: str) -> list[dict[str, Any]]:
        return [r for r in all_pages(demo, path, limit=100) if parse_time(r["created_at"]) < started]

    voices = all_pages(demo, "/v1/voices", limit=100)
    assert len(voices) == 24
    assert len({v["language"] for v in voices}) >= 5
    assert {v["gender"] for v in voices} == {"male", "female", "other"}
    assert {v["voice_type"] for v in voices} == {"professional", "clone", "design"}

    hosts = seeded("/v1/hosts")
    assert len(hosts) == 4
    assert all(h["voice"] and h["voice"]["id"] == h["voice_id"] for h in hosts)
    podcasts = seeded("/v1/podcasts")
    assert len(podcasts) == 3
    podcast_ids = {p["id"] for p in podcasts}
    assert all(set(p["host_ids"]) <= {h["id"] for h in hosts} for p in podcasts)

    def episodes() -> list[dict[str, Any]]:
        return [e for e in seeded("/v1/episodes") if e["podcast_id"] in podcast_ids]

    assert len(episodes()) == 14
    assert sum(p["episode_count"] for p in podcasts) >= 14

    # media of published episodes and completed media renders in the background: wait for it
    def generated_with_audio() -> list[dict[str, Any]] | None:
        generated = [e for e in episodes() if (e["generation"] or {}).get("state") == "completed"]
        return generated if all(e["audio_url"] for e in generated) else None

    generated = wait_for(generated_with_audio, timeout=240, interval=1.0)  # under load: minutes
    published = [e for e in generated if e["status"] == "published"]
    assert published
    anonymous = sandbox.client(None)
    for episode in published:
        assert episode["published_at"] and episode["generation"]["state"] == "completed"
        timestamps = demo.get(f"/v1/episodes/{episode['id']}/timestamps")
        assert timestamps.status_code == 200, episode["title"]
        assert timestamps.json()["data"]["words"]
    audio = anonymous.get(published[0]["audio_url"])
    assert audio.status_code == 200 and audio.headers["content-type"] == "audio/mpeg"
    assert audio.content[:3] == b"ID3"  # an MP3 as FFmpeg's muxer writes it, tags first

    everything = episodes()
    drafts = [e for e in everything if e["status"] == "draft"]
    rendered = [e for e in drafts if e.get("rendered") and e["audio_url"]]
    assert rendered, "a rendered draft"
    unrendered = [
        e for e in drafts if (e["generation"] or {}).get("state") == "completed" and not e.get("rendered")
    ]
    assert unrendered, "an unrendered draft"
    assert [e for e in drafts if e["generation"] is None and e["audio_url"] is None], "an empty draft"
    scheduled = [e for e in everything if e["status"] == "scheduled"]
    assert scheduled and all(parse_time(e["scheduled_at"]) > datetime.now(UTC) for e in scheduled)
    failed = [e for e in everything if (e["generation"] or {}).get("state") == "failed"]
    assert failed and all(e["generation"]["error_message"] for e in failed)
    assert_problem(demo.post(f"/v1/episodes/{unrendered[0]['id']}/publish"), 422, "unprocessable_entity")

    sources = [Source.model_validate(s) for s in seeded("/v1/sources")]
    kinds = {s.type for s in sources}
    assert {"url", "text"} <= kinds
    uploads = [s for s in sources if s.type not in ("url", "text", "youtube")]
    assert uploads
    assert any(isinstance(s.metadata, dict) and s.metadata.get("prepare_visuals") for s in uploads)
    errored = [s for s in sources if s.status == "error"]
    assert errored and all(s.error_message for s in errored)

    for collection in ("videos", "shorts", "voiceovers"):
        items = [MediaJob.model_validate(m) for m in seeded(f"/v1/{collection}")]
        statuses = {m.status for m in items}
        assert {"completed", "failed", "idle"} <= statuses, (collection, statuses)
        assert statuses <= {"completed", "failed", "idle", "generating"}
        assert all(m.error for m in items if m.status == "failed")
        completed = next(m for m in items if m.status == "completed")

        def delivery(c: str = collection, m: MediaJob = completed) -> dict[str, Any] | None:
            found: dict[str, Any] = demo.get(f"/v1/{c}/{m.id}/download").json()["data"]["delivery"]
            return found if found["kind"] == "available" else None

        video = anonymous.get(wait_for(delivery, timeout=60, interval=1.0)["url"])
        assert video.status_code == 200
        media = media_child.probe(video.content)  # PyAV, in a child process
        assert media.video and media.duration and media.duration > 0


def test_other_organization_sees_only_its_own(other_api: httpx.Client, sandbox: RunningSandbox) -> None:
    started = process_start(sandbox.process.pid)
    hosts = [h for h in all_pages(other_api, "/v1/hosts") if parse_time(h["created_at"]) < started]
    podcasts = [p for p in all_pages(other_api, "/v1/podcasts") if parse_time(p["created_at"]) < started]
    assert len(hosts) == 1 and len(podcasts) == 1
    assert podcasts[0]["visibility"] == "private" and podcasts[0]["url"] is None


def test_a_lagging_analytics_provider_reports_floors(demo: httpx.Client, sandbox: RunningSandbox) -> None:
    """The seeded "Harbour Lights" show stands for a podcast whose analytics provider is degraded:
    its figures, and each of its episodes', say ``complete: false``; the other shows' are complete."""
    podcasts = {p["title"]: p for p in _seeded_podcasts(demo, sandbox)}
    for title, podcast in podcasts.items():
        data = PodcastAnalytics.model_validate(
            demo.get(f"/v1/podcasts/{podcast['id']}/analytics").json()["data"]
        )
        assert data.complete is (title != "Harbour Lights"), title
        for entry in data.episodes:
            single = EpisodeAnalytics.model_validate(
                demo.get(f"/v1/episodes/{entry.episode_id}/analytics").json()["data"]
            )
            assert single.complete is data.complete
    lagging = PodcastAnalytics.model_validate(
        demo.get(f"/v1/podcasts/{podcasts['Harbour Lights']['id']}/analytics").json()["data"]
    )
    assert lagging.analytics_enabled is True
    titles = {e["id"]: e["title"] for e in all_pages(demo, "/v1/episodes", limit=100)}
    seeded = {"The Last Keeper of Skerry Light", "Bringing Them In: A Harbour Pilot's Night"}
    downloads = {
        titles[e.episode_id]: e.downloads.total for e in lagging.episodes if titles[e.episode_id] in seeded
    }
    assert set(downloads) == seeded  # (other tests may add episodes to the show)
    assert all(total > 0 for total in downloads.values())  # floors, not zeros: published days ago
    assert lagging.totals.plays == lagging.totals.downloads + lagging.totals.video_views
