"""Scale: the Episodes pane over 10,000 episodes.

    uv run python benchmarks/episodes_scale.py [--episodes 10000] [--repeats 5] [--view table|cards]

Figures: time to the first rows painted (against the same first-page request made by a bare httpx
client, side by side), memory after scrolling to the end (against the process before the pane
existed), and the longest stall of the event loop while paging, measured by a 5 ms timer probe.
Paging is a user's fast wheel flick to the end of the list, page after page (real wheel events,
so full garbage collections wait as they do for a user: services/collector.py).
Each episode has a cover of its own (``--no-covers``: none), loaded as the rows are painted.
``--view cards`` measures the same with the pane's card view shown.
Target: no stall over 16 ms (one frame).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from PySide6.QtCore import QAbstractEventDispatcher, QEvent, QObject, QPoint, QPointF, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QWheelEvent  # noqa: E402
from PySide6.QtWidgets import QAbstractItemView, QApplication  # noqa: E402
from tests.conftest import DEMO_KEY, start_sandbox  # noqa: E402

from castdeck.app import settle_startup_objects  # noqa: E402
from castdeck.services.background import Background  # noqa: E402
from castdeck.services.collector import QuietCollector  # noqa: E402
from castdeck.services.event_loop import new_event_loop  # noqa: E402
from castdeck.services.profiles import Profile  # noqa: E402
from castdeck.services.runtime import Runtime  # noqa: E402
from castdeck.services.session import Session  # noqa: E402
from castdeck.store.cache import Cache  # noqa: E402
from castdeck.ui.panes.episodes import EpisodesPane  # noqa: E402


def rss_mib() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cover_jpeg(index: int) -> bytes:
    """A small cover of its own for each episode (a colour and a number)."""
    import colorsys
    import io

    from PIL import Image, ImageDraw

    r, g, b = colorsys.hls_to_rgb((index * 0.61803) % 1.0, 0.45, 0.55)
    image = Image.new("RGB", (320, 320), (round(r * 255), round(g * 255), round(b * 255)))
    ImageDraw.Draw(image).text((24, 24), f"#{index}", fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def seed(base_url: str, wanted: int, covers: bool) -> int:
    """At least ``wanted`` episodes, each with a cover of its own when ``covers`` (kept in the data
    folder between runs: only what is missing is made)."""
    from concurrent.futures import ThreadPoolExecutor

    headers = {"Authorization": f"Bearer {DEMO_KEY}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as client:
        podcast = client.get("/v1/podcasts", params={"limit": 1}).json()["data"][0]["id"]
        bare: list[str] = []
        have = 0
        url: str | None = "/v1/episodes?limit=100"
        while url:
            response = client.get(url)
            for episode in response.json()["data"]:
                have += 1
                if not episode.get("image_url"):
                    bare.append(episode["id"])
            url = response.links.get("next", {}).get("url")
        for i in range(have, wanted):
            made = client.post("/v1/episodes", json={"podcast_id": podcast, "title": f"Bulk episode {i:05d}"})
            made.raise_for_status()
            bare.append(made.json()["data"]["id"])
        if covers and bare:

            def put(pair: tuple[int, str]) -> None:
                index, episode_id = pair
                client.put(
                    f"/v1/episodes/{episode_id}/image",
                    content=cover_jpeg(index),
                    headers={"Content-Type": "image/jpeg"},
                ).raise_for_status()

            with ThreadPoolExecutor(4) as pool:
                list(pool.map(put, enumerate(bare)))
        return max(have, wanted)


def _open_schedstat() -> int | None:
    try:
        return os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        return None


class StallProbe(QObject):
    """A 5 ms timer; the longest gap between its ticks beyond 5 ms is the longest stall. It also
    counts the main thread's CPU time between ticks: a long gap with little CPU in it is the
    machine (the sandbox and the decoding threads share its two cores), one full of CPU is the
    pane's own work. On Linux it also reads how long the main thread waited for a core, runnable
    but not running (``/proc/thread-self/schedstat``): the rest of a gap is the thread asleep (the
    loop waiting, a late wake-up, or another thread holding the interpreter's lock).

    It also times each turn of Qt's loop (from one return to its wait to the next, marked by the
    dispatcher's ``aboutToBlock``): what one turn runs (the posted events and repaints, the due
    timers, the ready sockets) holds back everything else, input included, until it ends. Between
    two ticks of the 5 ms timer there are many turns when the main thread is busy with short ones,
    so the CPU between ticks is 5 ms or more however short each turn is; the turns' own CPU is the
    longest piece of work nothing could come between."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.worst = 0.0
        self.gaps: list[float] = []
        self.cpu_last = 0.0
        self.cpu_gaps: list[float] = []
        self.started = 0.0
        self.at: list[float] = []
        """When each tick came, in seconds from the start."""
        self.cpu_in_worst = 0.0
        """The CPU time inside the longest gap."""
        self.queued_last = 0.0
        self.queued_gaps: list[float] = []
        """Between each two ticks, how long the main thread waited for a core (0 where unknown)."""
        self.queued_in_worst = 0.0
        self._schedstat = _open_schedstat()
        self.turn_cpu: list[float] = []
        """The main thread's CPU time in each turn of Qt's loop."""
        self.turn_at: list[float] = []
        """When each turn ended, in seconds from the start."""
        self._turn_cpu_last = 0.0
        self._dispatcher = QAbstractEventDispatcher.instance()

    def _turn(self) -> None:
        cpu_now = time.thread_time()
        self.turn_cpu.append(cpu_now - self._turn_cpu_last)
        self.turn_at.append(time.perf_counter() - self.started)
        self._turn_cpu_last = cpu_now

    @property
    def turn_worst(self) -> float:
        """The most CPU time in one turn of Qt's loop."""
        return max(self.turn_cpu, default=0.0)

    def start(self) -> None:
        self.last = self.started = time.perf_counter()
        self.cpu_last = time.thread_time()
        self.worst = 0.0
        self.cpu_in_worst = 0.0
        self.gaps = []
        self.cpu_gaps = []
        self.at = []
        self.queued_last = self._queued()
        self.queued_gaps = []
        self.queued_in_worst = 0.0
        self.turn_cpu = []
        self.turn_at = []
        self._turn_cpu_last = self.cpu_last
        if self._dispatcher is not None:
            self._dispatcher.aboutToBlock.connect(self._turn)
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self._dispatcher is not None:
            self._dispatcher.aboutToBlock.disconnect(self._turn)

    def _queued(self) -> float:
        """Seconds the main thread has waited for a core so far (0.0 where the system does not say)."""
        if self._schedstat is None:
            return 0.0
        return int(os.pread(self._schedstat, 64, 0).split()[1]) / 1e9

    def _tick(self) -> None:
        now, cpu_now, queued_now = time.perf_counter(), time.thread_time(), self._queued()
        gap, busy, queued = now - self.last - 0.005, cpu_now - self.cpu_last, queued_now - self.queued_last
        self.last, self.cpu_last, self.queued_last = now, cpu_now, queued_now
        self.gaps.append(gap)
        self.cpu_gaps.append(busy)
        self.queued_gaps.append(queued)
        self.at.append(now - self.started)
        if gap > self.worst:
            self.worst, self.cpu_in_worst, self.queued_in_worst = gap, busy, queued

    def worst_parts(self) -> str:
        """The longest gap split into the main thread's CPU, its wait for a core, and the rest."""
        if self._schedstat is None:
            return f"{self.cpu_in_worst * 1000:.1f} ms of it on the CPU"
        asleep = max(0.0, self.worst + 0.005 - self.cpu_in_worst - self.queued_in_worst)
        return (f"{self.cpu_in_worst * 1000:.1f} ms of it on the CPU, {self.queued_in_worst * 1000:.1f} ms waiting"
                f" for a core, {asleep * 1000:.1f} ms asleep")  # fmt: skip

    @property
    def cpu_worst(self) -> float:
        """The most CPU time between two ticks."""
        return max(self.cpu_gaps, default=0.0)

    def when(self, gaps: list[float]) -> float:
        """Seconds from the start to the end of the longest of ``gaps`` (``gaps`` or ``cpu_gaps``)."""
        return self.at[gaps.index(max(gaps))] if gaps else 0.0


