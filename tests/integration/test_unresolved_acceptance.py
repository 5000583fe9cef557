"""A slow acceptance plus a lost answer (spec 4.6 and 7): "an idempotency conflict whose
acceptance is unresolved is 409 and names the resource ID; do not create again under a new key".

The sandbox's ``--accept-hold SECONDS`` keeps each keyed generation write unresolved before it
answers; a resend under the key meanwhile is answered 409 ``poll_content`` and that answer ends
the hold. The holds here are long (30 s) so that only the resend ends them: nothing waits on the
machine's speed. Each test runs its own sandbox as Northwind Audio, which nothing else charges.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from castdeck.api import Client, ConflictError
from tests.conftest import OTHER_KEY, RunningSandbox, assert_problem, wait_for
from tests.integration.test_generation import (
    CREDITS_PER_MINUTE,
    account_credits,
    assert_accepted,
    episode_ids,
    make_hosts,
    make_podcast,
    tiny_script,
    wait_generation,
)
from tests.tls import SHARED_TLS

Factory = Callable[..., RunningSandbox]
HOLD = ("--speed", "50", "--accept-hold", "30", "--no-seed-media")
GENERATE = "/v1/episodes/generate"
# The spec's rates (part 1): a 300-second Video narrates 5 minutes over 10 images and 3 clips.
VIDEO_300_CREDITS = 5 * CREDITS_PER_MINUTE + 10 * 7 + 3 * 20
SHORT_EPISODE_CREDITS = 0.1 * CREDITS_PER_MINUTE


def start(factory: Factory, *extra: str) -> tuple[RunningSandbox, httpx.Client]:
    running = factory(*HOLD, *extra)
    return running, running.client(OTHER_KEY)


def short_episode(api: httpx.Client) -> dict[str, Any]:
    """A script-mode episode of one short line: the sandbox estimates it at its minimum, 0.1 minute."""
    hosts = make_hosts(api, "Holden")
    podcast_id = make_podcast(api, [hosts[0]["id"]])
    return {
        "podcast_id": podcast_id,
        "script": tiny_script(hosts[0]["id"], "Lighthouses kept ships off the rocks."),
    }


def elsewise(body: dict[str, Any]) -> dict[str, Any]:
    """The same request with other input."""
    return {**body, "script": tiny_script(body["script"]["chapters"][0]["segments"][0]["host_id"], "Other.")}


def send(api: httpx.Client, path: str, body: dict[str, Any], key: str) -> httpx.Response:
    return api.post(path, json=body, headers={"Idempotency-Key": key})


def lose_the_answer(api: httpx.Client, path: str, body: dict[str, Any], key: str) -> None:
    """Send a keyed write and give up waiting: the request arrived, its answer never does."""
    with pytest.raises(httpx.ReadTimeout):
        api.post(path, json=body, headers={"Idempotency-Key": key}, timeout=httpx.Timeout(30.0, read=0.5))


def unresolved(response: httpx.Response) -> dict[str, Any]:
    """The 409 of an unresolved acceptance: poll, reuse the key, never create under a new one."""
    problem = assert_problem(response, 409, "conflict")
    recovery = problem["recovery"]
    assert recovery["action"] == "poll_content", problem
    assert recovery["idempotency_key"] == "reuse", problem
    assert recovery["poll_after_seconds"] == pytest.approx(1 / 50), problem
    return problem


def replayed(api: httpx.Client, path: str, body: dict[str, Any], key: str) -> httpx.Response:
    """Resend under the key until the acceptance is resolved and its 202 replays (bounded).

    Every resend before that must be the 409 of an unresolved acceptance."""

    def attempt() -> httpx.Response | None:
        response = send(api, path, body, key)
        if response.status_code == 202:
            return response
        unresolved(response)
        return None

    response: httpx.Response = wait_for(attempt, timeout=20, interval=0.05)
    assert response.headers["idempotent-replayed"] == "true"
    return response


# --- stage "created": the resource exists and the 409 names it ------------------------------------------------


def test_created_episode_is_named_by_the_409_and_replayed_once_resolved(sandbox_factory: Factory) -> None:
    _, api = start(sandbox_factory)
    body = short_episode(api)
    podcast_id = body["podcast_id"]
    before_ids, before = episode_ids(api, podcast_id), account_credits(api)
    key = f"slow-{uuid.uuid4()}"

    lose_the_answer(api, GENERATE, body, key)
    created = wait_for(lambda: episode_ids(api, podcast_id) - before_ids, timeout=20)
    assert len(created) == 1
    (episode_id,) = created
    # accepted and charged once, still unresolved: the hold waits for a resend
    during = account_credits(api)
    assert during["held"] == pytest.approx(before["held"] + SHORT_EPISODE_CREDITS)
    assert during["total"] == pytest.approx(before["total"])

    # other input under the key is still the other conflict, and it does not end the hold
    other = assert_problem(send(api, GENERATE, elsewise(body), key), 409, "conflict")
    assert other["recovery"] == {"action": "correct_input", "idempotency_key": "new"}
    assert other["resource_id"] == episode_id

    problem = unresolved(send(api, GENERATE, body, key))
    assert problem["resource_id"] == episode_id
    assert episode_id in problem["detail"]
    found = api.get(f"/v1/episodes/{episode_id}")
    assert found.status_code == 200, found.text
    assert found.json()["data"]["podcast_id"] == podcast_id

    replay = replayed(api, GENERATE, body, key)
    ack = assert_accepted(replay, podcast_id)
    assert ack["id"] == episode_id
    assert episode_ids(api, podcast_id) == before_ids | {episode_id}

    episode, _ = wait_generation(api, episode_id)
    assert episode["generation"]["state"] == "completed", episode["generation"]
    after = account_credits(api)
    assert after["held"] == pytest.approx(before["held"])  # the one hold was settled, no other remains
    assert episode_ids(api, podcast_id) == before_ids | {episode_id}


def test_created_video_is_named_by_the_409_and_replayed_once_resolved(sandbox_factory: Factory) -> None:
    _, api = start(sandbox_factory)

    def video_ids() -> set[str]:
        response = api.get("/v1/videos", params={"limit": 100})
        assert response.status_code == 200, response.text
        return {v["id"] for v in response.json()["data"]}

    before_ids, before = video_ids(), account_credits(api)
    # the generation itself is not under test: the phrase makes it end early, sparing the CPU
    body = {"prompt": "Tidal lagoons [sandbox:fail] at dawn", "target_duration_seconds": 300}
    key = f"slow-video-{uuid.uuid4()}"

    lose_the_answer(api, "/v1/videos", body, key)
    created = wait_for(lambda: video_ids() - before_ids, timeout=20)
    assert len(created) == 1
    (video_id,) = created
    assert account_credits(api)["held"] == pytest.approx(before["held"] + VIDEO_300_CREDITS)

    problem = unresolved(send(api, "/v1/videos", body, key))
    assert problem["resource_id"] == video_id
    status = api.get(f"/v1/videos/{video_id}/status")
    assert status.status_code == 200, status.text

    replay = replayed(api, "/v1/videos", body, key)
    assert replay.json()["data"]["id"] == video_id
    assert replay.headers["location"] == f"/v1/videos/{video_id}/status"
    assert video_ids() == before_ids | {video_id}


# --- stage "received": nothing exists yet, the 409 names nothing -------------------------------------------------


def test_received_episode_409_names_nothing_and_a_later_resend_gets_the_202(sandbox_factory: Factory) -> None:
    _, api = start(sandbox_factory, "--accept-hold-stage", "received")
    body = short_episode(api)
    podcast_id = body["podcast_id"]
    before_ids, before = episode_ids(api, podcast_id), account_credits(api)
    key = f"slow-{uuid.uuid4()}"

    lose_the_answer(api, GENERATE, body, key)
    other = assert_problem(send(api, GENERATE, elsewise(body), key), 409, "conflict")
    assert other["recovery"] == {"action": "correct_input", "idempotency_key": "new"}
    assert "resource_id" not in other
    # received, not created: nothing exists and nothing is held yet
    assert episode_ids(api, podcast_id) == before_ids
    assert account_credits(api) == before

    problem = unresolved(send(api, GENERATE, body, key))
    assert "resource_id" not in problem

    replay = replayed(api, GENERATE, body, key)
    ack = assert_accepted(replay, podcast_id)
    assert episode_ids(api, podcast_id) == before_ids | {ack["id"]}
    episode, _ = wait_generation(api, ack["id"])
    assert episode["generation"]["state"] == "completed", episode["generation"]
    assert account_credits(api)["held"] == pytest.approx(before["held"])
    assert episode_ids(api, podcast_id) == before_ids | {ack["id"]}


def test_received_video_rejection_after_the_hold_is_recorded_under_the_key(sandbox_factory: Factory) -> None:
    """Input is checked once the hold ends; a media rejection is then stored and replayed (spec 4.6)."""
    _, api = start(sandbox_factory, "--accept-hold-stage", "received")
    body = {"prompt": "Tidal lagoons", "host_id": "nosuchhost"}
    key = f"slow-video-{uuid.uuid4()}"

    lose_the_answer(api, "/v1/videos", body, key)
    assert "resource_id" not in unresolved(send(api, "/v1/videos", body, key))

    def rejected() -> httpx.Response | None:
        response = send(api, "/v1/videos", body, key)
        if response.status_code == 409:
            unresolved(response)
            return None
        return response

    replay = wait_for(rejected, timeout=20, interval=0.05)
    problem = assert_problem(replay, 400, "validation_error")
    assert problem["errors"][0]["field"] == "host_id"
    assert problem["recovery"]["idempotency_key"] == "new"
    assert replay.headers["idempotent-replayed"] == "true"


# --- the lost answer resolves by itself; a restart does not block the key ---------------------------------------


def test_a_lost_answer_is_accepted_without_any_resend(sandbox_factory: Factory) -> None:
    """Nobody resends: the acceptance still completes when the hold runs out, after the client left."""
    running = sandbox_factory(
        "--speed", "50", "--accept-hold", "2", "--accept-hold-stage", "received", "--no-seed-media"
    )
    api = running.client(OTHER_KEY)
    body = short_episode(api)
    podcast_id = body["podcast_id"]
    before_ids = episode_ids(api, podcast_id)
    key = f"slow-{uuid.uuid4()}"

    lose_the_answer(api, GENERATE, body, key)
    created = wait_for(lambda: episode_ids(api, podcast_id) - before_ids, timeout=20)
    assert len(created) == 1
    replay = send(api, GENERATE, body, key)
    assert replay.headers.get("idempotent-replayed") == "true"
    assert assert_accepted(replay, podcast_id)["id"] in created


def test_a_created_hold_cut_off_by_a_killed_server_replays_what_it_created(sandbox_factory: Factory) -> None:
    running, api = start(sandbox_factory)
    body = short_episode(api)
    podcast_id = body["podcast_id"]
    before_ids = episode_ids(api, podcast_id)
    key = f"slow-{uuid.uuid4()}"

    lose_the_answer(api, GENERATE, body, key)
    (episode_id,) = wait_for(lambda: episode_ids(api, podcast_id) - before_ids, timeout=20)
    running.stop(kill=True)  # mid-hold: the row stays pending in the database, naming the episode

    # The same settings again: no acceptance of this process holds the row, so it is settled, not
    # answered 409 forever. The resource and its answer were committed with the row: a replay.
    again = sandbox_factory(*HOLD, data_dir=running.data_dir)
    api = again.client(OTHER_KEY)
    response = send(api, GENERATE, body, key)
    assert response.headers["idempotent-replayed"] == "true"
    assert assert_accepted(response, podcast_id)["id"] == episode_id
    assert episode_ids(api, podcast_id) == before_ids | {episode_id}


def test_a_received_hold_cut_off_by_a_killed_server_frees_the_key(sandbox_factory: Factory) -> None:
    running, api = start(sandbox_factory, "--accept-hold-stage", "received")
    body = short_episode(api)
    podcast_id = body["podcast_id"]
    before_ids = episode_ids(api, podcast_id)
    key = f"slow-{uuid.uuid4()}"

    lose_the_answer(api, GENERATE, body, key)
    # the pending row is there (other input under the key conflicts), naming nothing
    other = assert_problem(send(api, GENERATE, elsewise(body), key), 409, "conflict")
    assert "resource_id" not in other
    running.stop(kill=True)

    # Nothing had been created: the orphaned row is dropped and the resend is a new acceptance,
    # which is held like any other.
    again = sandbox_factory(*HOLD, "--accept-hold-stage", "received", data_dir=running.data_dir)
    api = again.client(OTHER_KEY)
    assert episode_ids(api, podcast_id) == before_ids
    lose_the_answer(api, GENERATE, body, key)
    assert "resource_id" not in unresolved(send(api, GENERATE, body, key))
    ack = assert_accepted(replayed(api, GENERATE, body, key), podcast_id)
    assert episode_ids(api, podcast_id) == before_ids | {ack["id"]}


# --- the typed client -------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_clients_own_retry_meets_the_409_and_can_read_the_resource(
    sandbox_factory: Factory,
) -> None:
    running, api = start(sandbox_factory)
    body = short_episode(api)
    podcast_id = body["podcast_id"]
    before_ids = episode_ids(api, podcast_id)
    key = f"client-{uuid.uuid4()}"

    async with Client(running.base_url, OTHER_KEY, timeout=0.5) as client:
        # the first attempt times out; the client resends the keyed write by itself and meets the 409
        with pytest.raises(ConflictError) as raised:
            await client.episodes.generate(podcast_id=podcast_id, script=body["script"], idempotency_key=key)
        error = raised.value
        assert error.status == 409 and error.type == "conflict"
        assert error.recovery is not None
        assert error.recovery.action == "poll_content"
        assert error.recovery.idempotency_key == "reuse"
        assert error.resource_id is not None
        episode = await client.episodes.get(error.resource_id)
        assert str(episode.podcast_id) == podcast_id
        assert episode_ids(api, podcast_id) == before_ids | {error.resource_id}

        # resent under the same key once resolved: the same episode, not a new one
        deadline = time.monotonic() + 20
        while True:
            try:
                accepted = await client.episodes.generate(
                    podcast_id=podcast_id, script=body["script"], idempotency_key=key
                )
                break
            except ConflictError as again:
                assert again.recovery is not None and again.recovery.action == "poll_content"
                assert again.resource_id == error.resource_id
                assert time.monotonic() < deadline, "the acceptance was never resolved"
                await asyncio.sleep(0.05)
        assert str(accepted.data.id) == error.resource_id
        assert accepted.idempotency_key == key
    assert episode_ids(api, podcast_id) == before_ids | {error.resource_id}


# --- a request cancelled under its hold (in process) --------------------------------------------------------------
#
# Over a socket a disconnect does not cancel a plain handler; an ASGI server or middleware may,
# though. Run in process, the request's task is the handler's, so cancelling it cancels the handler
# in the middle of its hold: the acceptance must carry on regardless. The loop is a plain asyncio
# one, as under uvicorn, in debug mode: it refuses loop calls made from another thread (setting the
# hold's event from a worker thread once hung these tests).


@asynccontextmanager
async def in_process(tmp_path: Path, stage: str) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    from castdeck.sandbox.app import build_app
    from castdeck.sandbox.config import Settings
    from castdeck.sandbox.db import Database
    from castdeck.sandbox.seed import seed_if_empty
    from castdeck.sandbox.service import Sandbox

    settings = Settings(
        data_dir=tmp_path, speed=50, seed_media=False, accept_hold=30, accept_hold_stage=stage
    )
    db = Database(tmp_path / "sandbox.sqlite3")
    sandbox = Sandbox(settings, db)
    seed_if_empty(sandbox)
    transport = httpx.ASGITransport(app=build_app(sandbox))
    try:
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://sandbox",
            headers={"Authorization": f"Bearer {OTHER_KEY}"},
            verify=SHARED_TLS,
        ) as client:
            yield client, sandbox
    finally:
        await sandbox.acceptances.close()
        db.close()


async def cancelled_mid_hold(client: httpx.AsyncClient, body: dict[str, Any], key: str, sandbox: Any) -> None:
    """Send the keyed write and cancel it once its acceptance holds (an event, not a delay)."""
    request = asyncio.ensure_future(client.post(GENERATE, json=body, headers={"Idempotency-Key": key}))
    ident = (sandbox.db.org_for_key(OTHER_KEY).id, "episodes.generate", key)
    deadline = time.monotonic() + 20
    while not sandbox.acceptances.holding(ident):
        assert not request.done(), request.result()
        assert time.monotonic() < deadline, "the acceptance never started"
        await asyncio.sleep(0.01)
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    assert sandbox.acceptances.holding(ident)  # the hold goes on without the request


async def podcast_with_host(client: httpx.AsyncClient) -> dict[str, Any]:
    voices = (await client.get("/v1/voices")).json()["data"]
    host = await client.post(
        "/v1/hosts", json={"name": "Cass Cancel", "backstory": "Hosts a show.", "voice_id": voices[0]["id"]}
    )
    assert host.status_code == 201, host.text
    host_id = host.json()["data"]["id"]
    podcast = await client.post("/v1/podcasts", json={"title": "Cancelled", "host_ids": [host_id]})
    assert podcast.status_code == 201, podcast.text
    return {"podcast_id": podcast.json()["data"]["id"], "script": tiny_script(host_id)}


async def replayed_in_process(client: httpx.AsyncClient, body: dict[str, Any], key: str) -> httpx.Response:
    deadline = time.monotonic() + 20
    while True:
        response = await client.post(GENERATE, json=body, headers={"Idempotency-Key": key})
        if response.status_code == 202:
            assert response.headers["idempotent-replayed"] == "true"
            return response
        unresolved(response)
        assert time.monotonic() < deadline, "the acceptance was never resolved"
        await asyncio.sleep(0.01)


async def listed(client: httpx.AsyncClient, podcast_id: str) -> set[str]:
    response = await client.get("/v1/episodes", params={"podcast_id": podcast_id, "limit": 100})
    return {e["id"] for e in response.json()["data"]}


def test_a_cancelled_request_keeps_what_it_created(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(cancelled_created(tmp_path), 60), debug=True)


def test_a_cancelled_request_is_still_accepted_after_its_hold(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(cancelled_received(tmp_path), 60), debug=True)


async def cancelled_created(tmp_path: Path) -> None:
    async with in_process(tmp_path, "created") as (client, sandbox):
        body = await podcast_with_host(client)
        key = f"cancel-{uuid.uuid4()}"
        await cancelled_mid_hold(client, body, key, sandbox)
        (episode_id,) = await listed(client, body["podcast_id"])  # not rolled back

        problem = unresolved(await client.post(GENERATE, json=body, headers={"Idempotency-Key": key}))
        assert problem["resource_id"] == episode_id
        replay = await replayed_in_process(client, body, key)
        assert replay.json()["data"]["id"] == episode_id
        assert await listed(client, body["podcast_id"]) == {episode_id}


async def cancelled_received(tmp_path: Path) -> None:
    async with in_process(tmp_path, "received") as (client, sandbox):
        body = await podcast_with_host(client)
        key = f"cancel-{uuid.uuid4()}"
        await cancelled_mid_hold(client, body, key, sandbox)
        assert await listed(client, body["podcast_id"]) == set()

        problem = unresolved(await client.post(GENERATE, json=body, headers={"Idempotency-Key": key}))
        assert "resource_id" not in problem
        replay = await replayed_in_process(client, body, key)
        assert await listed(client, body["podcast_id"]) == {replay.json()["data"]["id"]}
