"""The soak: the real app driven through scripted creator use for a set time against a sandbox that
fails a fifth of its requests, then every figure the issue asks for.

    report = await run_soak(SoakSettings(seconds=60, seed=7), root)   # on the app's qasync loop
    print(report.table())

It builds the app as ``castdeck`` does (:class:`~castdeck.app.CastdeckApp`: the cache, a Session and
its Background, the real MainWindow) on the running qasync loop, against the sandbox started with
``--chaos P --chaos-seed N --speed 50`` behind two recording proxies (its API, and its signed
addresses through ``--signed-base-url``). A seeded random schedule of steps (tests/soak/steps.py)
runs until the time is up; then the creator waits for the app to catch up (the network is back,
failed uploads retried as a creator would, every kept request answered, every upload taken in),
and the figures are read: what the driver asked for, counted by the driver; what the service did,
read from the sandbox's own database after the drain.

Used by benchmarks/soak.py (minutes) and tests/soak/test_soak.py (60 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QApplication

from castdeck.app import CastdeckApp, settle_startup_objects
from castdeck.services.heap import HeapUsage, heap_usage
from tests.conftest import DEMO_KEY
from tests.soak.creator import Creator, NotOnline, StepFailed, taken_up_again, until
from tests.soak.report import SoakReport, StepRecord, count_generations, count_uploads
from tests.soak.service import Service, start_service
from tests.soak.steps import STEPS, Step, switch_panes
from tests.soak.watch import Problems, StallProbe, rss_mib, sqlite_mib

__all__ = ["SoakReport", "SoakSettings", "run_soak"]

DRAIN = 600.0
"""Seconds the creator waits, after the last step, for the app and the service to catch up."""


@dataclass
class SoakSettings:
    seconds: float = 600.0
    steps: int | None = None
    """Stop after this many steps instead of after ``seconds`` (the suite's run: the same work on
    any machine, however fast)."""
    seed: int = 7
    chaos: float = 0.2
    speed: float = 50.0
    trace_memory: bool = False
    only: tuple[str, ...] = ()
    """After the warm-up round, only these steps (by name), each as often as its weight: which
    kind of use grows memory (``benchmarks/soak.py --only``). Empty: every step."""
    screenshot: Path | None = None
    """Where to save the window as the run ends (the Jobs dock shown)."""
    say: Callable[[str], None] = field(default=lambda _line: None)
    """Where each step's line goes (benchmarks/soak.py prints them)."""


@contextmanager
def _environment(**values: str) -> Any:
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _own_settings(root: Path) -> None:
    """QSettings of the run's own (window geometry, the last pane, upload concurrency)."""
    QCoreApplication.setOrganizationName("CastdeckSoak")
    QCoreApplication.setApplicationName("CastdeckSoak")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(root / "settings"))


async def run_soak(settings: SoakSettings, root: Path) -> SoakReport:
    """Run the soak in ``root`` (an empty folder); the app and the service are closed at the end."""
    loop = asyncio.get_running_loop()
    service = start_service(
        root / "service", "--speed", str(settings.speed), "--chaos", str(settings.chaos),
        "--chaos-seed", str(settings.seed), "--workers", "1",
    )  # fmt: skip
    app: CastdeckApp | None = None
    holder: dict[str, Creator] = {}
    problems = Problems(step=lambda: holder["c"].step if "c" in holder else "start")
    problems.install(loop)
    try:
        baseline = service.records().last_seq()
        _own_settings(root)
        rss_before = rss_mib()
        app = CastdeckApp(argparse.Namespace(sandbox=False, data=None, speed=1.0, profile=None), root / "app")
        with _environment(CASTDECK_BASE_URL=service.base_url, CASTDECK_API_KEY=DEMO_KEY):
            if not await app.open():
                raise RuntimeError("the app did not open its window")
        files = root / "files"
        files.mkdir()
        creator = holder["c"] = Creator(
            app, service, random.Random(settings.seed + 1), files, f"{settings.seed:x}"
        )
        creator.watch_uploads()
        report = SoakReport(settings=settings, rss_before=rss_before)
        await until(lambda: creator.online, "the first connection", timeout=120)
        await _run(creator, settings, report)
        await _drain(creator, report)
        _count(creator, service, baseline, report)
        report.exceptions = [f"[{p.step}] {p.text}" for p in problems.exceptions]
        report.qt_warnings = [f"[{p.step}] {p.text}" for p in problems.qt_warnings]
        report.ignored_qt = dict(problems.ignored_qt)
        return report
    finally:
        if app is not None:
            await app.shutdown()
            if app.window is not None:
                app.window.hide()  # (closing the last window would stop a test's loop)
        problems.remove()
        service.stop()


