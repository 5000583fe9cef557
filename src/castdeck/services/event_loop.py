"""The app's event loop: asyncio on the Qt event loop (qasync), with its ready callbacks run in
slices.

One place creates it, so the app and the qasync checks of the test suite use the same loop.

qasync runs each ``call_soon`` callback (a task's next step, a future's done callback, an answer
from the disk thread) from a Qt timer of its own: a ``startTimer(0)``, a timer event, a
``killTimer``. Qt then runs every timer due in one pass of its loop, so a burst of them (a list's
answers arriving, twenty writes stored at once) ran back to back, however long, before the window
could repaint or any other timer fire (``benchmarks/background_load.py``: 75 callbacks in one
pass, 9 to 14 ms). Here the ready callbacks wait in one queue, in order, and one zero-timer runs
them: in each pass of Qt's loop, those queued before the pass began, until :data:`SLICE` has gone
by; the rest run in the next pass, after Qt's own events. As in asyncio's loop, a callback queued
by another runs in the next pass, never in the same one, and callbacks run only while the loop
runs. Timed callbacks (``call_later``, ``call_at``) stay with qasync's timers. Only public
interfaces are used: the queue keeps each callback with its context and runs it with
``Context.run``, reporting an exception to ``call_exception_handler`` as asyncio's loop does; the
``asyncio.Handle`` that ``call_soon`` returns is what a caller cancels, and ``cancelled()`` is
asked before the callback runs. Qt handling its
events inside a task's step (``processEvents``; QTest's mouse clicks) runs no callback there: as in
asyncio, never a step inside a step; they run once the step has returned.

A pass whose own events were long (Qt handles the posted events, the repaints among them, before
the timers) runs one ready callback, not a whole slice: :func:`turn_spent` tells how much of the
main thread's time the current pass has used, and other background work (the Jobs dock's card
builder) reads it too, so that a long repaint and a slice of background work do not add up in
one pass that nothing, input included, can come between.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import qasync
from PySide6.QtCore import QAbstractEventDispatcher, QCoreApplication, QObject, QTimerEvent

__all__ = ["SLICE", "TURN_SHARE", "CastdeckEventLoop", "new_event_loop", "turn_spent"]

SLICE = 0.001
"""Seconds of ready callbacks run in one pass of Qt's loop, at most (then the pass ends after the
callback running at that moment). Between two passes Qt repaints and fires its due timers, so a
repaint or a timer waits for one slice, not for the whole burst. In the start burst of
``benchmarks/background_load.py`` the longest turns were 12-13 ms with 2 ms slices and two job cards
built a frame, 9-12 ms with 1 ms slices and one card a frame."""


TURN_SHARE = 0.003
"""Seconds of the main thread's CPU a pass of Qt's loop may have used on its own events before its
background work gives way to the next pass: the ready callbacks run one (so they always move on),
a job card waits for the next frame. In the start burst of ``benchmarks/background_load.py`` the
longest pass was the upload queue's first layout and paint (about 5 ms) with a card built and a
slice run after it in the same pass: 8.0-8.5 ms."""


class _TurnClock:
    """The main thread's CPU time at the start of the current pass of Qt's loop (the dispatcher
    says ``aboutToBlock`` before it waits, ``awake`` when a pass will not wait; no CPU time passes
    while it waits, so the CPU time since either is what the pass has used)."""

    def __init__(self, dispatcher: QAbstractEventDispatcher) -> None:
        self.dispatcher = dispatcher
        self.began = time.thread_time()
        dispatcher.aboutToBlock.connect(self._pass)
        dispatcher.awake.connect(self._pass)

    def _pass(self) -> None:
        self.began = time.thread_time()


_clock: _TurnClock | None = None


def turn_spent() -> float:
    """Seconds of the main thread's CPU the current pass of Qt's loop has used so far (0.0 before
    the app's loop exists). Only meaningful on the main thread."""
    return time.thread_time() - _clock.began if _clock is not None else 0.0


def _follow_passes(app: QCoreApplication) -> None:
    global _clock
    dispatcher = QAbstractEventDispatcher.instance(app.thread())
    if dispatcher is not None and (_clock is None or _clock.dispatcher is not dispatcher):
        _clock = _TurnClock(dispatcher)


class _Queued(NamedTuple):
    """A ready callback as queued: what runs, in which context, and the handle that cancels it."""

    handle: asyncio.Handle
    callback: Callable[..., Any]
    args: tuple[Any, ...]
    context: contextvars.Context


class _ReadyQueue(QObject):
    """The loop's ready callbacks, run from one zero-timer in slices of :data:`SLICE`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._handles: collections.deque[_Queued] = collections.deque()
        self._timer = 0
        self._stopped = False

    def add(self, queued: _Queued) -> None:
        """Queue a callback; its ``handle`` (what ``call_soon`` returned) cancels it."""
        self._handles.append(queued)
        self.resume()

    def _run(self, queued: _Queued) -> None:
        """One callback, its exception to the loop's exception handler, as asyncio's own loop does."""
        handle, callback, args, context = queued
        try:
            context.run(callback, *args)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            self._loop.call_exception_handler(
                {"message": f"Exception in callback {handle!r}", "exception": exc, "handle": handle}
            )

    def resume(self) -> None:
        """What waits runs from the next pass on (the loop runs again, or more came)."""
        if self._handles and not self._timer and not self._stopped:
            self._timer = self.startTimer(0)

    def stop(self) -> None:
        """No more callbacks run (the loop is closed); the ones waiting are dropped."""
        self._stopped = True
        self._handles.clear()
        if self._timer:
            self.killTimer(self._timer)
            self._timer = 0

    def timerEvent(self, event: QTimerEvent) -> None:
        if event.timerId() != self._timer:
            return
        # Stopped while the pass runs: a callback that runs a nested Qt loop (a modal dialog) would
        # otherwise hold the queue, as Qt never fires a timer inside its own timer event; what is
        # queued meanwhile starts a timer of its own, which the nested loop fires.
        self.killTimer(self._timer)
        self._timer = 0
        if not self._loop.is_running():
            # Qt's events are handled outside the loop's run too (qasync handles them once more
            # after run_until_complete, a test may process them): as in asyncio, callbacks run
            # only while the loop runs; these wait for its next run.
            return
        if asyncio.current_task(self._loop) is not None:
            # Qt is handling its events inside a task's step (a processEvents call; QTest's mouse
            # clicks make one). asyncio never runs a callback inside a step: another task's step
            # would be refused there ("Cannot enter into task ...") and its wakeup lost, leaving
            # that task waiting for ever. They run once this step has returned (the pass running
            # it resumes the queue at its end).
            return
        handles = self._handles
        due = len(handles)  # those queued before this pass: what they queue runs in the next one
        # a pass long already (a big repaint before the timers): one callback, the rest next pass
        end = time.perf_counter() + (SLICE if turn_spent() < TURN_SHARE else 0.0)
        while due and handles and not self._stopped:
            due -= 1
            queued = handles.popleft()
            if not queued.handle.cancelled():
                self._run(queued)
            if time.perf_counter() >= end:
                break
        self.resume()


class CastdeckEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """qasync's loop with :meth:`call_soon` queued and run in slices (see the module)."""

    def __init__(self, app: QCoreApplication) -> None:
        self._soon = _ReadyQueue(self)  # not _ready: asyncio.BaseEventLoop has its own
        _follow_passes(app)
        super().__init__(app)

    def run_forever(self) -> Any:
        self._soon.resume()  # fires once Qt's loop runs, inside the run
        return super().run_forever()

    def call_soon(
        self, callback: Callable[..., Any], *args: Any, context: contextvars.Context | None = None
    ) -> asyncio.Handle:
        if not callable(callback):
            raise TypeError(f"callback must be callable: {type(callback).__name__}")
        context = context if context is not None else contextvars.copy_context()
        handle = asyncio.Handle(callback, args, self, context=context)  # what a caller cancels
        self._soon.add(_Queued(handle, callback, args, context))
        return handle

    def close(self) -> None:
        super().close()  # refuses a running loop before anything is dropped
        self._soon.stop()


def new_event_loop(app: QCoreApplication) -> CastdeckEventLoop:
    """An asyncio loop driven by ``app``'s Qt event loop."""
    return CastdeckEventLoop(app)