class PaintWatch(QObject):
    def __init__(self, pane: EpisodesPane) -> None:
        super().__init__()
        self.pane = pane
        self.painted = asyncio.get_running_loop().create_future()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.pane.model.rowCount() > 0 and not self.painted.done():
            self.painted.set_result(time.perf_counter())
        return False


async def first_rows(session: Session, background: Background, view: str) -> tuple[float, EpisodesPane]:
    pane = EpisodesPane(session, background)
    pane.set_view(view, remember=False)
    pane.resize(1280, 800)
    pane.show()
    watch = PaintWatch(pane)
    shown = pane.views.view
    shown.viewport().installEventFilter(watch)
    start = time.perf_counter()
    pane.activate()
    painted = await asyncio.wait_for(watch.painted, 60)
    shown.viewport().removeEventFilter(watch)
    return painted - start, pane


def wheel_down(view: QAbstractItemView) -> None:
    """One turn of a fast wheel flick down over ``view`` (a real input event: Qt scrolls at most a
    page for it)."""
    viewport = view.viewport()
    centre = QPointF(viewport.rect().center())
    flick = QWheelEvent(
        centre,
        QPointF(viewport.mapToGlobal(centre.toPoint())),
        QPoint(),
        QPoint(0, -120 * 10),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, flick)


async def bare_first_page(base_url: str) -> float:
    start = time.perf_counter()
    async with httpx.AsyncClient(
        base_url=base_url, headers={"Authorization": f"Bearer {DEMO_KEY}"}
    ) as client:
        response = await client.get("/v1/episodes", params={"limit": 100})
        response.json()
    return time.perf_counter() - start


