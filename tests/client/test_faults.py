"""The client against the sandbox's ``--chaos`` mode: reads recover, keyed writes create exactly one
job, unkeyed writes are never repeated.

The sandbox draws one fault (or none) per ``/v1`` request from ``random.Random(seed)``, so with
sequential requests the faults each request meets are fixed by the seed. Each test picks, by
replaying the sandbox's own ``Chaos`` drawer, a seed whose sequence holds the faults the test is
about; every send is then counted on the wire by a wrapping httpx transport (real sends, real
answers, nothing mocked), and what was created is counted afterwards on a chaos-free sandbox
started on the same data folder.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from castdeck.api import APIConnectionError, ApiError, Client, new_idempotency_key
from castdeck.api.errors import RateLimitedError, ServerError
from castdeck.api.transport import RetryPolicy
from castdeck.sandbox.gateway import Chaos
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.tls import SHARED_TLS

CHAOS = 0.3
MAX_RETRIES = 3
# What the transport retries by itself for reads and keyed writes (``slow`` just answers late).
RETRIED = frozenset({"502", "503", "429", "drop_before", "drop_after"})
FAST = RetryPolicy(max_retries=MAX_RETRIES, base_delay=0.05, max_delay=0.4)

SandboxFactory = Callable[..., RunningSandbox]


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts every request really sent and what came back (a status, or the transport error)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sends: list[tuple[str, str, str | None]] = []  # method, path, idempotency key
        self.outcomes: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sends.append((request.method, request.url.path, request.headers.get("idempotency-key")))
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError as exc:
            self.outcomes.append(type(exc).__name__)
            raise
        self.outcomes.append(str(response.status_code))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def chaos_client(sandbox: RunningSandbox) -> tuple[Client, CountingTransport]:
    counter = CountingTransport(httpx.AsyncHTTPTransport(verify=SHARED_TLS))
    client = Client(sandbox.base_url, DEMO_KEY, timeout=15.0, max_retries=MAX_RETRIES, http_transport=counter)
    client.transport.policy = FAST  # the same rules, shorter waits (Retry-After is still honoured)
    return client, counter


def replay(seed: int) -> Iterator[str]:
    """The sandbox's fault sequence for ``seed``: one entry per /v1 request ("ok" for none)."""
    chaos = Chaos(CHAOS, seed)
    while True:
        yield chaos.draw() or "ok"


def attempt(draws: Iterator[str], retried: bool) -> list[str]:
    """The faults one call meets: the transport retries RETRIED faults when ``retried``."""
    met = []
    while True:
        fault = next(draws)
        met.append(fault)
        if fault in ("ok", "slow") or not retried or fault not in RETRIED or len(met) > MAX_RETRIES:
            return met


def succeeded(met: list[str]) -> bool:
    return met[-1] in ("ok", "slow")


def find_seed(fits: Callable[[int], bool]) -> int:
    return next(seed for seed in range(1, 50_000) if fits(seed))


def restart_without_chaos(sandbox_factory: SandboxFactory, chaotic: RunningSandbox) -> RunningSandbox:
    chaotic.stop(kill=True)  # committed writes are on disk; a graceful stop only waits for dropped sockets
    return sandbox_factory("--speed", "50", "--no-seed-media", data_dir=chaotic.data_dir)


# ---------------------------------------------------------------------------------------------------------


READS = 50


def reads_fit(seed: int) -> bool:
    draws = replay(seed)
    calls = [attempt(draws, retried=True) for _ in range(READS)]
    met = Counter(fault for call in calls for fault in call)
    return (
        all(succeeded(call) for call in calls)
        and set(met) >= RETRIED
        and met["slow"] <= 2
        and any(len(call) >= 3 for call in calls)  # two faults in a row on one call
    )


