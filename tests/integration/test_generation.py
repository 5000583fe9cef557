"""Episode generation over real HTTP: prompt mode, script mode, import, idempotency and credits.

Spec parts 2.3 to 2.5, 3.3, 4.2 (generate, import, idempotency) and the credit rules of part 1
and 8, against the sandbox (``--speed 50``).
"""

from __future__ import annotations

import re
import secrets
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import media_child
from tests.conftest import (
    DEMO_KEY,
    OTHER_KEY,
    RunningSandbox,
    assert_problem,
    field_names,
    wait_for,
)
from tests.tls import SHARED_TLS

CREDITS_PER_MINUTE = 30
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ACK_FIELDS = {"id", "podcast_id", "status", "host_ids", "workflow_run_id", "created_at", "updated_at"}
QUOTE = "The lighthouse keeper on Skerry Point counted exactly forty seven gulls every single morning."
QUOTE_WORDS = "counted exactly forty seven gulls every single morning"


# helpers -------------------------------------------------------------------------------------------------


def _tag() -> str:
    """A pronounceable random name part, so hosts of this file never collide with others."""
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    return "".join(secrets.choice(consonants) + secrets.choice(vowels) for _ in range(3)).title()


def make_hosts(api: httpx.Client, *first_names: str) -> list[dict[str, Any]]:
    voices = api.get("/v1/voices").json()["data"]
    hosts = []
    for index, first in enumerate(first_names):
        response = api.post(
            "/v1/hosts",
            json={
                "name": f"{first} {_tag()}",
                "backstory": f"{first} has hosted radio shows about the sea for many years.",
                "voice_id": voices[index % len(voices)]["id"],
            },
        )
        assert response.status_code == 201, response.text
        hosts.append(response.json()["data"])
    return hosts


def make_podcast(api: httpx.Client, host_ids: list[str]) -> str:
    response = api.post("/v1/podcasts", json={"title": f"Generation tests {_tag()}", "host_ids": host_ids})
    assert response.status_code == 201, response.text
    return str(response.json()["data"]["id"])


@pytest.fixture
def show(api: httpx.Client) -> dict[str, Any]:
    """A fresh podcast of Demo Studio with two new hosts."""
    hosts = make_hosts(api, "Marlowe", "Tamsin")
    return {
        "hosts": hosts,
        "host_ids": [h["id"] for h in hosts],
        "podcast_id": make_podcast(api, [h["id"] for h in hosts]),
    }


def episode_ids(api: httpx.Client, podcast_id: str) -> set[str]:
    ids: set[str] = set()
    url: str | None = f"/v1/episodes?podcast_id={podcast_id}&limit=100"
    while url:
        response = api.get(url)
        assert response.status_code == 200, response.text
        ids.update(e["id"] for e in response.json()["data"])
        url = response.links.get("next", {}).get("url")
    return ids


def account_credits(api: httpx.Client) -> dict[str, float]:
    response = api.get("/v1/account")
    assert response.status_code == 200, response.text
    credits: dict[str, float] = response.json()["data"]["credits"]
    return credits


def assert_accepted(response: httpx.Response, podcast_id: str) -> dict[str, Any]:
    """A 202 acknowledgement of spec 2.3 with Location and an integer Retry-After >= 1."""
    assert response.status_code == 202, response.text
    data: dict[str, Any] = response.json()["data"]
    assert set(data) == ACK_FIELDS, data
    assert UUID_RE.match(data["id"])
    assert data["podcast_id"] == podcast_id
    assert data["status"] == "generating"
    assert isinstance(data["host_ids"], list) and data["host_ids"]
    assert isinstance(data["workflow_run_id"], str) and data["workflow_run_id"]
    assert data["created_at"] and data["updated_at"]
    assert response.headers["location"] == f"/v1/episodes/{data['id']}"
    assert re.fullmatch(r"\d+", response.headers["retry-after"])
    assert int(response.headers["retry-after"]) >= 1
    return data


