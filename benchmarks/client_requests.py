"""Request throughput: ``Client`` against a raw ``httpx.AsyncClient`` on the same sandbox.

Run with ``uv run python benchmarks/client_requests.py [--requests N] [--rounds R] [--profile]``.

A sandbox (``--no-seed-media``) is started on a free loopback port. Each measurement sends N
``GET /v1/account`` requests, either one after the other (sequential awaits) or 10 at a time
(10 workers sharing one client). ``Client`` validates the answer into the ``Account`` model; the raw
client sends the same headers with the same connection settings and decodes the JSON (no model).
Runs alternate raw / Client (the order flips every round) so that drift in the machine's load
falls on both; the figure per case is the median of the rounds' ratios. Everything runs once on a
plain asyncio loop and once on a qasync loop (the app's loop).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from castdeck.api import Client
from castdeck.api.transport import USER_AGENT

KEY = "sk_sandbox_demo"
CONCURRENCY = 10
TARGET = 0.85


def start_sandbox(data_dir: Path) -> tuple[str, subprocess.Popen[str]]:
    command = [sys.executable, "-m", "castdeck.sandbox", "--host", "127.0.0.1", "--port", "0",
               "--data", str(data_dir), "--no-seed-media"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(30)
    if not line or not line[0].startswith("listening on "):
        process.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    return line[0].removeprefix("listening on ").strip(), process


async def drive(call: Callable[[], Awaitable[Any]], requests: int, concurrency: int) -> float:
    """Requests per second for ``requests`` calls, ``concurrency`` at a time."""
    per_worker = requests // concurrency

    async def worker() -> None:
        for _ in range(per_worker):
            await call()

    start = time.perf_counter()
    if concurrency == 1:
        await worker()
    else:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return per_worker * concurrency / (time.perf_counter() - start)


async def measure(base_url: str, requests: int, rounds: int) -> dict[str, list[tuple[float, float]]]:
    """Per case, (raw, Client) requests/s for every round."""
    headers = {
        "User-Agent": USER_AGENT,
        "Accept": "application/json",
        "Accept-Encoding": "gzip, deflate",
        "Authorization": f"Bearer {KEY}",
    }
    figures: dict[str, list[tuple[float, float]]] = {}
    async with (
        httpx.AsyncClient(timeout=30.0, headers=headers, follow_redirects=False) as raw,
        Client(base_url, KEY, timeout=30.0) as client,
    ):
        url = f"{base_url}/v1/account"

        async def raw_call() -> None:
            response = await raw.get(url)
            response.raise_for_status()
            response.json()

        async def client_call() -> None:
            await client.account.get()

        await drive(raw_call, 50, 1)  # warm up both (connections, imports, caches)
        await drive(client_call, 50, 1)
        for label, concurrency in (("sequential", 1), (f"{CONCURRENCY}-way", CONCURRENCY)):
            results = figures.setdefault(label, [])
            for round_ in range(rounds):
                if round_ % 2 == 0:
                    raw_rate = await drive(raw_call, requests, concurrency)
                    client_rate = await drive(client_call, requests, concurrency)
                else:
                    client_rate = await drive(client_call, requests, concurrency)
                    raw_rate = await drive(raw_call, requests, concurrency)
                results.append((raw_rate, client_rate))
    return figures


def run_on_asyncio(coro_factory: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coro_factory())  # type: ignore[arg-type]


def run_on_qasync(coro_factory: Callable[[], Awaitable[Any]]) -> Any:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    try:
        return loop.run_until_complete(coro_factory())
    finally:
        loop.close()


def report(loop_name: str, figures: dict[str, list[tuple[float, float]]]) -> list[float]:
    ratios = []
    for label, results in figures.items():
        per_round = [client / raw for raw, client in results]
        ratio = statistics.median(per_round)
        ratios.append(ratio)
        raw_rates = ", ".join(f"{raw:7.0f}" for raw, _ in results)
        client_rates = ", ".join(f"{client:7.0f}" for _, client in results)
        print(f"{loop_name:8} {label:11} raw httpx req/s [{raw_rates}]  Client req/s [{client_rates}]  "
              f"ratio {ratio:.3f} (rounds {', '.join(f'{r:.3f}' for r in per_round)})")  # fmt: skip
    return ratios


def profile_client(base_url: str, requests: int) -> None:
    async def only_client() -> None:
        async with Client(base_url, KEY) as client:
            for _ in range(requests):
                await client.account.get()

    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(only_client())
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile the Client alone afterwards")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="castdeck-bench-") as folder:
        base_url, process = start_sandbox(Path(folder))
        try:
            print(f"sandbox {base_url}; {args.requests} GET /v1/account per run, {args.rounds} rounds\n")
            ratios = report("asyncio", run_on_asyncio(lambda: measure(base_url, args.requests, args.rounds)))
            ratios += report("qasync", run_on_qasync(lambda: measure(base_url, args.requests, args.rounds)))
            worst = min(ratios)
            verdict = "meets" if worst >= TARGET else "MISSES"
            print(f"\nworst Client/raw throughput ratio {worst:.3f}: {verdict} the target of {TARGET}")
            if args.profile:
                profile_client(base_url, args.requests)
        finally:
            process.terminate()
            process.wait(15)


if __name__ == "__main__":
    main()
