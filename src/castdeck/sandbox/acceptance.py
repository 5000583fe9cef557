"""Acceptances held open by ``--accept-hold``: a keyed write whose outcome is not settled yet.

Each one is a task of its own (not the request's), so a client that disconnects, or a request
that is cancelled, cannot stop it half-way: the acceptance always ends with a settled
idempotency row. One :class:`asyncio.Event` per (organization, scope, key) lets a resend
that was answered 409 end the hold at once, so tests wait on events, never on the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
Ident = tuple[str, str, str]  # (org_id, scope, idempotency key)


class Acceptances:
    def __init__(self) -> None:
        self._events: dict[Ident, asyncio.Event] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def holding(self, ident: Ident) -> bool:
        """Whether an acceptance under this key is still running in this process."""
        return ident in self._events

    def start(self, ident: Ident, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run ``work`` as its own task; :meth:`holding` is true from now until it has ended.

        The caller must have written the pending idempotency row before calling this, with no
        ``await`` in between, so that every request sees the row and the hold together.
        """
        event = asyncio.Event()
        self._events[ident] = event

        async def run() -> T:
            try:
                return await work
            finally:  # in the same step as the row's last change: no request sees one without the other
                if self._events.get(ident) is event:
                    del self._events[ident]

        task = asyncio.get_running_loop().create_task(run(), name=f"accept:{ident[1]}")
        self._tasks.add(task)
        task.add_done_callback(self._forget)
        return task

    async def wait(self, ident: Ident, seconds: float) -> None:
        """Up to ``seconds``, or until :meth:`release` ends the hold."""
        event = self._events.get(ident)
        if event is None:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await event.wait()

    async def release(self, ident: Ident) -> None:
        """End the hold now (a resend under the key was answered).

        A coroutine on purpose: Starlette runs a plain function given as a background task on a
        worker thread, and an event must be set on the loop's own thread."""
        event = self._events.get(ident)
        if event is not None:
            event.set()

    async def close(self) -> None:
        """At shutdown: end every hold and let each acceptance settle its row."""
        for event in list(self._events.values()):
            event.set()
        tasks = list(self._tasks)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        # Its answer may have nobody left to take it (the client went away): retrieve any
        # exception (a rejection found after the hold) so asyncio does not report it as lost.
        if not task.cancelled():
            task.exception()