def wait_generation(
    api: httpx.Client, episode_id: str, timeout: float = 60.0
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Poll the episode until generation ends; returns the final episode and every generation seen."""
    seen: list[dict[str, Any]] = []

    def finished() -> dict[str, Any] | None:
        response = api.get(f"/v1/episodes/{episode_id}")
        assert response.status_code == 200, response.text
        episode: dict[str, Any] = response.json()["data"]
        seen.append(dict(episode["generation"]))
        return episode if episode["generation"]["state"] != "generating" else None

    episode = wait_for(finished, timeout=timeout, interval=0.1)
    return episode, seen


def transcript(api: httpx.Client, episode_id: str) -> dict[str, Any]:
    response = api.get(f"/v1/episodes/{episode_id}/timestamps")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def normalized_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("'", ""))


def spoken_words(timestamps: dict[str, Any]) -> list[str]:
    return [w for word in timestamps["words"] for w in normalized_words(word["text"])]


def media_seconds(url: str, kind: str) -> float:
    """Download a signed URL without the API key and decode it fully with PyAV (in a child process:
    tests/media_child.py); the decoded length."""
    response = httpx.get(url, timeout=30.0, verify=SHARED_TLS)
    assert response.status_code == 200, response.status_code
    media = media_child.probe(response.content)
    if kind == "audio":
        assert media.format_name == "mp3", media.format_name
        return media.audio[0].seconds
    video = media.video[0]
    assert video.timed_frames > 1 and video.last_time is not None
    return video.last_time


def two_host_script(h1: str, h2: str) -> dict[str, Any]:
    return {
        "chapters": [
            {
                "title": "Harbour lights",
                "segments": [
                    {"host_id": h1, "text": "Welcome back! Tonight we sail past the old harbour lights."},
                    {"host_id": h2, "text": "I brought a map, a compass, and far too many sandwiches."},
                ],
            },
            {
                "segments": [
                    {"host_id": h1, "text": "Sandwiches are essential equipment on any voyage, surely."},
                    {"host_id": h2, "text": "Agreed. Now, the tide turns at seven, so listen closely."},
                ]
            },
        ]
    }


def tiny_script(host_id: str, text: str = "A short line for a quick test.") -> dict[str, Any]:
    return {"chapters": [{"segments": [{"host_id": host_id, "text": text}]}]}


# script and prompt rules -----------------------------------------------------------------------------------------------


def test_script_mode_rules(api: httpx.Client, show: dict[str, Any]) -> None:
    podcast_id = show["podcast_id"]
    h1, h2 = show["host_ids"]
    before = episode_ids(api, podcast_id)
    archived = make_hosts(api, "Gone")[0]["id"]
    assert api.delete(f"/v1/hosts/{archived}").status_code == 204

    def seg(host: str = h1, text: str = "Hello there, listeners.") -> dict[str, Any]:
        return {"host_id": host, "text": text}

    def script(*chapters: list[dict[str, Any]], **chapter_fields: Any) -> dict[str, Any]:
        return {"chapters": [{"segments": c, **chapter_fields} for c in chapters]}

    cases: list[tuple[dict[str, Any], str]] = [
        ({"prompt": "Talk about the sea and its moods", "script": script([seg()])}, "prompt"),
        ({}, "prompt"),
        ({"script": script([seg()]), "source_ids": [show["podcast_id"]]}, "source_ids"),
        ({"script": script([seg()]), "options": {"episode_length_minutes": 3}}, "options"),
        ({"script": script([seg(), seg(h2)]), "host_ids": [h1]}, "script.chapters.0.segments.1.host_id"),
        ({"script": script([seg()], [seg(), seg("nobody-here")])}, "script.chapters.1.segments.1.host_id"),
        ({"script": script([seg(), seg(archived)])}, "script.chapters.0.segments.1.host_id"),
        ({"script": {"chapters": []}}, "script.chapters"),
        ({"script": script(*[[seg()]] * 51)}, "script.chapters"),
        ({"script": script([seg()] * 201)}, "script.chapters.0.segments"),
        ({"script": script(*[[seg()] * 200] * 3, [seg()])}, "script.chapters"),
        ({"script": script([seg(), seg(text="a" * 5001)])}, "script.chapters.0.segments.1.text"),
        ({"script": script(*[[seg(text="word " * 999)] * 5] * 4)}, "script"),
        ({"script": script([seg()], title="")}, "script.chapters.0.title"),
        ({"script": script([seg()], title="t" * 201)}, "script.chapters.0.title"),
        ({"script": script([{**seg(), "speed": 1.0}])}, "script.chapters.0.segments.0.speed"),
        ({"script": script([seg()]), "host_ids": [h1, h1]}, "host_ids"),
    ]
    for extra, field in cases:
        response = api.post("/v1/episodes/generate", json={"podcast_id": podcast_id, **extra})
        problem = assert_problem(response, 400, "validation_error")
        assert field in field_names(problem), (field, problem)
        assert problem["recovery"]["action"] == "correct_input"
    # a 200-character chapter title is accepted
    at_limit = script([seg(text="Hi.")], title="t" * 200)
    response = api.post("/v1/episodes/generate", json={"podcast_id": podcast_id, "script": at_limit})
    created = assert_accepted(response, podcast_id)["id"]
    assert episode_ids(api, podcast_id) == before | {created}


def test_prompt_mode_rules(api: httpx.Client, show: dict[str, Any]) -> None:
    podcast_id = show["podcast_id"]
    prompt = "Talk about the sea and its moods"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"prompt": "x" * 9}, "prompt"),
        ({"prompt": "x" * 10001}, "prompt"),
        ({"prompt": prompt, "options": {"episode_length_minutes": 0}}, "options.episode_length_minutes"),
        ({"prompt": prompt, "options": {"episode_length_minutes": 76}}, "options.episode_length_minutes"),
        ({"prompt": prompt, "options": {"episode_length_minutes": "5"}}, "options.episode_length_minutes"),
        ({"prompt": prompt, "options": {"episode_length": "enormous"}}, "options.episode_length"),
        ({"prompt": prompt, "options": {"depth": "deep"}}, "options.depth"),
        ({"prompt": prompt, "mood": "calm"}, "mood"),
        ({"prompt": prompt, "source_ids": ["not-a-uuid"]}, "source_ids.0"),
        ({"prompt": prompt, "host_ids": ["nobody-here"]}, "host_ids.0"),
    ]
    before = episode_ids(api, podcast_id)
    for extra, field in cases:
        response = api.post("/v1/episodes/generate", json={"podcast_id": podcast_id, **extra})
        problem = assert_problem(response, 400, "validation_error")
        assert field in field_names(problem), (field, problem)
    missing = api.post(
        "/v1/episodes/generate",
        json={"podcast_id": "00000000-0000-4000-8000-000000000000", "prompt": prompt},
    )
    assert_problem(missing, 404, "not_found")
    assert episode_ids(api, podcast_id) == before
    # a 10,000-character prompt is accepted, and so are the retired options
    body = {
        "prompt": ("The tide " * 1250)[:10000],
        "options": {"web_search": True, "episode_length": "long", "episode_length_minutes": 1},
    }
    response = api.post("/v1/episodes/generate", json={"podcast_id": podcast_id, **body})
    created = assert_accepted(response, podcast_id)["id"]
    assert episode_ids(api, podcast_id) == before | {created}


def test_another_organizations_podcast_and_sources_are_not_found(
    api: httpx.Client, other_api: httpx.Client, show: dict[str, Any]
) -> None:
    prompt = "Talk about the sea and its moods"
    response = other_api.post(
        "/v1/episodes/generate", json={"podcast_id": show["podcast_id"], "prompt": prompt}
    )
    assert_problem(response, 404, "not_found")
    foreign = other_api.post("/v1/sources", json={"type": "text", "content": "Northwind private notes."})
    foreign_id = foreign.json()["data"]["id"]
    response = api.post(
        "/v1/episodes/generate",
        json={"podcast_id": show["podcast_id"], "prompt": prompt, "source_ids": [foreign_id]},
    )
    problem = assert_problem(response, 400, "validation_error")
    assert field_names(problem) == ["source_ids.0"]


# import ----------------------------------------------------------------------------------------------------

IMPORT_TEXT = """Title: The Harbour Hour
[Music fades in]
00:01:15
[{a}]
Welcome to the harbour, where the boats rest quietly.
[{b}]
(laughs) That is a lovely opening line, truly.
[{a}]
Thank you. Let's begin.
"""


def test_import_rejections_create_nothing(api: httpx.Client, show: dict[str, Any]) -> None:
    (a, b), podcast_id = show["hosts"], show["podcast_id"]
    before = episode_ids(api, podcast_id)
    text = (
        f"[{a['name']}]\nHello there.\n[Captain Nobody]\nAhoy.\n[{b['name']}]\nHi.\n[first mate zzz]\nAye.\n"
    )
    response = api.post("/v1/episodes/import", json={"podcast_id": podcast_id, "script": text})
    problem = assert_problem(response, 422)
    assert problem["reason"] == "unresolved_speakers"
    assert problem["speakers"] == ["Captain Nobody", "first mate zzz"]
    assert problem["recovery"]["action"] == "choose_characters"

    rejected = f"[{a['name']}]\nThis line trips the filter [sandbox:reject] today.\n"
    response = api.post("/v1/episodes/import", json={"podcast_id": podcast_id, "script": rejected})
    problem = assert_problem(response, 422)
    assert problem["recovery"]["action"] == "check_content"

    response = api.post(
        "/v1/episodes/import", json={"podcast_id": podcast_id, "script": "Just words, no labels at all."}
    )
    assert field_names(assert_problem(response, 400, "validation_error")) == ["script"]

    response = api.post(
        "/v1/episodes/import",
        json={"podcast_id": "00000000-0000-4000-8000-000000000000", "script": f"[{a['name']}]\nHello.\n"},
    )
    assert_problem(response, 404, "not_found")

    response = api.post(
        "/v1/episodes/import",
        json={
            "podcast_id": podcast_id,
            "script": text,
            "speaker_characters": [{"character_id": "no-such-host", "label": "Captain Nobody"}],
        },
    )
    assert field_names(assert_problem(response, 400, "validation_error")) == [
        "speaker_characters.0.character_id"
    ]

    response = api.post(
        "/v1/episodes/import", json={"podcast_id": podcast_id, "script": text, "speaker_characters": []}
    )
    assert field_names(assert_problem(response, 400, "validation_error")) == ["speaker_characters"]
    assert episode_ids(api, podcast_id) == before


# idempotency -----------------------------------------------------------------------------------------------


def test_same_key_same_body_replays_the_original(api: httpx.Client, show: dict[str, Any]) -> None:
    podcast_id = show["podcast_id"]
    body = {"podcast_id": podcast_id, "script": tiny_script(show["host_ids"][0])}
    key = f"gen-{secrets.token_hex(8)}"
    before = episode_ids(api, podcast_id)
    first = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": key})
    original = assert_accepted(first, podcast_id)
    assert "idempotent-replayed" not in first.headers
    second = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": key})
    replay = assert_accepted(second, podcast_id)
    assert second.headers["idempotent-replayed"] == "true"
    assert replay == original
    assert second.headers["x-request-id"] != first.headers["x-request-id"]
    assert episode_ids(api, podcast_id) - before == {original["id"]}

    changed = {**body, "render": True}
    conflict = api.post("/v1/episodes/generate", json=changed, headers={"Idempotency-Key": key})
    assert_problem(conflict, 409, "conflict")
    assert episode_ids(api, podcast_id) - before == {original["id"]}


def test_without_a_key_every_request_generates(api: httpx.Client, show: dict[str, Any]) -> None:
    podcast_id = show["podcast_id"]
    body = {"podcast_id": podcast_id, "script": tiny_script(show["host_ids"][0])}
    before = episode_ids(api, podcast_id)
    first = assert_accepted(api.post("/v1/episodes/generate", json=body), podcast_id)
    second = assert_accepted(api.post("/v1/episodes/generate", json=body), podcast_id)
    assert first["id"] != second["id"] and first["workflow_run_id"] != second["workflow_run_id"]
    assert episode_ids(api, podcast_id) - before == {first["id"], second["id"]}


@pytest.mark.parametrize("key", ["has space", "k" * 256, "clé-non-ascii", ""])
def test_invalid_idempotency_keys(api: httpx.Client, show: dict[str, Any], key: str) -> None:
    podcast_id = show["podcast_id"]
    body = {"podcast_id": podcast_id, "script": tiny_script(show["host_ids"][0])}
    for path in ("/v1/episodes/generate", "/v1/episodes/import"):
        response = api.post(
            path,
            json=body if path.endswith("generate") else {"podcast_id": podcast_id, "script": "[A]\nHi."},
            headers=[(b"Idempotency-Key", key.encode("utf-8"))],
        )
        problem = assert_problem(response, 400, "validation_error")
        assert field_names(problem) == ["Idempotency-Key"]
    assert episode_ids(api, podcast_id) == set()


def test_longest_valid_key_is_accepted(api: httpx.Client, show: dict[str, Any]) -> None:
    key = "!~" + "k" * 253
    body = {"podcast_id": show["podcast_id"], "script": tiny_script(show["host_ids"][0])}
    first = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": key})
    second = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": key})
    assert (
        assert_accepted(first, show["podcast_id"])["id"] == assert_accepted(second, show["podcast_id"])["id"]
    )


def test_rejected_keyed_request_can_reuse_its_key(api: httpx.Client, show: dict[str, Any]) -> None:
    podcast_id, (a, _b) = show["podcast_id"], show["hosts"]
    key = f"fix-{secrets.token_hex(8)}"
    invalid = api.post(
        "/v1/episodes/generate",
        json={"podcast_id": podcast_id, "prompt": "too short"},
        headers={"Idempotency-Key": key},
    )
    problem = assert_problem(invalid, 400, "validation_error")
    assert problem["recovery"] == {"action": "correct_input", "idempotency_key": "reuse"}
    fixed = api.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast_id,
            "prompt": "Long enough to be a prompt",
            "options": {"episode_length_minutes": 1},
        },
        headers={"Idempotency-Key": key},
    )
    assert_accepted(fixed, podcast_id)

    key = f"fix-{secrets.token_hex(8)}"
    text = f"[{a['name']}]\nHello.\n[Harbour Master]\nWelcome aboard.\n"
    unresolved = api.post(
        "/v1/episodes/import",
        json={"podcast_id": podcast_id, "script": text},
        headers={"Idempotency-Key": key},
    )
    problem = assert_problem(unresolved, 422)
    assert problem["reason"] == "unresolved_speakers" and problem["speakers"] == ["Harbour Master"]
    assert problem["recovery"]["action"] == "choose_characters"
    assert problem["recovery"]["idempotency_key"] == "reuse"
    before = episode_ids(api, podcast_id)
    fixed_body = {
        "podcast_id": podcast_id,
        "script": text,
        "speaker_characters": [{"character_id": a["id"], "label": "Harbour Master"}],
    }
    accepted = api.post("/v1/episodes/import", json=fixed_body, headers={"Idempotency-Key": key})
    created = assert_accepted(accepted, podcast_id)
    replay = api.post("/v1/episodes/import", json=fixed_body, headers={"Idempotency-Key": key})
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json()["data"]["id"] == created["id"]
    assert episode_ids(api, podcast_id) - before == {created["id"]}


def test_key_lapses_after_the_window(sandbox_factory: Any) -> None:
    running: RunningSandbox = sandbox_factory("--speed", "50", "--idempotency-window", "2", "--no-seed-media")
    api = running.client(DEMO_KEY)
    hosts = make_hosts(api, "Lapse")
    podcast_id = make_podcast(api, [hosts[0]["id"]])
    body = {"podcast_id": podcast_id, "script": tiny_script(hosts[0]["id"])}
    first = assert_accepted(
        api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": "lapse-1"}), podcast_id
    )
    replay = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": "lapse-1"})
    assert replay.headers.get("idempotent-replayed") == "true"
    assert replay.json()["data"]["id"] == first["id"]
    running.advance(3)
    later = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": "lapse-1"})
    fresh = assert_accepted(later, podcast_id)
    assert "idempotent-replayed" not in later.headers
    assert fresh["id"] != first["id"] and fresh["workflow_run_id"] != first["workflow_run_id"]
    assert episode_ids(api, podcast_id) == {first["id"], fresh["id"]}


# credits and failures ---------------------------------------------------------------------------------------


def test_holds_follow_the_requested_length_and_need_credits(sandbox_factory: Any) -> None:
    """Northwind (5,000 credits, nothing else running for it) in a sandbox of its own."""
    running: RunningSandbox = sandbox_factory("--speed", "50", "--workers", "2", "--no-seed-media")
    api = running.client(OTHER_KEY)
    hosts = make_hosts(api, "Holder")
    podcast_id = make_podcast(api, [hosts[0]["id"]])
    start = account_credits(api)
    assert start == {"balance": 5000, "held": 0, "total": 5000}
    cases: list[tuple[dict[str, Any], int]] = [
        ({"prompt": "Talk about the moods of the northern sea"}, 7),
        ({"prompt": "Make a 2-minute episode about the moods of the northern sea"}, 2),
        ({"prompt": "Make a 2-minute episode about the sea", "options": {"episode_length_minutes": 4}}, 4),
        (
            {"prompt": "Talk about the sea", "options": {"episode_length": "extra_long", "web_search": True}},
            7,
        ),
    ]
    for body, minutes in cases:
        before = account_credits(api)
        response = api.post("/v1/episodes/generate", json={"podcast_id": podcast_id, **body})
        assert_accepted(response, podcast_id)
        after = account_credits(api)
        assert after["held"] == pytest.approx(before["held"] + minutes * CREDITS_PER_MINUTE), body
        assert after["balance"] == pytest.approx(before["balance"] - minutes * CREDITS_PER_MINUTE), body
        assert after["total"] == before["total"] == 5000

    # 75-minute episodes (2,250 credits each) until the holds would exceed the balance
    body = {
        "podcast_id": podcast_id,
        "prompt": "Talk about the sea",
        "options": {"episode_length_minutes": 75},
    }
    accepted = 0
    while True:
        credits = account_credits(api)
        ids = episode_ids(api, podcast_id)
        key = f"big-{accepted}"
        response = api.post("/v1/episodes/generate", json=body, headers={"Idempotency-Key": key})
        if response.status_code == 202:
            accepted += 1
            assert credits["balance"] >= 75 * CREDITS_PER_MINUTE
            assert accepted < 5
            continue
        problem = assert_problem(response, 422)
        assert problem["recovery"]["action"] == "check_account"
        assert problem["recovery"]["idempotency_key"] == "reuse"
        assert credits["balance"] < 75 * CREDITS_PER_MINUTE
        break
    assert accepted == 1  # 4,400 left after the first holds: room for one 2,250 hold, not two
    assert episode_ids(api, podcast_id) == ids
    assert account_credits(api)["held"] == credits["held"]
    # a shorter episode still fits in what is left, under the very same key
    small = {**body, "options": {"episode_length_minutes": 1}}
    assert_accepted(
        api.post("/v1/episodes/generate", json=small, headers={"Idempotency-Key": key}), podcast_id
    )


# generations awaited on the session sandbox (last: its seeded media have rendered by now) ------------


def test_script_mode_speaks_the_script_word_for_word(api: httpx.Client, show: dict[str, Any]) -> None:
    h1, h2 = show["host_ids"]
    script = two_host_script(h1, h2)
    response = api.post("/v1/episodes/generate", json={"podcast_id": show["podcast_id"], "script": script})
    ack = assert_accepted(response, show["podcast_id"])
    assert ack["host_ids"] == [h1, h2]  # inferred from the script in order of appearance
    episode, _ = wait_generation(api, ack["id"])
    assert episode["generation"]["state"] == "completed", episode["generation"]
    assert episode["status"] == "draft" and episode["audio_url"] and episode["video_url"] is None

    timestamps = transcript(api, ack["id"])
    index = {s["host_id"]: i for i, s in enumerate(timestamps["speakers"])}
    expected = [
        (index[seg["host_id"]], word)
        for chapter in script["chapters"]
        for seg in chapter["segments"]
        for word in normalized_words(seg["text"])
    ]
    got = [(w["speaker"], n) for w in timestamps["words"] for n in normalized_words(w["text"])]
    assert got == expected
    assert {s["host_id"] for s in timestamps["speakers"]} == {h1, h2}
    assert {s["name"] for s in timestamps["speakers"]} == {h["name"] for h in show["hosts"]}


def test_import_matches_labels_to_hosts_and_drops_unspoken_lines(
    api: httpx.Client, show: dict[str, Any]
) -> None:
    (a, b), podcast_id = show["hosts"], show["podcast_id"]
    text = IMPORT_TEXT.format(a=a["name"].lower(), b=b["name"].upper())
    response = api.post("/v1/episodes/import", json={"podcast_id": podcast_id, "script": text})
    ack = assert_accepted(response, podcast_id)
    assert ack["host_ids"] == [a["id"], b["id"]]
    episode, _ = wait_generation(api, ack["id"])
    assert episode["generation"]["state"] == "completed", episode["generation"]
    assert episode["status"] == "draft" and episode["audio_url"]
    timestamps = transcript(api, ack["id"])
    names = [s["host_id"] for s in timestamps["speakers"]]
    got = [(names[w["speaker"]], n) for w in timestamps["words"] for n in normalized_words(w["text"])]
    expected = (
        [(a["id"], w) for w in normalized_words("Welcome to the harbour, where the boats rest quietly.")]
        + [(b["id"], w) for w in normalized_words("laughs That is a lovely opening line, truly.")]
        + [(a["id"], w) for w in normalized_words("Thank you. Let's begin.")]
    )
    assert got == expected


def test_import_speaker_characters_override_name_matching(api: httpx.Client, show: dict[str, Any]) -> None:
    (a, b), podcast_id = show["hosts"], show["podcast_id"]
    text = f"[{a['name']}]\nI should be spoken by the second host.\n[Skipper]\nAnd I by the first.\n"
    response = api.post(
        "/v1/episodes/import",
        json={
            "podcast_id": podcast_id,
            "script": text,
            "speaker_characters": [
                {"character_id": b["id"], "label": a["name"].upper()},
                {"character_id": a["id"], "label": "skipper"},
            ],
        },
    )
    ack = assert_accepted(response, podcast_id)
    assert ack["host_ids"] == [b["id"], a["id"]]
    wait_generation(api, ack["id"])
    timestamps = transcript(api, ack["id"])
    names = [s["host_id"] for s in timestamps["speakers"]]
    by_host: dict[str, list[str]] = {}
    for word in timestamps["words"]:
        by_host.setdefault(names[word["speaker"]], []).extend(normalized_words(word["text"]))
    assert by_host == {
        b["id"]: normalized_words("I should be spoken by the second host."),
        a["id"]: normalized_words("And I by the first."),
    }


def test_prompt_mode_generates_a_conversation_quoting_its_sources(
    api: httpx.Client, show: dict[str, Any]
) -> None:
    podcast_id, host_ids = show["podcast_id"], show["host_ids"]
    text = api.post(
        "/v1/sources",
        json={"type": "text", "title": "Keeper's Diary", "content": f"{QUOTE} The fog rolled in late.\n"},
    )
    assert text.status_code == 201, text.text
    text_id = text.json()["data"]["id"]
    broken = api.post("/v1/sources", json={"type": "url", "url": "https://lamps.invalid/diary"})
    assert broken.status_code == 201, broken.text
    broken_id = broken.json()["data"]["id"]
    wait_for(lambda: api.get(f"/v1/sources/{broken_id}").json()["data"]["status"] == "error", timeout=20)
    wait_for(lambda: api.get(f"/v1/sources/{text_id}").json()["data"]["status"] == "completed", timeout=20)
    # A third source, still processing when the generation is accepted.
    fresh = api.post(
        "/v1/sources", json={"type": "text", "content": "Tidal clocks were kept in brass cases."}
    )
    assert fresh.json()["data"]["status"] == "processing"
    fresh_id = fresh.json()["data"]["id"]

    prompt = "Talk about lighthouse keepers and the storms of the northern coast"
    response = api.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast_id,
            "prompt": prompt,
            "source_ids": [text_id, broken_id, fresh_id],
            "options": {"episode_length_minutes": 1},
        },
    )
    ack = assert_accepted(response, podcast_id)
    assert ack["host_ids"] == host_ids

    episode, seen = wait_generation(api, ack["id"])
    phases = [g.get("phase") for g in seen if g["state"] == "generating"]
    progress = [g["progress_pct"] for g in seen if g["state"] == "generating"]
    assert len(set(phases)) >= 2, phases
    assert progress == sorted(progress) and progress[-1] > progress[0], progress
    assert all(g["started_at"] == seen[0]["started_at"] and g["completed_at"] is None for g in seen[:-1])

    generation = episode["generation"]
    assert generation["state"] == "completed", generation
    assert generation["completed_at"] and generation["completed_at"] >= generation["started_at"]
    assert episode["status"] == "draft"
    assert episode["title"]
    assert episode["video_url"] is None
    assert set(episode["source_ids"]) == {text_id, broken_id, fresh_id}
    skipped = {s["id"]: s for s in generation.get("skipped_sources") or []}
    assert broken_id in skipped, generation
    assert set(skipped[broken_id]) == {"id", "title", "url", "reason"}
    assert skipped[broken_id]["reason"] and skipped[broken_id]["url"] == "https://lamps.invalid/diary"
    assert text_id not in skipped

    seconds = media_seconds(episode["audio_url"], "audio")
    assert 42 <= seconds <= 78, seconds

    timestamps = transcript(api, ack["id"])
    assert timestamps["episode_id"] == ack["id"]
    assert [s["host_id"] for s in timestamps["speakers"]] == host_ids
    speakers_heard = {w["speaker"] for w in timestamps["words"]}
    assert speakers_heard == set(range(len(host_ids))), speakers_heard
    turns = sum(
        1
        for a, b in zip(timestamps["words"], timestamps["words"][1:], strict=False)
        if a["speaker"] != b["speaker"]
    )
    assert turns >= 3, turns  # a conversation, not two monologues
    spoken = " ".join(spoken_words(timestamps))
    assert "lighthouse keepers" in spoken
    assert QUOTE_WORDS in spoken, spoken
    starts = [w["start"] for w in timestamps["words"]]
    assert starts == sorted(starts) and timestamps["words"][-1]["end"] <= seconds + 0.5
    # The source that was still processing did not stop the generation: used, or skipped with a reason.
    if fresh_id in skipped:
        assert skipped[fresh_id]["reason"]
    else:
        assert "tidal clocks" in spoken


def test_settlement_rendering_and_failure(other_api: httpx.Client) -> None:
    """Completion settles the real narration (rendering free); a failed run charges only what it made.

    Northwind, once none of its generations hold credits, changes its balance only through these.
    """
    api = other_api
    wait_for(lambda: account_credits(api)["held"] == 0, timeout=60)
    hosts = make_hosts(api, "Payer", "Renderer")
    podcast_id = make_podcast(api, [h["id"] for h in hosts])
    script = two_host_script(hosts[0]["id"], hosts[1]["id"])
    words = sum(len(s["text"].split()) for c in script["chapters"] for s in c["segments"])
    estimate = round(words / 150 * CREDITS_PER_MINUTE, 2)
    charges = []
    for render in (False, True):
        before = account_credits(api)
        body = {"podcast_id": podcast_id, "script": script, "render": render}
        ack = assert_accepted(api.post("/v1/episodes/generate", json=body), podcast_id)
        assert account_credits(api)["held"] == pytest.approx(before["held"] + estimate, abs=0.01)
        episode, _ = wait_generation(api, ack["id"])
        assert episode["generation"]["state"] == "completed", episode["generation"]
        seconds = media_seconds(episode["audio_url"], "audio")
        if render:
            video = media_seconds(episode["video_url"], "video")
            assert abs(video - seconds) < 2.0, (video, seconds)
        else:
            assert episode["video_url"] is None
        after = account_credits(api)
        assert after["held"] == pytest.approx(before["held"])
        charge = before["total"] - after["total"]
        assert charge == pytest.approx(seconds / 60 * CREDITS_PER_MINUTE, abs=0.3), (
            charge,
            seconds,
            estimate,
        )
        assert after["balance"] == pytest.approx(before["balance"] - charge)
        charges.append(charge)
    assert charges[1] == pytest.approx(charges[0], abs=0.5)

    before = account_credits(api)
    response = api.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast_id,
            "prompt": "Talk about storms at sea [sandbox:fail] and how boats survive them",
            "options": {"episode_length_minutes": 1},
        },
    )
    ack = assert_accepted(response, podcast_id)
    assert account_credits(api)["held"] == pytest.approx(before["held"] + CREDITS_PER_MINUTE)
    episode, _ = wait_generation(api, ack["id"])
    generation = episode["generation"]
    assert generation["state"] == "failed", generation
    assert isinstance(generation.get("error_message"), str) and generation["error_message"]
    assert generation["completed_at"]
    assert episode["audio_url"] is None and episode["video_url"] is None
    assert episode["status"] == "draft"
    after = account_credits(api)
    assert after["held"] == pytest.approx(before["held"])
    charge = before["total"] - after["total"]
    assert 0 < charge < CREDITS_PER_MINUTE, charge
    assert after["balance"] == pytest.approx(before["balance"] - charge)
    assert api.get(f"/v1/episodes/{ack['id']}/timestamps").status_code == 404
    publish = api.post(f"/v1/episodes/{ack['id']}/publish")
    problem = assert_problem(publish, 422, "unprocessable_entity")
    assert "poll_after_seconds" not in problem["recovery"]  # polling will not make it publishable
    assert api.get(f"/v1/episodes/{ack['id']}").json()["data"]["status"] == "draft"


def test_a_creators_generation_does_not_wait_behind_the_seeded_demos_renders(
    sandbox_factory: Any, tmp_path: Path
) -> None:
    """A fresh sandbox renders its seeded media in the background; with two speech workers those
    renders take one, so an episode asked for meanwhile is made while they still queue. Its own
    empty render cache: from the run's shared one the demo's renders would be copied at once and
    none would be left to queue."""
    running: RunningSandbox = sandbox_factory(
        "--speed", "50", "--workers", "2", "--render-cache", str(tmp_path / "renders")
    )
    api = running.client(DEMO_KEY)
    hosts = make_hosts(api, "Lane")
    podcast_id = make_podcast(api, [hosts[0]["id"]])
    accepted = assert_accepted(
        api.post(
            "/v1/episodes/generate", json={"podcast_id": podcast_id, "script": tiny_script(hosts[0]["id"])}
        ),
        podcast_id,
    )
    episode, _seen = wait_generation(api, accepted["id"])
    assert episode["generation"]["state"] == "completed"
    with closing(sqlite3.connect(running.data_dir / "sandbox.sqlite3")) as db:
        seeded_left = db.execute(
            "SELECT COUNT(*) FROM jobs WHERE spec LIKE ?", ('%"seed_only": true%',)
        ).fetchone()[0]
    assert seeded_left > 0  # the demo's renders were still queued when ours was done