@pytest.mark.asyncio
async def test_reads_recover_through_every_retried_fault(sandbox_factory: SandboxFactory) -> None:
    seed = find_seed(reads_fit)
    sandbox = sandbox_factory(
        "--speed", "50", "--no-seed-media", "--chaos", str(CHAOS), "--chaos-seed", str(seed)
    )
    client, counter = chaos_client(sandbox)
    async with asyncio.timeout(50), client:
        plans = set()
        for i in range(READS):
            if i % 5 == 4:
                podcasts = await client.podcasts.list(limit=100).to_list()
                assert podcasts
            else:
                account = await client.account.get()
                plans.add(account.plan)
    assert plans == {"creator"}
    outcomes = Counter(counter.outcomes)
    # The faults really happened on the wire and every one was retried.
    for status in ("502", "503", "429"):
        assert outcomes[status] >= 1, outcomes
    assert outcomes["RemoteProtocolError"] + outcomes["ReadError"] >= 2, outcomes  # dropped connections
    assert outcomes["200"] == READS
    assert len(counter.sends) == sum(outcomes.values()) > READS
    assert all(method == "GET" for method, _, _ in counter.sends)


# ---------------------------------------------------------------------------------------------------------


EPISODES = 6
SHORTS = 4
KEYED_SETUP_READS = 3


def keyed_fit(seed: int) -> bool:
    """Every logical write is resent by the caller until it succeeds; the run must hold answers
    lost after processing, and calls that fail through to the caller (a 500, or retries exhausted)."""
    draws = replay(seed)
    if not all(succeeded(attempt(draws, retried=True)) for _ in range(KEYED_SETUP_READS)):
        return False
    met_all: list[str] = []
    caller_resends = 0
    for _ in range(EPISODES + SHORTS):
        for _ in range(8):
            met = attempt(draws, retried=True)
            met_all += met
            if succeeded(met):
                break
            caller_resends += 1
        else:
            return False
    count = Counter(met_all)
    return count["drop_after"] >= 2 and caller_resends >= 2 and count["slow"] <= 2


async def keyed_until_done(call: Callable[[str], Any], key: str) -> tuple[Any, int]:
    """The Accepted contract: on a failure without a definite answer, resend with the SAME key."""
    resends = 0
    while True:
        try:
            return await call(key), resends
        except (APIConnectionError, ServerError, RateLimitedError):
            resends += 1
            assert resends < 8
            await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_keyed_writes_create_exactly_one_job_each(sandbox_factory: SandboxFactory) -> None:
    seed = find_seed(keyed_fit)
    chaotic = sandbox_factory(
        "--speed", "50", "--no-seed-media", "--chaos", str(CHAOS), "--chaos-seed", str(seed)
    )
    client, counter = chaos_client(chaotic)
    episode_ids: dict[str, str] = {}
    short_ids: dict[str, str] = {}
    resends = 0
    async with asyncio.timeout(50), client:
        podcast = (await client.podcasts.list(limit=100).to_list())[0]  # reads: retried through chaos
        hosts = await client.hosts.list(limit=100).to_list()
        before_shorts = {s.id for s in await client.shorts.list(limit=100).to_list()}
        assert podcast.host_ids and hosts
        setup_sends = len(counter.sends)
        for i in range(EPISODES):
            key = new_idempotency_key()  # stored before sending, as the caller would
            accepted, again = await keyed_until_done(
                lambda k, i=i: client.episodes.generate(
                    podcast_id=podcast.id, prompt=f"Chaos episode {i}: tides and the moon.", idempotency_key=k
                ),
                key,
            )
            assert accepted.idempotency_key == key
            episode_ids[key] = accepted.data.id
            resends += again
        for i in range(SHORTS):
            key = new_idempotency_key()
            accepted, again = await keyed_until_done(
                lambda k, i=i: client.shorts.create(
                    prompt=f"Chaos short {i}: why the sea is salty", host_id=hosts[0].id, idempotency_key=k
                ),
                key,
            )
            assert accepted.idempotency_key == key
            short_ids[key] = accepted.data.id
            resends += again
    outcomes = Counter(counter.outcomes)
    writes = counter.sends[setup_sends:]
    sends_per_key = Counter(key for _, _, key in writes)
    assert all(method == "POST" and key is not None for method, _, key in writes)
    assert resends >= 2  # the caller had to resend, with the same key
    assert any(n > 1 for n in sends_per_key.values())  # some keys went out several times
    assert outcomes["RemoteProtocolError"] + outcomes["ReadError"] >= 2, outcomes
    # Every resend of one key returned the same job.
    assert len(set(episode_ids.values())) == EPISODES and len(set(short_ids.values())) == SHORTS

    after = restart_without_chaos(sandbox_factory, chaotic)
    async with Client(after.base_url, DEMO_KEY) as check:
        episodes = await check.episodes.list(podcast_id=podcast.id, limit=100).to_list()
        shorts = await check.shorts.list(limit=100).to_list()
    chaos_episodes = [e for e in episodes if e.id in set(episode_ids.values())]
    assert len(chaos_episodes) == EPISODES
    new_shorts = {s.id for s in shorts} - before_shorts
    assert new_shorts == set(short_ids.values())  # exactly one short per key, nothing else


