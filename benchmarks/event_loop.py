"""The app's event loop against qasync's own, side by side (alternating, same process).

    uv run python benchmarks/event_loop.py [--rounds 5]

Figures, medians of the rounds:
- CPU time per ready callback: 2,000 tasks stepping 10 times each (``await asyncio.sleep(0)``),
  as a burst of answers or writes makes them;
- CPU time per round trip to a worker thread (``run_in_executor``, as every disk write is);
- the longest wait of a 5 ms Qt timer while 400 callbacks of 0.1 ms each are queued at once
  (one frame's worth of work is 16 ms): how long Qt's own events (paints, timers) wait behind them.
Target: the app's loop no slower than qasync's on either cost (ratio <= 1.0), and Qt's timer kept
within a frame during the burst.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import qasync  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from castdeck.services.event_loop import new_event_loop  # noqa: E402

FRAME = 0.016


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def measure() -> tuple[float, float, float]:
    loop = asyncio.get_running_loop()

    async def steps() -> None:
        for _ in range(10):
            await asyncio.sleep(0)

    cpu = time.thread_time()
    await asyncio.gather(*(steps() for _ in range(2000)))
    per_step = (time.thread_time() - cpu) / 20_000
    cpu = time.thread_time()
    for _ in range(300):
        await loop.run_in_executor(None, int, 1)
    per_trip = (time.thread_time() - cpu) / 300

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    done = loop.create_future()
    timer.start()
    await asyncio.sleep(0.02)
    for _ in range(400):
        loop.call_soon(spin, 0.0001)
    loop.call_soon(done.set_result, None)
    await done
    await asyncio.sleep(0.02)
    timer.stop()
    longest = max(b - a for a, b in itertools.pairwise(ticks)) - 0.005
    return per_step, per_trip, longest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    loops: dict[str, Callable[[], Any]] = {
        "qasync's QEventLoop": lambda: qasync.QEventLoop(app),
        "the app's loop": lambda: new_event_loop(app),
    }
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in loops}
    for _ in range(args.rounds + 1):  # the first round warms up and is not counted
        for name, factory in loops.items():
            with asyncio.Runner(loop_factory=factory) as runner:
                results[name].append(runner.run(measure()))
    print(f"rounds: {args.rounds}, alternating, medians")
    print(f"{'':22}{'per callback':>14}{'per trip':>12}{'Qt timer waited':>18}")
    medians = {}
    for name, rows in results.items():
        rows = rows[1:]
        step, trip, wait = (statistics.median(column) for column in zip(*rows, strict=True))
        medians[name] = (step, trip, wait)
        print(f"{name:22}{step * 1e6:11.1f} us{trip * 1e6:9.1f} us{wait * 1000:15.1f} ms")
    base, app_loop = medians["qasync's QEventLoop"], medians["the app's loop"]
    step_ratio, trip_ratio = app_loop[0] / base[0], app_loop[1] / base[1]
    print(f"ratio app / qasync: per callback {step_ratio:.2f}x, per round trip {trip_ratio:.2f}x"
          f" (target <= 1.0) -> {'PASS' if max(step_ratio, trip_ratio) <= 1.0 else 'OVER'}")  # fmt: skip
    print(f"Qt's timer behind a 40 ms burst: {app_loop[2] * 1000:.1f} ms (qasync {base[2] * 1000:.1f} ms; target"
          f" <= {FRAME * 1000:.0f} ms) -> {'PASS' if app_loop[2] <= FRAME else 'OVER'}")  # fmt: skip


if __name__ == "__main__":
    main()
