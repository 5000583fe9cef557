"""Every public method of the client against a real sandbox over loopback, on the qasync loop.

Each answer is compared with the same endpoint read by a plain httpx client (the ground truth), so
nothing here is a hard-coded result. The module runs its own sandbox (seeded like the session one)
so that its writes (publishing, archiving, deleting) cannot disturb other test modules.
"""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from pydantic import BaseModel

from castdeck.api import (
    Accepted,
    BadRequestError,
    Client,
    ConflictError,
    ForbiddenError,
    InputValidationError,
    NotFoundError,
    UnauthorizedError,
    UnprocessableError,
    request_id_of,
)
from castdeck.api.models import (
    EpisodeCreate,
    EpisodeGenerateInput,
    EpisodeImportInput,
    EpisodeUpdate,
    HostCreate,
    HostUpdate,
    PodcastCreate,
    PodcastUpdate,
    ShortCreateInput,
    TextSourceCreate,
    VideoCreateInput,
    VoiceoverCreateInput,
)
from tests.conftest import DEMO_KEY, FREE_KEY, OTHER_KEY, RunningSandbox, start_sandbox
from tests.tls import SHARED_TLS

T = TypeVar("T")
FAIL = "[sandbox:fail]"


# --- fixtures and helpers -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSandbox]:
    running = start_sandbox(tmp_path_factory.mktemp("resources"), "--speed", "50", "--workers", "2")
    yield running
    running.stop()


class Truth:
    """The ground truth: one organization through plain httpx, off the event loop's thread."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    async def response(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await asyncio.to_thread(self.http.request, method, path, **kwargs)

    async def get(self, path: str, **params: Any) -> Any:
        return data(await self.response("GET", path, params=params or None))

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        return data(await self.response("POST", path, json=body))

    async def all(self, path: str, **params: Any) -> list[dict[str, Any]]:
        """Every item of a list, following Link headers."""
        items: list[dict[str, Any]] = []
        url: str | None = path
        query: dict[str, Any] | None = {"limit": 100, **params}
        while url:
            response = await self.response("GET", url, params=query)
            items.extend(data(response))
            url = response.links.get("next", {}).get("url")
            query = None
        return items


@pytest.fixture(scope="module")
def raw(box: RunningSandbox) -> Truth:
    return Truth(box.client(DEMO_KEY))


@pytest.fixture(scope="module")
def raw_other(box: RunningSandbox) -> Truth:
    return Truth(box.client(OTHER_KEY))


class Recorder(httpx.AsyncHTTPTransport):
    """The real network transport, keeping a note of every request that went out."""

    def __init__(self) -> None:
        super().__init__(verify=SHARED_TLS)
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await super().handle_async_request(request)

    def paths(self, method: str | None = None) -> list[str]:
        return [r.url.path for r in self.requests if method is None or r.method == method]


def make_client(box: RunningSandbox, key: str = DEMO_KEY) -> tuple[Client, Recorder]:
    recorder = Recorder()
    return Client(box.base_url, key, timeout=30.0, http_transport=recorder), recorder


def closed_port_url() -> str:
    """A loopback address where nothing listens: any request would be a connection error."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def data(response: httpx.Response) -> Any:
    assert response.status_code < 300, response.text
    return response.json()["data"]


VOLATILE = frozenset({"updated_at", "generation", "audio_url", "video_url", "duration", "rendered", "phase",
                      "progress_pct", "status", "published_at", "scheduled_at", "error", "generation_id",
                      "attempt"})  # fmt: skip
"""Fields background work (seeding, running jobs) may change between two reads."""


