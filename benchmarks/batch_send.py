"""Sending a season: 50 scripts imported into one podcast as one batch, against a fast sandbox.

    uv run python benchmarks/batch_send.py [--scripts 50] [--chars 2000] [--speed 50] [--idle-seconds S]
                                           [--sandbox-nice 19]

The app's own objects (a Session and its Background: drafts, outbox, script and batch senders, job
tracker) run on the qasync loop; the drafts are made with ``drafts.create`` and sent with
``batches.send`` (import, no render), which stores the plan and sends them one at a time, in order,
through the outbox. Side by side, the baseline: the same scripts sent by a plain loop of
``client.episodes.import_script`` calls, one after another (no outbox, no plan, no drafts file),
run first (after one import that warms the sandbox's workers up), into a podcast of its own.

Figures: from pressing send to all accepted and to all generations ended, the batch over the plain
loop (the batch's overhead as a ratio); the requests made per script, by kind (POST import, PATCH
title, GET poll, others), counted by a transport wrapped around the session's;
the event loop's stalls (the 5 ms timer probe of episodes_scale.py) while the batch goes out, and
the same probe on the same loop while idle just before, for as long as the plain loop took to see
its episodes end (``--idle-seconds`` sets it); target: no stall over 16 ms (one frame). The sandbox
runs at a low priority (``--sandbox-nice``, as in background_load.py): its workers stand in for a
remote service and would otherwise take the machine's cores from the app.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from tests.conftest import DEMO_KEY, start_sandbox  # noqa: E402

from castdeck.api import Client  # noqa: E402
from castdeck.api.polling import episode_running  # noqa: E402
from castdeck.app import settle_startup_objects  # noqa: E402
from castdeck.scripts import HostRef  # noqa: E402
from castdeck.services.background import Background  # noqa: E402
from castdeck.services.batch_sending import BatchProgress  # noqa: E402
from castdeck.services.collector import QuietCollector  # noqa: E402
from castdeck.services.event_loop import new_event_loop  # noqa: E402
from castdeck.services.profiles import Profile  # noqa: E402
from castdeck.services.runtime import Runtime  # noqa: E402
from castdeck.services.script_sending import TITLE_OWED  # noqa: E402
from castdeck.services.session import Session  # noqa: E402
from castdeck.store.cache import Cache  # noqa: E402
from episodes_scale import StallProbe  # noqa: E402

STALL_TARGET = 0.016  # one frame
CPU_TARGET = 0.008  # the main thread's own work between two ticks: a stall with more in it is the app's
TIMEOUT = 600.0  # seconds any one wait may take before the benchmark gives up
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
NAMED = {("POST", "/v1/episodes/import"): "POST import", ("PATCH", "/v1/episodes/{id}"): "PATCH title",
         ("GET", "/v1/episodes/{id}"): "GET poll"}  # fmt: skip
WORDS = ["tide", "harbour", "swell", "kelp", "current", "river", "bend", "estuary", "salt", "marsh", "light", "keeper", "boat", "net", "morning", "evening", "storm", "calm", "wave", "shore", "island", "channel"]  # fmt: skip


def kind_of(request: httpx.Request) -> str:
    path = ID.sub("{id}", request.url.path)
    return NAMED.get((request.method, path), f"{request.method} {path}")


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    errors: Counter[int] = field(default_factory=Counter)
    imports: list[float] = field(default_factory=list)  # each POST import's time from sent to answered


class CountingTransport(httpx.AsyncBaseTransport):
    """The session's transport, counting each request by kind (and the answers that were errors)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.tally = Tally()

    def reset(self) -> Tally:
        tally, self.tally = self.tally, Tally()
        return tally

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = time.perf_counter()
        response = await self.inner.handle_async_request(request)
        kind = kind_of(request)
        self.tally.counts[kind] += 1
        if kind == "POST import":
            self.tally.imports.append(time.perf_counter() - sent)
        if response.status_code >= 400:
            self.tally.errors[response.status_code] += 1
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def make_script(rng: random.Random, chars: int, number: int) -> str:
    """About ``chars`` characters of turns between Alex and Priya, titled by its chapter line."""
    parts = [f"# Season part {number:02}\n"]
    size, turn = len(parts[0]), 0
    while size < chars:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
        text = f"\n[{('Alex', 'Priya')[turn % 2]}]\n{words.capitalize()}, and then the {rng.choice(WORDS)}.\n"
        parts.append(text)
        size, turn = size + len(text), turn + 1
    return "".join(parts)