async def _run(c: Creator, settings: SoakSettings, report: SoakReport) -> None:
    probe = StallProbe(step=lambda: c.step)
    probe.start()
    if settings.trace_memory:
        tracemalloc.start(10)
    try:
        c.step = "warm-up"  # every pane once: what is built once is not counted as growth
        for row in range(c.window.sidebar.count()):
            await c.loaded(await c.show_pane(c.window.sidebar.item(row).text()))
        with probe.paused():
            settle_startup_objects()  # as CastdeckApp.run() does once the first screen is up
            c.app.collector.start()
            report.rss_panes = _memory(c)[0]
        schedule = _schedule(settings.seed, settings.only)
        taken = 0
        t0 = time.monotonic()
        # The first round of every step is the warm-up's second half: each dialog, the Listen window
        # (and FFmpeg with it), the first picture of each size, each kind of job card are built once.
        while (settings.steps is None or taken < settings.steps) and (step := next(schedule)) is not None:
            await _take(c, step, report, settings, probe, t0)
            taken += 1
        with probe.paused():
            report.rss_warm, report.heap_warm = _memory(c)
            report.sqlite_warm = sqlite_mib()
            report.pictures_warm = _pictures_mib(c)
            report.widgets_warm = len(QApplication.allWidgets())
        snapshot = tracemalloc.take_snapshot() if settings.trace_memory else None
        started = time.monotonic()
        while (
            taken < settings.steps
            if settings.steps is not None
            else time.monotonic() - started < settings.seconds
        ):
            step = next(schedule)
            if step is None:  # a round of every step is over
                with probe.paused():
                    rss, heap = _memory(c)
                    jobs = len(c.background.jobs.jobs())
                    report.rss_rounds.append((rss, len(QApplication.allWidgets()), jobs, heap))
                continue
            await _take(c, step, report, settings, probe, t0)
            taken += 1
        c.step = "after"
        await switch_panes(c)
        if settings.screenshot is not None:
            with probe.paused():
                c.window.jobs_dock.show()
                settings.screenshot.parent.mkdir(parents=True, exist_ok=True)
                c.window.grab().save(str(settings.screenshot))
        with probe.paused():
            report.rss_end, report.heap_end = _memory(c)
            report.sqlite_end = sqlite_mib()
            report.pictures_end = _pictures_mib(c)
            report.pictures_limit = c.app.runtime.pictures_memory.limit / 2**20
            report.widgets_end = len(QApplication.allWidgets())
        if snapshot is not None:
            top = tracemalloc.take_snapshot().compare_to(snapshot, "lineno")[:12]
            report.memory_top = [str(stat) for stat in top]
            tracemalloc.stop()
    finally:
        probe.stop()
    report.stall_ms = probe.worst * 1000
    report.stall_step = probe.worst_step
    report.stalls_over_50ms = probe.over_50ms
    report.longest_stalls = [(gap * 1000, step, stack) for gap, step, stack in probe.longest]
    report.stalls_by_step = dict(sorted(probe.over_50ms_by_step.items(), key=lambda kv: -kv[1]))
    report.stall_by_step = {k: v * 1000 for k, v in sorted(probe.per_step.items(), key=lambda kv: -kv[1])}


async def _take(
    c: Creator, step: Step, report: SoakReport, settings: SoakSettings, probe: StallProbe, t0: float
) -> None:
    """Run one step and note its outcome, its time (from ``t0``) and the widgets it added."""
    c.step = step.__name__  # before the pause: the probe notes the new step when it resumes
    with probe.paused():  # counting the widgets makes a wrapper for each: the driver's own cost
        widgets = len(QApplication.allWidgets())
    record = StepRecord(c.step, time.monotonic() - t0)
    try:
        record.outcome = await step(c)
    except StepFailed as failure:
        c.service.check()
        record.failed, record.outcome = True, str(failure)
        await _tidy(c)
    except NotOnline as gone:
        record.outcome = f"not online: {gone}"
        await _tidy(c, network=False)
    record.seconds = time.monotonic() - t0 - record.started
    await asyncio.sleep(0)  # what the step let go of (deleteLater) is deleted before counting
    with probe.paused():
        record.widgets = len(QApplication.allWidgets()) - widgets
    report.steps.append(record)
    settings.say(record.line())


