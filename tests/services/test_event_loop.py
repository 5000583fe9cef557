"""The app's event loop: ready callbacks run in order, in slices between Qt's own events, as asyncio
promises (a callback queued by another runs later, exceptions reach the loop's handler)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from castdeck.services import event_loop
from castdeck.services.event_loop import TURN_SHARE, CastdeckEventLoop, turn_spent
from tests.helpers import PassBurner, burn_cpu


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.asyncio
async def test_it_is_the_apps_qasync_loop() -> None:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, CastdeckEventLoop) and isinstance(loop, qasync.QEventLoop)


@pytest.mark.asyncio
async def test_callbacks_run_in_the_order_they_were_queued() -> None:
    loop = asyncio.get_running_loop()
    seen: list[int] = []
    done = loop.create_future()
    for number in range(200):
        loop.call_soon(seen.append, number)
    loop.call_soon(done.set_result, None)
    await done
    assert seen == list(range(200))


@pytest.mark.asyncio
async def test_a_callback_queued_by_another_runs_after_qts_waiting_events() -> None:
    """As in asyncio: what a callback queues runs in a later pass, so Qt's events (here a zero
    timer started meanwhile) come in between; a callback that queues itself cannot hold the loop."""
    loop = asyncio.get_running_loop()
    seen: list[str] = []
    done = loop.create_future()

    def first() -> None:
        seen.append("first")
        QTimer.singleShot(0, lambda: seen.append("qt"))
        loop.call_soon(second)

    def second() -> None:
        seen.append("second")
        done.set_result(None)

    loop.call_soon(first)
    await done
    await asyncio.sleep(0.01)
    assert seen == ["first", "qt", "second"]


@pytest.mark.asyncio
async def test_a_long_burst_of_callbacks_lets_qt_in_between_slices() -> None:
    """Twenty callbacks of 1 ms each, queued together: a Qt timer due meanwhile fires before the
    last of them, not after all twenty (one slice is SLICE long)."""
    loop = asyncio.get_running_loop()
    order: list[str] = []
    done = loop.create_future()
    QTimer.singleShot(0, lambda: order.append("qt"))
    for number in range(20):
        loop.call_soon(lambda n=number: (busy(0.001), order.append(f"cb{n}")))
    loop.call_soon(done.set_result, None)
    await done
    await asyncio.sleep(0.01)
    assert "qt" in order and order.index("qt") < order.index("cb19"), order
    assert [x for x in order if x != "qt"] == [f"cb{n}" for n in range(20)]
    assert event_loop.SLICE < 0.02 * 0.5  # the twenty take 20 ms: at least two slices


async def passes_of(count: int, *, first_pass_long: bool) -> tuple[list[int], float]:
    """Queue ``count`` callbacks together (from one callback, so they all run from the next pass
    on); returns the pass each ran in and what that first pass had used when the first one ran.
    With ``first_pass_long``, that pass's own events first use twice TURN_SHARE of CPU time."""
    loop = asyncio.get_running_loop()
    burner = PassBurner(TURN_SHARE)
    ran: list[int] = []
    spent: list[float] = []
    done = loop.create_future()

    def start() -> None:
        burner.burn_next = 1 if first_pass_long else 0
        loop.call_soon(lambda: (spent.append(turn_spent()), ran.append(burner.passes)))
        for _ in range(count - 1):
            loop.call_soon(lambda: ran.append(burner.passes))
        loop.call_soon(done.set_result, None)

    try:
        loop.call_soon(start)
        await done
    finally:
        burner.close()
    return ran, spent[0]


@pytest.mark.asyncio
async def test_a_pass_long_already_runs_one_callback_and_the_next_pass_the_rest() -> None:
    """A pass of Qt's loop whose own events (its repaints, before the timers) used TURN_SHARE of
    the main thread's CPU runs one ready callback, not a slice: the rest wait for the next pass,
    so the two do not add up in one pass that input cannot come between."""
    ran, spent = await passes_of(20, first_pass_long=True)
    long_pass = ran[0]
    assert spent >= TURN_SHARE  # the pass had used its share when the callbacks came to run
    assert [p for p in ran[1:] if p <= long_pass] == []
    assert ran == sorted(ran)


@pytest.mark.asyncio
async def test_a_light_pass_runs_every_callback_queued_before_it() -> None:
    ran, _ = await passes_of(20, first_pass_long=False)
    assert len(ran) == 20
    assert set(ran) == {ran[0]}


def test_the_turn_clock_counts_the_main_threads_cpu_in_the_pass(qapp: QApplication) -> None:
    """Outside a pass's work (the loop waiting costs no CPU) the clock reads little; work done
    since the pass began shows in it."""
    loop = event_loop.new_event_loop(qapp)
    try:
        seen: list[float] = []

        def measure() -> None:
            before = turn_spent()
            burn_cpu(0.004)
            seen.extend([before, turn_spent()])
            loop.stop()

        QTimer.singleShot(50, measure)  # the loop waits 50 ms first: that is not CPU time
        loop.run_forever()
    finally:
        loop.close()
    before, after = seen
    assert before < 0.004
    assert after - before >= 0.004