async def run(base_url: str, repeats: int, cache_dir: Path, view: str) -> None:
    cache = Cache(cache_dir / "cache.sqlite3")
    session = Session(Profile("bench", base_url), DEMO_KEY, cache, runtime=Runtime.build())
    await session.start()
    background = Background(session, cache_dir / "background")
    background.start()
    settle_startup_objects()  # as the app does once its window is up
    collector = QuietCollector()
    collector.start()
    pane_times, bare_times = [], []
    for _ in range(repeats):
        bare_times.append(await bare_first_page(base_url))
        elapsed, pane = await first_rows(session, background, view)
        pane_times.append(elapsed)
        await pane.model.wait_idle()
        pane.close()
        pane.deleteLater()
        await asyncio.sleep(0.05)

    before = rss_mib()
    _, pane = await first_rows(session, background, view)
    shown = pane.views.view
    await pane.model.wait_idle()
    probe = StallProbe()
    probe.start()  # the baseline, side by side: the same loop with the pane shown and nothing to do
    await asyncio.sleep(3.0)
    probe.stop()
    idle = sorted(probe.gaps)
    idle_worst, idle_p99 = probe.worst, (idle[int(len(idle) * 0.99) - 1] if idle else 0.0)
    probe.start()
    started = time.perf_counter()
    while True:
        await pane.model.wait_idle()
        if not pane.model.canFetchMore():
            break
        bar = shown.verticalScrollBar()
        while bar.value() < bar.maximum():  # the view asks the model for more at the end
            wheel_down(shown)
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.01)
        if not pane.model.loading and pane.model.canFetchMore():
            pane.proxy.fetchMore(shown.rootIndex())
    scrolled = time.perf_counter() - started
    probe.stop()
    after = rss_mib()
    rows = pane.model.rowCount()
    gaps = sorted(probe.gaps)
    p99 = gaps[int(len(gaps) * 0.99) - 1] if gaps else 0.0
    busy = sorted(probe.cpu_gaps)
    busy_p99 = busy[int(len(busy) * 0.99) - 1] if busy else 0.0
    print(f"episodes listed: {rows:,} ({view} view)")
    print(f"time to first rows painted (median of {repeats}): {statistics.median(pane_times) * 1000:.0f} ms;"
          f" bare httpx first page: {statistics.median(bare_times) * 1000:.0f} ms;"
          f" ratio {statistics.median(pane_times) / statistics.median(bare_times):.2f}x")  # fmt: skip
    print(f"scroll to the end: {scrolled:.1f} s for {rows // pane.page_size} pages of {pane.page_size}")
    print(f"memory: {before:.0f} MiB before the pane, {after:.0f} MiB after scrolling to the end"
          f" (+{after - before:.0f} MiB, {(after - before) * 1024 / max(rows, 1):.1f} KiB per row)")  # fmt: skip
    print(f"event loop while paging: longest stall {probe.worst * 1000:.1f} ms, 99th percentile {p99 * 1000:.1f} ms"
          f" over {len(gaps):,} ticks -> {'PASS' if probe.worst <= 0.016 else 'OVER'} (target <= 16 ms)")  # fmt: skip
    print(f"main thread's own work between ticks (CPU time): longest {probe.cpu_worst * 1000:.1f} ms,"
          f" 99th percentile {busy_p99 * 1000:.1f} ms; in the longest stall {probe.cpu_in_worst * 1000:.1f} ms")  # fmt: skip
    print(f"event loop idle beside it (3 s, pane shown): longest stall {idle_worst * 1000:.1f} ms,"
          f" 99th percentile {idle_p99 * 1000:.1f} ms; paging p99 / idle p99 = {p99 / max(idle_p99, 1e-4):.1f}x")  # fmt: skip
    print(f"full garbage collections at quiet moments: {collector.collections}")
    print(
        f"covers decoded while paging: {pane.pictures.loaded:,}; fetched from the service: {pane.pictures.artwork.fetches:,}"
    )
    collector.stop()
    pane.close()
    await session.tasks.cancel_all()
    await background.close()
    await session.close()
    cache.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-covers", action="store_true", help="episodes without covers of their own")
    parser.add_argument(
        "--view", choices=("table", "cards"), default="table", help="the pane's view to measure"
    )
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    if args.data is None:
        name = "castdeck-bench-episodes" + ("" if args.no_covers else "-covers")
        args.data = Path(tempfile.gettempdir()) / name
    sandbox = start_sandbox(args.data, "--speed", "50", "--no-seed-media")
    try:
        started = time.perf_counter()
        total = seed(sandbox.base_url, args.episodes, not args.no_covers)
        print(
            f"sandbox with {total:,} episodes ready in {time.perf_counter() - started:.0f} s (kept in {args.data})"
        )
        app = QApplication.instance() or QApplication([])
        app.setQuitOnLastWindowClosed(False)  # panes close between runs; the loop must go on
        with (
            tempfile.TemporaryDirectory() as tmp,
            asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner,
        ):
            runner.run(run(sandbox.base_url, args.repeats, Path(tmp), args.view))
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
