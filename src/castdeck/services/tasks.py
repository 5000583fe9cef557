"""Background coroutines started from the UI, kept referenced, and cancelled together at quit.

A task that fails with a :class:`CastdeckError` reports it through ``on_error`` (a banner, a field);
anything else is a bug and goes to ``sys.excepthook`` (the app logs it and shows a banner; the test
suite fails).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from castdeck.api import CastdeckError

__all__ = ["TaskRunner", "tasks"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class TaskRunner:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._long: set[asyncio.Task[Any]] = set()

    def start(
        self,
        coro: Coroutine[Any, Any, T],
        *,
        on_error: Callable[[CastdeckError], None] | None = None,
        name: str | None = None,
        long_running: bool = False,
    ) -> asyncio.Task[T]:
        """Start ``coro``. ``long_running`` marks work that lives as long as what it follows (a job
        poller): it is not counted by :attr:`running`, and still cancelled by :meth:`cancel_all`."""
        task = asyncio.get_event_loop().create_task(coro, name=name)
        self._tasks.add(task)
        if long_running:
            self._long.add(task)

        def done(finished: asyncio.Task[T]) -> None:
            self._tasks.discard(finished)
            self._long.discard(finished)
            if finished.cancelled():
                return
            error = finished.exception()
            if error is None:
                return
            if isinstance(error, CastdeckError) and on_error is not None:
                on_error(error)
            elif isinstance(error, CastdeckError):
                log.warning("background work failed: %s", error)
            else:
                sys.excepthook(type(error), error, error.__traceback__)

        task.add_done_callback(done)
        return task

    @property
    def running(self) -> int:
        """Work in flight that ends by itself soon (requests, loads), not long-running followers."""
        return len(self._tasks) - len(self._long)

    def pending(self, *, followers: bool = True) -> list[asyncio.Task[Any]]:
        """The tasks started here that have not finished yet, by name (checks and diagnostics);
        without ``followers``, only the work that ends by itself (what :attr:`running` counts)."""
        found = [t for t in self._tasks if not t.done() and (followers or t not in self._long)]
        return sorted(found, key=lambda task: task.get_name())

    async def cancel_all(self) -> None:
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


tasks = TaskRunner()
"""The app's one runner (tests may build their own)."""