@pytest.mark.asyncio
async def test_a_nested_qt_loop_inside_a_callback_still_runs_the_other_callbacks() -> None:
    """A callback that runs a nested Qt loop (as a modal dialog would) does not hold the queue."""
    loop = asyncio.get_running_loop()
    seen: list[str] = []
    done = loop.create_future()

    def modal() -> None:
        nested = QEventLoop()
        give_up = QTimer()
        give_up.setSingleShot(True)
        give_up.timeout.connect(lambda: (seen.append("gave up"), nested.quit()))
        give_up.start(5000)
        loop.call_soon(lambda: (seen.append("inside"), nested.quit()))
        nested.exec()
        give_up.stop()
        seen.append("closed")
        done.set_result(None)

    loop.call_soon(modal)
    await done
    assert seen == ["inside", "closed"]


@pytest.mark.asyncio
async def test_an_exception_reaches_the_loops_handler_and_the_next_callbacks_still_run() -> None:
    loop = asyncio.get_running_loop()
    caught: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: caught.append(context))
    seen: list[str] = []
    done = loop.create_future()
    try:

        def fails() -> None:
            raise ValueError("broken callback")

        loop.call_soon(fails)
        loop.call_soon(seen.append, "after")
        loop.call_soon(done.set_result, None)
        await done
    finally:
        loop.set_exception_handler(None)
    assert seen == ["after"]
    assert len(caught) == 1 and isinstance(caught[0]["exception"], ValueError)


@pytest.mark.asyncio
async def test_a_cancelled_callback_does_not_run() -> None:
    loop = asyncio.get_running_loop()
    seen: list[str] = []
    done = loop.create_future()
    handle = loop.call_soon(seen.append, "cancelled")
    loop.call_soon(seen.append, "kept")
    loop.call_soon(done.set_result, None)
    handle.cancel()
    await done
    assert seen == ["kept"]


def test_a_callback_that_is_not_callable_is_refused_at_once(qapp: QApplication) -> None:
    with asyncio.Runner(loop_factory=lambda: event_loop.new_event_loop(qapp)) as runner:
        loop = runner.get_loop()
        with pytest.raises(TypeError, match="callable"):
            loop.call_soon("not a function")  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_work_from_other_threads_and_tasks_still_arrives() -> None:
    loop = asyncio.get_running_loop()
    arrived = loop.create_future()
    threading.Thread(target=lambda: loop.call_soon_threadsafe(arrived.set_result, "from a thread")).start()
    assert await asyncio.wait_for(arrived, 5) == "from a thread"
    assert await loop.run_in_executor(None, sum, [1, 2, 3]) == 6

    async def steps(n: int) -> int:
        for _ in range(n):
            await asyncio.sleep(0)
        return n

    assert await asyncio.gather(*(steps(n) for n in range(50))) == list(range(50))


def test_closing_drops_what_waits_and_runs_nothing_more(qapp: QApplication) -> None:
    seen: list[str] = []
    loop = event_loop.new_event_loop(qapp)
    loop.call_soon(seen.append, "never")
    loop.close()
    qapp.processEvents()
    assert seen == [] and loop.is_closed()


async def until_ran(done: Callable[[], bool]) -> None:
    """Turns of the loop until ``done()`` (the callbacks waiting run in them, a slice a turn)."""
    for _ in range(10_000):
        if done():
            return
        await asyncio.sleep(0)
    raise AssertionError("the callbacks never ran")


def test_callbacks_run_only_while_the_loop_runs(qapp: QApplication) -> None:
    """Qt's events are handled outside the loop's run too (qasync once more after
    run_until_complete; a test's processEvents): a callback still waiting then stays waiting
    for the next run, where asyncio has its running loop."""
    loop = event_loop.new_event_loop(qapp)
    ran_in: list[object] = []

    def record() -> None:
        ran_in.append(asyncio._get_running_loop())

    async def leaves_work_behind() -> None:
        for _ in range(100):  # more than one slice: some wait past the end of this run
            loop.call_soon(lambda: (busy(0.0005), record()))

    try:
        loop.call_soon(record)
        qapp.processEvents()
        assert ran_in == []  # not run yet: the loop has not run
        loop.run_until_complete(leaves_work_behind())
        outside = len(ran_in)
        qapp.processEvents()
        assert len(ran_in) == outside  # nothing ran outside the run
        loop.run_until_complete(until_ran(lambda: len(ran_in) >= 101))
        assert len(ran_in) == 101 and all(running is loop for running in ran_in)
    finally:
        loop.close()


@pytest.mark.asyncio
async def test_qt_events_processed_inside_a_task_step_lose_no_other_tasks_wakeup() -> None:
    """A task's step that makes Qt process its events (QTest's mouse clicks do, as does a
    processEvents call) must not run another task's step inside it: asyncio refuses a step within a
    step ("Cannot enter into task …"), the refused wakeup is gone, and that task never runs again
    (seen as a test teardown waiting forever on tasks it had cancelled)."""
    loop = asyncio.get_running_loop()
    problems: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: problems.append(context))
    ran: list[str] = []

    async def other() -> None:
        ran.append("first step")
        await asyncio.sleep(0)
        ran.append("second step")

    task = asyncio.ensure_future(other())  # its first step is queued
    for _ in range(5):
        QApplication.processEvents()  # inside this test task's step, as a QTest click does
    assert ran == []  # nothing ran inside this step
    await asyncio.wait_for(task, 5)
    assert ran == ["first step", "second step"]
    assert problems == []
    loop.set_exception_handler(None)
