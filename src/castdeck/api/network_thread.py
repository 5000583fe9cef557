"""An event loop on a thread of its own for httpx's work.

The app's event loop runs on the UI thread (qasync). Every request made there pays httpx's own
Python work on that thread: building the connection's state, h11 writing and parsing, the pool's
book-keeping, reading the answer in chunks. One request costs about 1-3 ms of it, and 200 polled
jobs make that most of the main thread's work between two frames (``benchmarks/background_load.py``,
profiled with py-spy). With a :class:`NetworkThread`, the transport sends the service's requests from
this loop instead: the UI thread only hands the request over and takes the finished answer back.

Cancelling the awaiting task cancels the request on the network thread too.

The app's session does not use it (``Client(network_thread=False)``, the default): measured side by
side (``benchmarks/background_load.py --network-thread``, ``benchmarks/episodes_scale.py``), the
UI thread's stalls did not shrink, because httpx's work still holds the interpreter's lock it shares
with the UI thread, and the first page of a list arrived later. It stays for measuring, and for
clients that run without a UI loop to protect.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["NetworkThread", "NetworkThreadClosed"]


class NetworkThreadClosed(RuntimeError):
    """The network thread was stopped (its client was closed) before the work could start
    (``started`` False), or while it ran (``started`` True: a request may have left)."""

    def __init__(self, message: str, *, started: bool) -> None:
        super().__init__(message)
        self.started = started


class NetworkThread:
    """One daemon thread running an asyncio loop; :meth:`run` awaits a coroutine on it from any loop."""

    def __init__(self, name: str = "castdeck-network") -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def _ensure_started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._stopped:
                raise NetworkThreadClosed("the client was closed", started=False)
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    try:
                        loop.run_forever()
                    finally:
                        with contextlib.suppress(Exception):
                            loop.run_until_complete(loop.shutdown_asyncgens())
                        loop.close()

                self._thread = threading.Thread(target=serve, name=self.name, daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Await ``work`` on the network thread's loop (started on first use)."""
        try:
            loop = self._ensure_started()
        except NetworkThreadClosed:
            work.close()
            raise
        try:
            future = asyncio.run_coroutine_threadsafe(work, loop)
        except RuntimeError:  # the loop stopped between the check and the hand-over
            work.close()
            raise NetworkThreadClosed("the client was closed", started=False) from None
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if future.cancelled() and task is not None and not task.cancelling():
                # Cancelled over there by stop(), not by our caller: for the caller, a lost connection.
                raise NetworkThreadClosed("the client was closed during the request", started=True) from None
            raise

    async def stop(self, last: Coroutine[Any, Any, Any] | None = None) -> None:
        """Run ``last`` (the clients' closing) on the thread, then stop its loop and wait for it to end.
        Later calls to :meth:`run` raise :class:`NetworkThreadClosed`."""
        with self._lock:
            loop, thread = self._loop, self._thread
            already = self._stopped
            self._stopped = True
        if already or loop is None or thread is None:
            if last is not None:
                last.close()
            return
        try:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_finish(last), loop))
        finally:
            loop.call_soon_threadsafe(loop.stop)
            await asyncio.to_thread(thread.join)


async def _finish(last: Coroutine[Any, Any, Any] | None) -> None:
    """On the network thread, last: cancel what is still in flight (its callers have been told,
    or will be), wait for it to unwind, then run ``last``."""
    current = asyncio.current_task()
    pending = [task for task in asyncio.all_tasks() if task is not current]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    if last is not None:
        await last