async def until(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up after {TIMEOUT:.0f} s waiting for {what}")
        await asyncio.sleep(0.05)


def per_script(counts: Counter[str], scripts: int) -> str:
    others = {kind: n for kind, n in counts.most_common() if kind not in NAMED.values()}
    shown = [f"{kind} {counts[kind] / scripts:.2f}" for kind in NAMED.values()]
    return (", ".join(shown) + f", other {sum(others.values()) / scripts:.2f} (all {sum(counts.values()) / scripts:.2f});"
            f" others: {'; '.join(f'{kind} x{n}' for kind, n in others.items()) or 'none'}")  # fmt: skip


def stalls(probe: StallProbe, seconds: float) -> str:
    gaps = sorted(probe.gaps)
    p99 = gaps[int(len(gaps) * 0.99) - 1] if gaps else 0.0
    over = [cpu for gap, cpu in zip(probe.gaps, probe.cpu_gaps, strict=True) if gap > STALL_TARGET]
    return (f"{seconds:5.1f} s: longest stall {probe.worst * 1000:5.1f} ms, 99th percentile {p99 * 1000:4.1f} ms,"
            f" over {STALL_TARGET * 1000:.0f} ms: {len(over)} ({sum(c >= CPU_TARGET for c in over)} with"
            f" {CPU_TARGET * 1000:.0f} ms or more of the main thread's CPU)")  # fmt: skip


async def plain_loop(client: Client, podcast_id: str, texts: list[str]) -> tuple[float, float]:
    """The baseline: each import awaited before the next; then each episode read until it ended
    (every 0.25 s). Seconds to all accepted and to all ended."""
    started = time.perf_counter()
    ids = [
        str((await client.episodes.import_script(podcast_id=podcast_id, script=text, render=False)).data.id)
        for text in texts
    ]
    accepted = time.perf_counter() - started
    running = list(ids)
    deadline = time.monotonic() + TIMEOUT
    while running:
        if time.monotonic() > deadline:
            raise SystemExit(f"the plain loop's episodes did not end: {len(running)} still running")
        running = [i for i in running if episode_running(await client.episodes.get(i))]
        if running:
            await asyncio.sleep(0.25)
    return accepted, time.perf_counter() - started


async def run(base_url: str, args: argparse.Namespace, work: Path) -> None:
    transport = CountingTransport()
    cache = Cache(work / "cache.sqlite3")
    session = Session(
        Profile("bench", base_url, sandbox=True), DEMO_KEY, cache,
        client_factory=lambda url, key: Client(url, key, timeout=30.0, max_retries=2, http_transport=transport),
        runtime=Runtime.build(),
    )  # fmt: skip
    background = Background(session, work / "background")
    await session.start()
    background.start()
    await asyncio.sleep(1)
    settle_startup_objects()
    collector = QuietCollector()  # as the app does once its first screen is up
    collector.start()
    client = session.client

    hosts = [HostRef(h.id, h.name or h.id) async for h in client.hosts.list(limit=100)]
    print(f"hosts in the sandbox's demo data: {', '.join(h.name for h in hosts)}")
    ours = [h for h in hosts if h.name.split()[0] in ("Alex", "Priya")]
    if len(ours) != 2:
        raise SystemExit("no hosts named Alex and Priya: the scripts' labels would not resolve")
    shows = [
        await client.podcasts.create(title=f"Batch benchmark ({side})", host_ids=[h.id for h in ours])
        for side in ("plain loop", "batch")
    ]
    rng = random.Random(7)
    texts = [make_script(rng, args.chars, n) for n in range(1, args.scripts + 1)]

    # --- the baseline: a plain loop of imports ---------------------------------------------------------------
    await plain_loop(client, str(shows[0].id), texts[:1])  # warm the sandbox's workers up first
    transport.reset()
    plain_accepted, plain_ended = await plain_loop(client, str(shows[0].id), texts)
    plain = transport.reset()

    drafts = [await background.drafts.create(text) for text in texts]
    await background.drafts.flush()

    # --- idle, on the same loop, before sending ------------------------------------------------------------------
    idle_seconds = args.idle_seconds or max(3.0, plain_ended)
    transport.reset()
    idle = StallProbe()
    idle.start()
    await asyncio.sleep(idle_seconds)
    idle.stop()
    idle_requests = transport.reset().counts

    # --- the batch ---------------------------------------------------------------------------------------------
    marks: dict[str, float] = {}
    started = 0.0

    def changed(progress: BatchProgress) -> None:
        if progress.size and progress.accepted == progress.size:
            marks.setdefault("accepted", time.perf_counter() - started)
        if progress.size and progress.ended:
            marks.setdefault("ended", time.perf_counter() - started)

    background.batches.changed.connect(changed)
    probe = StallProbe()
    probe.start()
    started = time.perf_counter()
    progress = await background.batches.send(
        [d.id for d in drafts], "import", podcast_id=str(shows[1].id), render=False, hosts=hosts, balance=None
    )  # fmt: skip
    planned = time.perf_counter() - started
    if progress.size != args.scripts:
        raise SystemExit(f"only {progress.size} of the {args.scripts} scripts went into the batch")
    await until(lambda: "ended" in marks, "the batch to end")
    await until(lambda: not any(TITLE_OWED in d.options for d in background.drafts.store.list_drafts()),
                "the episodes' titles")  # fmt: skip
    await until(lambda: background.jobs.following == 0, "the job tracker to stop following")
    settled = time.perf_counter() - started
    probe.stop()
    batch = transport.reset()
    background.batches.changed.disconnect(changed)
    done = background.batches.batch(progress.id)
    listed = [e async for e in client.episodes.list(podcast_id=str(shows[1].id), limit=100)]
    titles_in_order = [e.title for e in reversed(listed)] == [
        f"Season part {n:02}" for n in range(1, args.scripts + 1)
    ]

    # --- figures -----------------------------------------------------------------------------------------------
    n = args.scripts
    print(f"{n} scripts of about {args.chars:,} characters ({sum(map(len, texts)):,} in all), [Alex]/[Priya] turns;"
          f" sandbox --speed {args.speed:g}, import without render")  # fmt: skip
    print(f"batch: {done.summary() if done else '?'}; {len(listed)} episodes in its podcast,"
          f" titled as the drafts in order: {'yes' if titles_in_order else 'NO'}")  # fmt: skip
    print(f"send -> plan stored (batches.send returned): {planned:6.2f} s")
    accepted, ended = marks.get("accepted", float("nan")), marks["ended"]
    print(f"send -> all {n} accepted:  batch {accepted:6.2f} s   plain loop {plain_accepted:6.2f} s"
          f"   batch / plain {accepted / plain_accepted:.2f}x   per script {accepted / n * 1000:.0f} ms"
          f" vs {plain_accepted / n * 1000:.0f} ms")  # fmt: skip
    print(f"send -> all {n} ended:     batch {ended:6.2f} s   plain loop {plain_ended:6.2f} s"
          f"   batch / plain {ended / plain_ended:.2f}x   (plain: each episode read every 0.25 s)")  # fmt: skip
    print(f"send -> titles given, nothing followed: {settled:.2f} s")
    for side, tally, total in (("batch", batch, accepted), ("plain loop", plain, plain_accepted)):
        waiting = sum(tally.imports)
        print(f"  {side:10}: {waiting:5.2f} s waiting for the {len(tally.imports)} imports' answers (median"
              f" {statistics.median(tally.imports) * 1000:.0f} ms); the rest, {(total - waiting) / n * 1000:.0f} ms"
              f" per script, is the app's turn between an answer and the next send")  # fmt: skip
    print(f"requests per script, batch:      {per_script(batch.counts, n)}")
    print(f"requests per script, plain loop: {per_script(plain.counts, n)}")
    print(f"error answers while sending: {dict(batch.errors) or 'none'}; requests while idle:"
          f" {sum(idle_requests.values())} {dict(idle_requests) or ''}")  # fmt: skip
    print(f"event loop idle (baseline) {stalls(idle, idle_seconds)}")
    print(f"event loop sending         {stalls(probe, settled)}")
    over = sum(1 for gap in probe.gaps if gap > STALL_TARGET)
    print(f"  sending / idle: longest {probe.worst / max(idle.worst, 1e-4):.1f}x; the longest"
          f" (at {probe.when(probe.gaps):.1f} s): {probe.worst_parts()}; main thread's CPU between two ticks"
          f" at most {probe.cpu_worst * 1000:.1f} ms (idle {idle.cpu_worst * 1000:.1f} ms)"
          f" -> {'PASS' if not over else 'OVER'} (target: no stall over {STALL_TARGET * 1000:.0f} ms)")  # fmt: skip

    collector.stop()
    await background.close()
    await session.tasks.cancel_all()
    await session.close()
    await transport.aclose()
    cache.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scripts", type=int, default=50)
    parser.add_argument("--chars", type=int, default=2_000, help="each script's size in characters")
    parser.add_argument("--speed", type=float, default=50, help="the sandbox's --speed (50: fast)")
    parser.add_argument("--sandbox-nice", type=int, default=19, help="the sandbox's priority (POSIX)")
    parser.add_argument(
        "--idle-seconds", type=float, default=0,
        help="the idle window's length (default: as long as the plain loop took to see its episodes end)",
    )  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="castdeck-bench-batch-") as tmp:
        work = Path(tmp)
        sandbox = start_sandbox(
            work / "sandbox", "--speed", f"{args.speed:g}", "--workers", "2", nice=args.sandbox_nice
        )
        try:
            app = QApplication.instance() or QApplication([])
            app.setQuitOnLastWindowClosed(False)
            with asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner:
                runner.run(run(sandbox.base_url, args, work))
        finally:
            sandbox.stop()


if __name__ == "__main__":
    main()