def assert_matches(
    model: BaseModel | dict[str, Any] | Any,
    expected: Any,
    where: str = "",
    ignore: frozenset[str] = frozenset(),
) -> None:
    """Every field the service sent is present with the same value (unknown ones included);
    ``ignore`` names top-level fields whose value may have moved on between the two reads."""
    actual = model.model_dump(mode="json") if isinstance(model, BaseModel) else model
    if isinstance(expected, dict):
        assert isinstance(actual, dict), (where, actual)
        for key, value in expected.items():
            if key in ignore:
                assert key in actual, f"{where}.{key} lost"
                continue
            assert key in actual, f"{where}.{key} lost (have {sorted(actual)})"
            assert_matches(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (where, actual, expected)
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_matches(a, e, f"{where}[{index}]")
    else:
        assert actual == expected, (where, actual, expected)


async def poll(fetch: Callable[[], Awaitable[T]], done: Callable[[T], bool], timeout: float = 60.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = await fetch()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"not done within {timeout} s: {value!r}"
        await asyncio.sleep(0.05)


async def collect(iterator: AsyncIterator[T]) -> list[T]:
    return [item async for item in iterator]


async def demo_podcast(raw: Truth) -> dict[str, Any]:
    return next(p for p in await raw.all("/v1/podcasts") if p["episode_count"] > 1)


async def active_hosts(raw: Truth) -> list[dict[str, Any]]:
    return await raw.all("/v1/hosts")


def expect_no_request(recorder: Recorder, before: int) -> None:
    assert len(recorder.requests) == before, [str(r.url) for r in recorder.requests[before:]]


# --- account ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_account_parses_keeps_extras_and_request_id(box: RunningSandbox, raw: Truth) -> None:
    expected = await raw.get("/v1/account")
    client, recorder = make_client(box)
    async with client:
        account = await client.account.get()
    assert account.organization_id == expected["organization_id"]
    assert account.plan == expected["plan"] == "creator"
    assert account.credits.balance == expected["credits"]["balance"]
    # unknown fields are kept: held/total on credits, the organization name and rates on the account
    assert account.credits.model_extra is not None and "held" in account.credits.model_extra
    assert account.credits.held == expected["credits"]["held"]  # type: ignore[attr-defined]
    assert account.credits.total == expected["credits"]["total"]  # type: ignore[attr-defined]
    assert account.model_extra is not None and account.model_extra["organization_name"] == "Demo Studio"
    assert_matches(account, expected)
    rid = request_id_of(account)
    assert rid and rid.startswith("req_")
    assert rid == recorder_response_id(client)
    assert recorder.paths() == ["/v1/account"]
    assert recorder.requests[0].headers["authorization"] == f"Bearer {DEMO_KEY}"


def recorder_response_id(client: Client) -> str | None:
    return client.last_request_id


# --- podcasts -----------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_podcasts_list_get_create_update_analytics(box: RunningSandbox, raw: Truth) -> None:
    hosts = await active_hosts(raw)
    client, recorder = make_client(box)
    async with client:
        # create: keyword arguments, then an input model
        made = await client.podcasts.create(
            title="Resource Test Show", host_ids=[hosts[0]["id"]], description="Plain text about tides."
        )
        assert isinstance(made.id, str) and uuid.UUID(made.id)
        assert made.title == "Resource Test Show"
        assert made.host_ids == [hosts[0]["id"]]
        assert made.description == "<p>Plain text about tides.</p>"
        assert made.episode_order == "serial" and made.visibility == "public"  # the service's defaults
        assert made.episode_count == 0
        assert request_id_of(made)
        second = await client.podcasts.create(
            PodcastCreate(
                title="Second Show", host_ids=[h["id"] for h in hosts[:2]], episode_order="episodic",
                visibility="private", language="fr",
            )
        )  # fmt: skip
        assert second.episode_order == "episodic" and second.visibility == "private"
        assert second.languages == ["fr"] and second.rss_feed_url is None and second.url is None
        assert second.host_ids == [h["id"] for h in hosts[:2]]

        # get matches the ground truth, extras included
        got = await client.podcasts.get(made.id)
        assert_matches(got, (await raw.get(f"/v1/podcasts/{made.id}")))
        assert request_id_of(got) and request_id_of(got) != request_id_of(made)

        # update: only the given fields change (keyword, then model)
        updated = await client.podcasts.update(made.id, title="Renamed Show")
        assert updated.title == "Renamed Show" and updated.host_ids == made.host_ids
        assert updated.description == made.description
        body = recorder.requests[-1].read()
        assert recorder.requests[-1].method == "PATCH" and body == b'{"title":"Renamed Show"}'
        updated = await client.podcasts.update(made.id, PodcastUpdate(visibility="unlisted"))
        assert updated.visibility == "unlisted" and updated.title == "Renamed Show"
        assert_matches(updated, (await raw.get(f"/v1/podcasts/{made.id}")))

        # list: every podcast once, newest first, over pages of 2
        start = len(recorder.requests)
        listed = await collect(client.podcasts.list(limit=2).__aiter__())
        expected = await raw.all("/v1/podcasts")
        assert [p.id for p in listed] == [p["id"] for p in expected]
        assert len({p.id for p in listed}) == len(listed) >= 4
        pages = len(recorder.requests) - start
        assert pages == -(-len(expected) // 2)  # the service says when a full page is the last
        assert all(request_id_of(p) for p in listed)
        assert listed[0].id == second.id and listed[1].id == made.id

        # analytics of a seeded podcast with published episodes
        show = await demo_podcast(raw)
        analytics = await client.podcasts.analytics(show["id"])
        expected_analytics = await raw.get(f"/v1/podcasts/{show['id']}/analytics")
        expected_analytics.pop("as_of")
        assert_matches(analytics, expected_analytics)
        assert analytics.podcast_id == show["id"] and request_id_of(analytics)


# --- episodes -----------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_episodes_list_filters_and_walks_pages_lazily(box: RunningSandbox, raw: Truth) -> None:
    client, recorder = make_client(box)
    expected = await raw.all("/v1/episodes")
    assert len(expected) >= 8
    async with client:
        # lazily: taking the first item reads one page only
        paginator = client.episodes.list(limit=2)
        assert recorder.requests == []  # nothing is read before iterating
        first = await paginator.to_list(limit=1)
        assert len(recorder.requests) == 1 and first[0].id == expected[0]["id"]
        assert recorder.requests[0].url.params["limit"] == "2"

        start = len(recorder.requests)
        episodes = await collect(client.episodes.list(limit=2).__aiter__())
        assert [e.id for e in episodes] == [e["id"] for e in expected]
        assert len(recorder.requests) - start >= len(expected) // 2  # many pages walked
        cursors = [r.url.params.get("cursor") for r in recorder.requests[start:]]
        assert cursors[0] is None and len(set(cursors[1:])) == len(cursors) - 1  # no page twice
        for model, want in zip(episodes, expected, strict=True):
            assert_matches(model, want, ignore=VOLATILE)
        # unknown fields are kept (the sandbox adds rendered and, with audio, duration)
        assert all(isinstance(e.model_extra, dict) and "rendered" in e.model_extra for e in episodes)
        with_audio = [(e, w) for e, w in zip(episodes, expected, strict=True) if "duration" in w]
        assert all(e.duration == w["duration"] for e, w in with_audio)  # the variant's numeric duration

        # pages() yields whole pages
        pages = [page async for page in client.episodes.list(limit=3).pages()]
        assert [len(p.items) for p in pages[:-1]] == [3] * (len(pages) - 1)
        assert sum(len(p.items) for p in pages) == len(expected)
        assert all(p.request_id for p in pages) and not pages[-1].has_more

        # filters reach the service
        show = await demo_podcast(raw)
        by_podcast = await client.episodes.list(podcast_id=show["id"], limit=2).to_list()
        assert [e.id for e in by_podcast] == [
            e["id"] for e in await raw.all("/v1/episodes", podcast_id=show["id"])
        ]
        assert by_podcast and all(e.podcast_id == show["id"] for e in by_podcast)
        assert recorder.requests[-1].url.params["podcast_id"] == show["id"]
        for status in ("published", "draft", "scheduled"):
            by_status = await client.episodes.list(status=status, limit=2).to_list()
            want = [e["id"] for e in await raw.all("/v1/episodes", status=status)]
            assert [e.id for e in by_status] == want and want, status
            assert all(e.status == status for e in by_status)


@pytest.mark.asyncio
async def test_episode_create_get_update_delete(box: RunningSandbox, raw: Truth) -> None:
    show = await demo_podcast(raw)
    client, recorder = make_client(box)
    async with client:
        draft = await client.episodes.create(
            podcast_id=show["id"], title="Empty draft", description="To fill."
        )
        assert draft.podcast_id == show["id"] and draft.status == "draft" and draft.generation is None
        assert draft.title == "Empty draft" and draft.description == "To fill."
        assert draft.host_ids == show["host_ids"]  # the podcast's hosts when none are given
        assert draft.model_extra is not None and draft.model_extra["rendered"] is False
        assert request_id_of(draft)
        other = await client.episodes.create(
            EpisodeCreate(
                podcast_id=uuid.UUID(show["id"]), title="Model draft", image="https://example.org/c.png"
            )
        )
        assert other.image_url == "https://example.org/c.png" and other.title == "Model draft"

        got = await client.episodes.get(draft.id)
        assert_matches(got, (await raw.get(f"/v1/episodes/{draft.id}")))

        changed = await client.episodes.update(draft.id, title="Renamed draft")
        assert changed.title == "Renamed draft" and changed.description == "To fill."
        cleared = await client.episodes.update(draft.id, EpisodeUpdate(description=None))
        assert cleared.description is None and cleared.title == "Renamed draft"
        assert recorder.requests[-1].read() == b'{"description":null}'  # an explicit null is sent
        assert_matches(cleared, (await raw.get(f"/v1/episodes/{draft.id}")))

        # an empty draft has no audio: timestamps are a typed 404, publishing a typed 422
        with pytest.raises(NotFoundError) as missing:
            await client.episodes.timestamps(draft.id)
        assert missing.value.status == 404 and missing.value.request_id
        with pytest.raises(UnprocessableError) as never_rendered:
            await client.episodes.publish(draft.id)
        assert never_rendered.value.recovery is not None
        assert never_rendered.value.recovery.poll_after_seconds is None

        for episode in (draft, other):
            assert await client.episodes.delete(episode.id) is None
            with pytest.raises(NotFoundError):
                await client.episodes.get(episode.id)
        assert recorder.paths("DELETE") == [f"/v1/episodes/{draft.id}", f"/v1/episodes/{other.id}"]


@pytest.mark.asyncio
async def test_generate_render_publish_schedule_unpublish(box: RunningSandbox, raw: Truth) -> None:
    show = await demo_podcast(raw)
    client, recorder = make_client(box)
    async with client:
        accepted = await client.episodes.generate(
            podcast_id=show["id"],
            prompt="A one-minute chat about why the sea is salty.",
            options={"episode_length_minutes": 1},
            render=True,
        )
        assert isinstance(accepted, Accepted)
        assert accepted.data.status == "generating" and accepted.data.podcast_id == show["id"]
        assert accepted.data.workflow_run_id
        # the key was made here, sent, and handed back
        assert accepted.idempotency_key and accepted.idempotency_key.isprintable()
        assert recorder.requests[-1].headers["idempotency-key"] == accepted.idempotency_key
        assert accepted.location == f"/v1/episodes/{accepted.data.id}"
        assert accepted.retry_after is not None and accepted.retry_after >= 0
        assert accepted.request_id == request_id_of(accepted.data)

        # publishing while generation runs: 422 with a poll hint
        with pytest.raises(UnprocessableError) as busy:
            await client.episodes.publish(accepted.data.id)
        assert busy.value.status == 422 and busy.value.recovery is not None
        assert (
            busy.value.recovery.poll_after_seconds is not None and busy.value.recovery.poll_after_seconds >= 0
        )
        assert busy.value.recovery.action == "poll_content" and busy.value.request_id

        episode = await poll(
            lambda: client.episodes.get(accepted.data.id),
            lambda e: e.generation is not None and e.generation.state != "generating",
            timeout=90,
        )
        assert episode.generation is not None and episode.generation.state == "completed", episode
        assert episode.status == "draft" and episode.audio_url and episode.video_url
        assert episode.model_extra is not None and episode.model_extra["rendered"] is True
        assert isinstance(episode.duration, float) and episode.duration > 10

        # timestamps and subtitles
        stamps = await client.episodes.timestamps(episode.id)
        assert_matches(stamps, (await raw.get(f"/v1/episodes/{episode.id}/timestamps")))
        assert stamps.episode_id == episode.id and stamps.words and stamps.speakers
        assert all(w.end >= w.start for w in stamps.words) and request_id_of(stamps)
        srt = await client.episodes.subtitles(episode.id, "srt")
        assert (
            srt
            == (
                await raw.response("GET", f"/v1/episodes/{episode.id}/timestamps", params={"format": "srt"})
            ).text
        )
        assert srt.startswith("1\n") and " --> " in srt and "," in srt.split("\n")[1]
        vtt = await client.episodes.subtitles(episode.id, "vtt")
        assert vtt.startswith("WEBVTT\n") and " --> " in vtt
        assert recorder.requests[-1].url.params["format"] == "vtt"
        assert recorder.requests[-1].headers["accept"] == "text/vtt"
        with pytest.raises(ValueError):
            await client.episodes.subtitles(episode.id, "txt")  # type: ignore[arg-type]

        # schedule, unpublish, publish now, unpublish
        when = datetime.now(UTC) + timedelta(days=2)
        scheduled = await client.episodes.publish(episode.id, scheduled_time=when)
        assert scheduled.status == "scheduled" and scheduled.id == episode.id and scheduled.scheduled_time
        assert abs(datetime.fromisoformat(scheduled.scheduled_time) - when) < timedelta(seconds=1)
        assert request_id_of(scheduled)
        again = await client.episodes.get(episode.id)
        assert again.status == "scheduled" and again.scheduled_at == scheduled.scheduled_time
        listed = await client.episodes.list(status="scheduled").to_list()
        assert episode.id in {e.id for e in listed}

        draft = await client.episodes.unpublish(episode.id)
        assert draft.status == "draft" and draft.scheduled_at is None and request_id_of(draft)
        published = await client.episodes.publish(episode.id)
        assert published.status == "published" and published.scheduled_time is None
        assert recorder.requests[-1].read() == b""  # publish now sends no body
        now_published = await client.episodes.get(episode.id)
        assert now_published.status == "published" and now_published.published_at
        with pytest.raises(UnprocessableError):
            await client.episodes.publish(episode.id)  # already published
        analytics = await client.episodes.analytics(episode.id)
        expected = await raw.get(f"/v1/episodes/{episode.id}/analytics")
        expected.pop("as_of")
        assert_matches(analytics, expected)
        assert analytics.episode_id == episode.id and request_id_of(analytics)
        back = await client.episodes.unpublish(episode.id)
        assert back.status == "draft" and back.published_at is None
        with pytest.raises(UnprocessableError):
            await client.episodes.unpublish(episode.id)  # a draft cannot be unpublished


@pytest.mark.asyncio
async def test_generate_idempotency_and_failure(box: RunningSandbox, raw: Truth) -> None:
    show = await demo_podcast(raw)
    client, recorder = make_client(box)
    async with client:
        body = {"podcast_id": show["id"], "prompt": f"A short piece that will fail. {FAIL}",
                "options": {"episode_length_minutes": 1}}  # fmt: skip
        first = await client.episodes.generate(**body)
        key = first.idempotency_key
        assert key
        # the same key and body: the same episode, no second generation
        again = await client.episodes.generate(EpisodeGenerateInput.model_validate(body), idempotency_key=key)
        assert again.idempotency_key == key and again.data.id == first.data.id
        assert again.data.workflow_run_id == first.data.workflow_run_id
        assert [r.headers["idempotency-key"] for r in recorder.requests[-2:]] == [key, key]
        # no key given: a fresh one each call, so a new episode
        other = await client.episodes.generate(**{**body, "prompt": "Another short piece about tides."})
        assert other.idempotency_key not in (None, key) and other.data.id != first.data.id
        # the same key with other input: 409
        with pytest.raises(ConflictError) as conflict:
            await client.episodes.generate(
                **{**body, "prompt": "A different prompt entirely."}, idempotency_key=key
            )
        assert conflict.value.status == 409 and conflict.value.request_id

        failed = await poll(
            lambda: client.episodes.get(first.data.id),
            lambda e: e.generation is not None and e.generation.state != "generating",
            timeout=90,
        )
        assert failed.generation is not None and failed.generation.state == "failed"
        assert failed.generation.error_message and failed.audio_url is None
        assert failed.status == "draft"


@pytest.mark.asyncio
async def test_import_script(box: RunningSandbox, raw: Truth) -> None:
    show = await demo_podcast(raw)
    hosts = await active_hosts(raw)
    named, other = hosts[0], hosts[1]
    client, recorder = make_client(box)
    script = (
        f"[{named['name']}]\nWelcome to a very short imported episode.\n\n[Guest]\nThanks for having me.\n"
    )
    async with client:
        # an unmatched label: 422 naming it, nothing created
        before = await raw.all("/v1/episodes")
        with pytest.raises(UnprocessableError) as unresolved:
            await client.episodes.import_script(podcast_id=show["id"], script=script)
        assert unresolved.value.reason == "unresolved_speakers"
        assert unresolved.value.speakers == ["Guest"] and unresolved.value.request_id
        assert len(await raw.all("/v1/episodes")) == len(before)
        assert recorder.requests[-1].headers["idempotency-key"]

        # assigning the label to a host resolves it (input model with an explicit key)
        accepted = await client.episodes.import_script(
            EpisodeImportInput.model_validate(
                {"podcast_id": show["id"], "script": script,
                 "speaker_characters": [{"character_id": other["id"], "label": "Guest"}]}
            ),
            idempotency_key="import-test-key-1",
        )  # fmt: skip
        assert accepted.idempotency_key == "import-test-key-1"
        assert recorder.requests[-1].headers["idempotency-key"] == "import-test-key-1"
        assert accepted.data.status == "generating"
        assert set(accepted.data.host_ids or []) == {named["id"], other["id"]}
        episode = await poll(
            lambda: client.episodes.get(accepted.data.id),
            lambda e: e.generation is not None and e.generation.state != "generating",
            timeout=90,
        )
        assert episode.generation is not None and episode.generation.state == "completed"
        assert episode.podcast_id == show["id"]


# --- hosts and voices ---------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_hosts_crud(box: RunningSandbox, raw: Truth) -> None:
    voices = await raw.all("/v1/voices")
    client, recorder = make_client(box)
    async with client:
        host = await client.hosts.create(
            name="Test Host", backstory="A test host with a short but valid backstory.", voice_id=voices[0]["id"],
            title="Tester",
        )  # fmt: skip
        assert host.name == "Test Host" and host.title == "Tester" and host.voice_id == voices[0]["id"]
        assert host.backstory == "<p>A test host with a short but valid backstory.</p>"
        assert host.voice is not None and host.voice.id == voices[0]["id"]
        assert host.model_extra is not None and "is_guest" in host.model_extra  # kept
        assert request_id_of(host)
        second = await client.hosts.create(
            HostCreate(name="Model Host", backstory="Another valid backstory here.", voice_id=voices[1]["id"],
                       is_guest=True)
        )  # fmt: skip
        assert second.model_extra is not None and second.model_extra["is_guest"] is True

        assert_matches(await client.hosts.get(host.id), (await raw.get(f"/v1/hosts/{host.id}")))
        changed = await client.hosts.update(host.id, personality="Cheerful and quick.")
        assert changed.personality == "Cheerful and quick." and changed.name == "Test Host"
        changed = await client.hosts.update(host.id, HostUpdate(voice_id=voices[2]["id"]))
        assert changed.voice_id == voices[2]["id"] and changed.personality == "Cheerful and quick."

        listed = await client.hosts.list(limit=2).to_list()
        assert [h.id for h in listed] == [h["id"] for h in await raw.all("/v1/hosts")]
        assert {host.id, second.id} <= {h.id for h in listed}
        assert len(recorder.paths("GET")) >= 1 + len(listed) // 2

        assert await client.hosts.delete(second.id) is None
        archived = await client.hosts.get(second.id)  # archived hosts stay readable
        assert archived.model_extra is not None and archived.model_extra["archived"] is True
        assert second.id not in {h.id for h in await client.hosts.list().to_list()}
        with pytest.raises(UnprocessableError):
            await client.hosts.update(second.id, name="Too late")


@pytest.mark.asyncio
async def test_voices_list_and_filters(box: RunningSandbox, raw: Truth) -> None:
    client, recorder = make_client(box)
    async with client:
        voices = await client.voices.list(limit=7).to_list()
        expected = await raw.all("/v1/voices")
        assert [v.id for v in voices] == [v["id"] for v in expected]
        assert all(isinstance(v.id, int) for v in voices) and len(recorder.requests) >= 4
        for model, want in zip(voices, expected, strict=True):
            assert_matches(model, want)
        for name, value in (("language", "en"), ("gender", "female"), ("voice_type", "professional")):
            filtered = await client.voices.list(**{name: value}).to_list()
            want_ids = [v["id"] for v in await raw.all("/v1/voices", **{name: value})]
            assert [v.id for v in filtered] == want_ids and 0 < len(want_ids) < len(expected), name
            assert all(getattr(v, name) == value for v in filtered)
            assert recorder.requests[-1].url.params[name] == value
        both = await client.voices.list(language="en", gender="male", voice_type="professional").to_list()
        want = await raw.all("/v1/voices", language="en", gender="male", voice_type="professional")
        assert [v.id for v in both] == [v["id"] for v in want]


# --- sources ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_sources(box: RunningSandbox, raw: Truth, tmp_path: Path) -> None:
    client, recorder = make_client(box)
    async with client:
        text = await client.sources.create(type="TEXT", content="Tides rise twice a day.", title="Tide note")
        assert (
            text.type == "text" and text.title == "Tide note" and text.status in ("processing", "completed")
        )
        assert request_id_of(text)
        assert recorder.requests[-1].read().startswith(b'{"type":"text"')  # lowercased before sending
        url = await client.sources.create(type="url", url="https://example.org/tides")
        assert url.type == "url"
        modelled = await client.sources.create(TextSourceCreate(type="text", content="Model content."))
        assert modelled.type == "text"

        done = await poll(lambda: client.sources.get(text.id), lambda s: s.status != "processing")
        assert done.status == "completed" and done.metadata
        assert_matches(done, (await raw.get(f"/v1/sources/{text.id}")))

        listed = await client.sources.list(limit=2).to_list()
        assert [s.id for s in listed] == [s["id"] for s in await raw.all("/v1/sources")]
        assert {text.id, url.id, modelled.id} <= {s.id for s in listed}

        # complete-upload: a slot filled with plain httpx, then completed through the client
        content = b"Notes from the harbour master.\n"
        reservation = {"file_name": "notes.txt", "mime_type": "text/plain", "size_bytes": len(content)}
        slot = await raw.post("/v1/sources/uploads", reservation)
        source_id = slot["source"]["id"]
        with pytest.raises(UnprocessableError):  # nothing uploaded yet
            await client.sources.complete_upload(source_id)
        put = await asyncio.to_thread(  # a bare request: signed addresses get no key
            httpx.request, slot["upload"]["method"], slot["upload"]["url"], content=content,
            headers=slot["upload"]["headers"],
        )  # fmt: skip
        assert put.status_code < 300, put.text
        completed = await client.sources.complete_upload(source_id)
        assert completed.id == source_id and completed.status in ("processing", "completed")
        assert recorder.requests[-1].url.path == f"/v1/sources/{source_id}/complete-upload"
        seeded = next(s for s in listed if s.status == "completed" and s.type == "upload")
        current = await client.sources.complete_upload(seeded.id)  # already done: its current record
        assert current.status == "completed" and current.id == seeded.id

        for source in (text, url, modelled):
            assert await client.sources.delete(source.id) is None
            with pytest.raises(NotFoundError):
                await client.sources.get(source.id)
        episodes = await raw.all("/v1/episodes")
        used = next(s for s in listed if any(s.id in (e.get("source_ids") or []) for e in episodes))
        with pytest.raises(UnprocessableError):
            await client.sources.delete(used.id)


# --- videos, shorts, voiceovers -----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("collection", ["videos", "shorts", "voiceovers"])
async def test_media_options_list_get_status_download(
    box: RunningSandbox, raw: Truth, collection: str
) -> None:
    client, recorder = make_client(box)
    resource = getattr(client, collection)
    async with client:
        options = await resource.options()
        assert_matches(options, (await raw.get(f"/v1/{collection}/options")))
        assert options.supported_duration_seconds and request_id_of(options)
        assert (options.styles == []) == (collection == "voiceovers")

        items = await resource.list(limit=2).to_list()
        expected = await raw.all(f"/v1/{collection}")
        assert [m.id for m in items] == [m["id"] for m in expected] and len(items) >= 4
        assert len(recorder.paths("GET")) >= 1 + len(items) // 2
        assert all(m.object == collection[:-1] for m in items)
        for model, want in zip(items, expected, strict=True):
            assert_matches(model, want, ignore=VOLATILE)
        assert all(m.model_extra is not None and "host_ids" in m.model_extra for m in items)  # extras kept

        completed = next(m for m in items if m.status == "completed")
        got = await resource.get(completed.id)
        assert_matches(got, (await raw.get(f"/v1/{collection}/{completed.id}")))
        assert request_id_of(got)
        status = await resource.status(completed.id)
        assert_matches(status, (await raw.get(f"/v1/{collection}/{completed.id}/status")))
        assert status.status == "completed" and status.poll_after_seconds == 0
        assert status.model_extra is not None and "progress_pct" in status.model_extra
        download = await poll(  # seeded files are rendered in the background after start
            lambda: resource.download(completed.id), lambda d: d.delivery.kind == "available", timeout=60
        )
        assert download.id == completed.id and download.delivery.kind == "available"
        assert download.delivery.url and download.delivery.origin == "storage" and request_id_of(download)

        failed = next(m for m in items if m.status == "failed")
        assert (await resource.download(failed.id)).delivery.kind == "unavailable"
        assert (await resource.status(failed.id)).error == failed.error and failed.error
        with pytest.raises(UnprocessableError):
            await resource.retry(completed.id)  # only failed or idle jobs can be retried


@pytest.mark.asyncio
async def test_short_create_completes_and_downloads(box: RunningSandbox, raw: Truth) -> None:
    client, recorder = make_client(box)
    async with client:
        accepted = await client.shorts.create(
            prompt="Why the moon pulls the tides, in thirty seconds.",
            target_duration_seconds=30,
            style_id="story",
        )
        job = accepted.data
        assert job.object == "short" and job.status == "generating" and job.target_duration_seconds == 30
        assert job.style_id == "story" and accepted.location == f"/v1/shorts/{job.id}/status"
        assert accepted.retry_after is not None and accepted.idempotency_key
        assert recorder.requests[-1].headers["idempotency-key"] == accepted.idempotency_key
        # the same key and body replays the acceptance (same job)
        replay = await client.shorts.create(
            ShortCreateInput(prompt="Why the moon pulls the tides, in thirty seconds.", target_duration_seconds=30,
                             style_id="story"),
            idempotency_key=accepted.idempotency_key,
        )  # fmt: skip
        assert replay.data.id == job.id and replay.idempotency_key == accepted.idempotency_key

        status = await poll(
            lambda: client.shorts.status(job.id), lambda s: s.status != "generating", timeout=90
        )
        assert status.status == "completed", status
        download = await poll(
            lambda: client.shorts.download(job.id), lambda d: d.delivery.kind != "preparing", timeout=30
        )
        assert download.delivery.kind == "available" and download.delivery.url
        fetched = await client.transport.signed_client.get(download.delivery.url)
        assert fetched.status_code == 200 and fetched.content[4:8] == b"ftyp"  # an MP4
        got = await client.shorts.get(job.id)
        assert (
            got.status == "completed"
            and got.model_extra is not None
            and "duration_seconds" in got.model_extra
        )


@pytest.mark.asyncio
async def test_video_and_voiceover_fail_then_retry_with_new_keys(box: RunningSandbox, raw: Truth) -> None:
    visual = next(
        s for s in await raw.all("/v1/sources")
        if s["status"] == "completed" and (s.get("metadata") or {}).get("prepare_visuals")
    )  # fmt: skip
    client, recorder = make_client(box)
    async with client:
        video = await client.videos.create(
            VideoCreateInput(prompt=f"A video that fails on purpose. {FAIL}", target_duration_seconds=300)
        )
        assert video.data.object == "video" and video.data.target_duration_seconds == 300
        voiceover = await client.voiceovers.create(
            source_ids=[visual["id"]], direction=f"Narrate the diagram. {FAIL}", captions_enabled=True
        )
        assert voiceover.data.object == "voiceover" and voiceover.idempotency_key != video.idempotency_key
        assert voiceover.data.model_extra is not None
        assert voiceover.data.model_extra["source_ids"] == [visual["id"]]
        assert voiceover.data.model_extra["captions_enabled"] is True
        again = await client.voiceovers.create(
            VoiceoverCreateInput.model_validate(
                {
                    "source_ids": [visual["id"]],
                    "direction": f"Narrate the diagram. {FAIL}",
                    "captions_enabled": True,
                }
            ),
            idempotency_key=voiceover.idempotency_key,
        )
        assert again.data.id == voiceover.data.id
        with pytest.raises(ConflictError):
            await client.voiceovers.create(
                source_ids=[visual["id"]],
                direction="Something else.",
                idempotency_key=voiceover.idempotency_key,
            )

        for resource, accepted in ((client.videos, video), (client.voiceovers, voiceover)):
            final = await poll(lambda r=resource, a=accepted: r.status(a.data.id), lambda s: s.status != "generating",
                               timeout=90)  # fmt: skip
            assert final.status == "failed" and final.error, final
            retried = await resource.retry(accepted.data.id)
            assert retried.data.id == accepted.data.id and retried.data.status == "generating"
            assert retried.idempotency_key and retried.idempotency_key != accepted.idempotency_key
            assert retried.location == f"/v1/{resource.collection}/{accepted.data.id}/status"
            sent = recorder.requests[-1]
            assert (
                sent.url.path.endswith("/retry")
                and sent.headers["idempotency-key"] == retried.idempotency_key
            )
            preparing = await resource.download(accepted.data.id)  # a running attempt: nothing to fetch yet
            assert preparing.delivery.kind == "preparing" and preparing.delivery.reason == "rendition"
            assert preparing.delivery.url is None
            # a second call makes a new key: the service sees a new attempt (refused: already generating)
            with pytest.raises(UnprocessableError):
                await resource.retry(accepted.data.id)
            assert recorder.requests[-1].headers["idempotency-key"] != retried.idempotency_key
            # resending the first key replays the first acceptance
            replay = await resource.retry(accepted.data.id, idempotency_key=retried.idempotency_key)
            assert replay.data.id == accepted.data.id and replay.idempotency_key == retried.idempotency_key
            assert replay.data.generation_id == retried.data.generation_id


# --- errors from the service --------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_service_errors_are_typed(box: RunningSandbox, raw: Truth, raw_other: Truth) -> None:
    foreign = {
        "podcasts": (await raw_other.get("/v1/podcasts"))[0]["id"],
        "episodes": (await raw_other.get("/v1/episodes"))[0]["id"],
        "hosts": (await raw_other.get("/v1/hosts"))[0]["id"],
    }
    client, _ = make_client(box)
    async with client:
        for name, call in (
            ("podcasts", client.podcasts.get),
            ("podcasts", client.podcasts.analytics),
            ("episodes", client.episodes.get),
            ("episodes", client.episodes.analytics),
            ("hosts", client.hosts.get),
        ):
            with pytest.raises(NotFoundError) as not_found:
                await call(foreign[name])
            assert not_found.value.status == 404 and not_found.value.request_id, name
            assert not_found.value.title
        for resource in (client.videos, client.shorts, client.voiceovers, client.sources):
            with pytest.raises(NotFoundError):
                await resource.get(str(uuid.uuid4()))

        # a server-side rule: an unknown host id, named per field
        with pytest.raises(BadRequestError) as bad:
            await client.podcasts.create(title="No such host", host_ids=["deadbeef"])
        assert bad.value.status == 400 and "host_ids.0" in bad.value.fields
        assert "deadbeef" in bad.value.errors[0].message and bad.value.request_id
        with pytest.raises(BadRequestError) as bad_style:
            await client.videos.create(prompt="A video in a style that does not exist.", style_id="baroque")
        assert "style_id" in bad_style.value.fields

    async with Client(box.base_url, "sk_not_a_real_key") as stranger:
        with pytest.raises(UnauthorizedError) as unauthorized:
            await stranger.account.get()
        assert unauthorized.value.status == 401 and unauthorized.value.request_id
    async with Client(box.base_url, FREE_KEY) as free:
        with pytest.raises(ForbiddenError) as forbidden:
            await free.account.get()
        assert forbidden.value.status == 403 and forbidden.value.request_id
        with pytest.raises(ForbiddenError):
            await free.podcasts.list().to_list()


# --- input errors, before any request -----------------------------------------------------------------------

PODCAST = str(uuid.uuid4())
BAD_INPUTS: list[tuple[str, Callable[[Client], Awaitable[Any]], str, str]] = [
    ("podcast title too long", lambda c: c.podcasts.create(title="x" * 101, host_ids=["a"]), "title", "100"),
    ("podcast without hosts", lambda c: c.podcasts.create(title="t", host_ids=[]), "host_ids", "at least 1"),
    ("podcast unknown field", lambda c: c.podcasts.create(title="t", host_ids=["a"], bogus=1), "bogus",
     "unknown field"),
    ("podcast id not a uuid", lambda c: c.podcasts.get("not-a-uuid"), "podcast_id", "UUID"),
    ("podcast update null", lambda c: c.podcasts.update(PODCAST, title=None), "title", "cannot be null"),
    ("podcast analytics bad id", lambda c: c.podcasts.analytics("x/y"), "podcast_id", "UUID"),
    ("podcast list limit", lambda c: c.podcasts.list(limit=0).to_list(), "limit", "greater than or equal to 1"),
    ("episode list limit", lambda c: c.episodes.list(limit=101).to_list(), "limit", "less than or equal to 100"),
    ("episode list podcast", lambda c: c.episodes.list(podcast_id="nope").to_list(), "podcast_id", "UUID"),
    ("episode create", lambda c: c.episodes.create(podcast_id=PODCAST, title=""), "title", "at least 1"),
    ("episode update", lambda c: c.episodes.update(PODCAST, title="t" * 256), "title", "255"),
    ("episode get", lambda c: c.episodes.get("123"), "episode_id", "UUID"),
    ("generate prompt short", lambda c: c.episodes.generate(podcast_id=PODCAST, prompt="short"), "prompt", "10"),
    ("generate length", lambda c: c.episodes.generate(
        podcast_id=PODCAST, prompt="A long enough prompt.", options={"episode_length_minutes": 0}),
     "options.episode_length_minutes", "greater than or equal to 1"),
    ("import empty", lambda c: c.episodes.import_script(podcast_id=PODCAST, script=""), "script", "at least 1"),
    ("publish naive time", lambda c: c.episodes.publish(PODCAST, scheduled_time=datetime(2030, 1, 1)),
     "scheduled_time", "timezone"),
    ("delete bad id", lambda c: c.episodes.delete("nope"), "episode_id", "UUID"),
    ("timestamps bad id", lambda c: c.episodes.timestamps("nope"), "episode_id", "UUID"),
    ("host backstory", lambda c: c.hosts.create(name="A", backstory="short", voice_id=1), "backstory", "10"),
    ("host voice id type", lambda c: c.hosts.create(name="A", backstory="long enough text", voice_id="1001"),
     "voice_id", "integer"),
    ("host update null", lambda c: c.hosts.update("abcd1234", name=None), "name", "cannot be null"),
    ("host id with slash", lambda c: c.hosts.delete("a/b"), "host_id", "'/'"),
    ("voice language", lambda c: c.voices.list(language="eng").to_list(), "language", "pattern"),
    ("voice gender", lambda c: c.voices.list(gender="robot").to_list(), "gender", "'male'"),
    ("voice type", lambda c: c.voices.list(voice_type="cloned").to_list(), "voice_type", "'clone'"),
    ("source type", lambda c: c.sources.create(type="ftp", url="ftp://x"), "type", "url, youtube or text"),
    ("source url", lambda c: c.sources.create(type="url", url="not a url"), "url", "absolute URI"),
    ("source get", lambda c: c.sources.get("a?b"), "source_id", "'?'"),
    ("video duration", lambda c: c.videos.create(prompt="p", target_duration_seconds=123),
     "target_duration_seconds", "300"),
    ("video hosts", lambda c: c.videos.create(prompt="p", host_id="a", host_ids=["b"]), "host_ids", "not both"),
    ("short prompt blank", lambda c: c.shorts.create(prompt="   "), "prompt", "blank"),
    ("short duration", lambda c: c.shorts.create(prompt="p", target_duration_seconds=45),
     "target_duration_seconds", "30, 60"),
    ("voiceover no sources", lambda c: c.voiceovers.create(source_ids=[]), "source_ids", "at least 1"),
    ("voiceover prompt", lambda c: c.voiceovers.create(source_ids=[PODCAST], prompt="p"), "prompt",
     "unknown field"),
    ("media id", lambda c: c.videos.status("a#b"), "media_id", "'#'"),
    ("media retry id", lambda c: c.shorts.retry(""), "media_id", "non-empty"),
]  # fmt: skip


@pytest.mark.asyncio
async def test_invalid_input_raises_before_any_request(box: RunningSandbox) -> None:
    client, recorder = make_client(box)
    offline = Client(closed_port_url(), DEMO_KEY)
    async with client, offline:
        await client.account.get()
        last = client.last_request_id
        for label, call, field, rule in BAD_INPUTS:
            for target in (client, offline):  # a closed port would give a connection error instead
                with pytest.raises(InputValidationError) as caught:
                    await call(target)
                assert field in caught.value.fields, (label, caught.value.errors)
                message = next(e.message for e in caught.value.errors if e.field == field)
                assert rule in message, (label, str(caught.value))
            expect_no_request(recorder, 1)
        assert client.last_request_id == last


@pytest.mark.asyncio
async def test_keyword_and_model_styles_cannot_be_mixed(box: RunningSandbox) -> None:
    client, recorder = make_client(box)
    async with client:
        model = PodcastCreate(title="t", host_ids=["a"])
        with pytest.raises(TypeError):
            await client.podcasts.create(model, title="other")
        with pytest.raises(TypeError):
            await client.podcasts.create(HostCreate(name="n", backstory="backstory!", voice_id=1))  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            await client.episodes.generate(
                EpisodeGenerateInput(podcast_id=uuid.uuid4(), prompt="A long enough prompt."), prompt="x" * 20
            )
        with pytest.raises(TypeError):
            await client.shorts.create(ShortCreateInput(prompt="p"), prompt="q")
        # an input model of another collection is refused, never sent to the wrong endpoint
        with pytest.raises(TypeError):
            await client.shorts.create(VideoCreateInput(prompt="a video prompt"))
        with pytest.raises(TypeError):
            await client.voiceovers.create(ShortCreateInput(prompt="a short prompt"))
        with pytest.raises(TypeError):
            await client.videos.create(VoiceoverCreateInput(source_ids=[uuid.uuid4()]))
        with pytest.raises(TypeError):
            await client.sources.create(HostCreate(name="n", backstory="backstory!", voice_id=1))  # type: ignore[arg-type]
    assert recorder.requests == []


# --- the base URL and the client's repr ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["https://api.example.com", "https://api.example.com/", "http://localhost:8000", "http://127.0.0.1:9",
     "http://[::1]:8080", "https://10.0.0.5/base"],
)  # fmt: skip
def test_base_url_accepted(url: str) -> None:
    client = Client(url, "sk_live_secret_value")
    assert client.base_url == url.rstrip("/")
    assert client.transport.base_url == url.rstrip("/")


@pytest.mark.parametrize(
    "url",
    ["http://api.example.com", "http://10.0.0.5:8000", "http://localhost.evil.com", "ftp://api.example.com",
     "api.example.com", "", "https://", "not a url", "file:///etc/passwd", "ws://127.0.0.1"],
)  # fmt: skip
def test_base_url_refused(url: str) -> None:
    with pytest.raises(ValueError):
        Client(url, "sk_live_secret_value")


@pytest.mark.asyncio
async def test_repr_never_shows_the_key(box: RunningSandbox) -> None:
    key = "sk_live_do_not_print_me"
    async with Client("https://api.example.com", key) as client:
        for text in (repr(client), str(client), repr(client.transport), repr(client.episodes)):
            assert key not in text
        assert "api.example.com" in repr(client)
        assert key not in repr(vars(client))
    async with Client(box.base_url, DEMO_KEY) as client:
        account = await client.account.get()
        assert DEMO_KEY not in repr(client) and DEMO_KEY not in repr(account)