# ---------------------------------------------------------------------------------------------------------


PODCASTS = 14


def unkeyed_fit(seed: int) -> bool:
    draws = replay(seed)
    if not succeeded(attempt(draws, retried=True)):  # the hosts list first
        return False
    met = [next(draws) for _ in range(PODCASTS)]
    return (
        met.count("drop_after") >= 2
        and met.count("drop_before") >= 1
        and {"500", "502", "503", "429"} & set(met)
        and "slow" not in met
    )


@pytest.mark.asyncio
async def test_unkeyed_writes_are_never_repeated(sandbox_factory: SandboxFactory) -> None:
    seed = find_seed(unkeyed_fit)
    chaotic = sandbox_factory(
        "--speed", "50", "--no-seed-media", "--chaos", str(CHAOS), "--chaos-seed", str(seed)
    )
    client, counter = chaos_client(chaotic)
    results: dict[str, str] = {}
    async with asyncio.timeout(40), client:
        host_ids = [h.id for h in await client.hosts.list(limit=100).to_list()][:1]
        setup_sends = len(counter.sends)
        for i in range(PODCASTS):
            title = f"Unkeyed chaos {i}"
            sends_before = len(counter.sends)
            try:
                await client.podcasts.create(title=title, host_ids=host_ids)
                results[title] = "ok"
            except APIConnectionError:
                results[title] = "no answer"
            except ApiError as exc:
                results[title] = f"HTTP {exc.status}"
            assert len(counter.sends) == sends_before + 1, (title, counter.outcomes[sends_before:])
    writes = counter.sends[setup_sends:]
    assert len(writes) == PODCASTS  # one attempt per call, whatever happened
    assert all(method == "POST" and key is None for method, _, key in writes)

    after = restart_without_chaos(sandbox_factory, chaotic)
    async with Client(after.base_url, DEMO_KEY) as check:
        stored = Counter(p.title for p in await check.podcasts.list(limit=100).to_list())
    for title, outcome in results.items():
        if outcome == "ok":
            assert stored[title] == 1, (title, outcome)
        elif outcome == "no answer":
            assert stored[title] in (0, 1), (title, outcome)  # lost before or after the work
        else:
            assert stored[title] == 0, (title, outcome)  # a definite error answer: nothing done
    lost_after_work = [t for t, o in results.items() if o == "no answer" and stored[t] == 1]
    lost_before_work = [t for t, o in results.items() if o == "no answer" and stored[t] == 0]
    refused = [t for t, o in results.items() if o.startswith("HTTP")]
    assert len(lost_after_work) >= 2 and lost_before_work and refused, results
    assert max(stored[t] for t in results) == 1  # never two


@pytest.mark.asyncio
async def test_a_request_on_a_closed_client_is_a_lost_connection(sandbox: RunningSandbox) -> None:
    """The app closes a client when the service moves (the sandbox restarted on a new port); work
    still holding the old one sees a connection fault it already handles, never a crash."""
    client = Client(sandbox.base_url, DEMO_KEY)
    assert (await client.account.get()).organization_id
    await client.aclose()
    with pytest.raises(APIConnectionError, match="closed"):
        await client.account.get()