def _memory(c: Creator) -> tuple[float, HeapUsage | None]:
    """Resident memory once the app has done what it does at a quiet moment (a full collection,
    then the C heap's free pages given back), and the C heap's own account."""
    c.app.collector.collect()
    return rss_mib(), heap_usage()


def _pictures_mib(c: Creator) -> float:
    """MiB of pictures the app keeps in memory (its one budget for them)."""
    return c.app.runtime.pictures_memory.bytes / 2**20


def _schedule(seed: int, only: tuple[str, ...] = ()) -> Iterator[Step | None]:
    """Rounds of every step, each as often as its weight, in a seeded random order (even a short
    run does a bit of everything); None between rounds. With ``only``, the rounds after the first
    (the warm-up's) hold just the steps so named."""
    rng = random.Random(seed)
    deck = [step for step, weight in STEPS for _ in range(weight)]
    rng.shuffle(deck)
    yield from deck
    yield None
    if only:
        deck = [step for step in deck if step.__name__ in only]
    while True:
        rng.shuffle(deck)
        yield from deck
        yield None


async def _tidy(c: Creator, *, network: bool = True) -> None:
    """After a step that did not finish: close what it left open (dialogs, the Listen window) and
    go on; after a failed one, with the network back as well."""
    for widget in QApplication.topLevelWidgets():
        if widget is not c.window and widget.isVisible():
            widget.close()
    if network:
        c.service.online()
    await asyncio.sleep(0)


async def _drain(c: Creator, report: SoakReport) -> None:
    """The creator waits for everything to finish: back online, failed uploads retried (the queue's
    "Retry failed" button, as a creator would), every kept request answered, every file taken in."""
    c.step = "drain"
    started = time.monotonic()
    c.service.check()
    c.service.online()
    await until(lambda: c.online, "online for the drain", timeout=DRAIN)
    queue = c.background.uploads
    sources = await c.show_pane("Sources")
    mine = set(c.uploads)
    while True:
        items = [i for i in queue.items() if i.name in mine]
        if all(i.state == "done" for i in items):
            break
        if time.monotonic() - started > DRAIN:
            raise StepFailed(
                f"uploads not done: {[(i.name, i.state, i.error) for i in items if i.state != 'done']}"
            )
        failed = [i for i in items if i.state == "failed"]
        if failed and sources.queue_view is not None:
            button = sources.queue_view.buttons["retry_failed"]
            await until(button.isEnabled, "Retry failed enabled")
            c.click(button)
            c.upload_retries += 1
            await taken_up_again(queue, failed)
        await asyncio.sleep(0.05)
    outbox = c.background.outbox
    await until(
        lambda: not any(e.unsent for e in outbox.entries()), "every kept request answered", timeout=DRAIN
    )

    def processed() -> bool:
        done = c.service.records().uploads(0)
        return not any(
            s.get("status") == "processing" and s["metadata"].get("file_name") in mine for s in done
        )

    await until(processed, "every upload processed on the service", timeout=DRAIN)
    report.drain_seconds = time.monotonic() - started


def _count(c: Creator, service: Service, baseline: int, report: SoakReport) -> None:
    records = service.records()
    entries = [
        (e.idempotency_key, json.dumps(e.body), e.state, e.last_error) for e in c.background.outbox.entries()
    ]
    report.generations = count_generations(c.asks, entries, records.keys(), records.generations(baseline))
    report.refusals = list(c.refusals)
    report.shown_and_retried = list(c.notes)
    report.uploads = count_uploads(c.uploads, records.completed_uploads(baseline))
    report.refused_locally = len(c.refused_locally)
    report.upload_retries = c.upload_retries
    report.upload_failures = dict(c.upload_failures)
    resent = [e for e in c.background.outbox.entries() if e.attempts > 1]
    report.resent = (len(resent), sum(e.attempts - 1 for e in resent))
    report.key_elsewhere = [
        f"{s.method} {s.path} ({', '.join(s.credentials)})" for s in service.signed.with_credentials
    ]
    report.api_requests = service.api.requests
    report.signed_requests = service.signed.requests
