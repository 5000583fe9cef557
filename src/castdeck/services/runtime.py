"""The runtime pieces the app builds once, at start-up, and hands to each session: where work runs,
and the settings.

:class:`CastdeckApp` (the composition root) builds one :class:`Runtime`; each :class:`Session` is
handed it (``session.runtime``), and the services and widgets built on the session take their
pieces from there. Nothing here is a module-level object: a test, a benchmark or a second app
builds its own.

* ``tasks``: the services' coroutines (:class:`~castdeck.services.tasks.TaskRunner`);
* ``disk``: one thread for the small, ordered disk work of every session (the cache database,
  the drafts): one thread, so what is asked in order is done in order;
* ``files``: one thread for the media files (audio kept for offline listening, finished videos and
  their stills): copies and evictions that may take longer, so they never hold up a list's read;
* ``pictures``: two threads that decode and scale covers off the UI thread;
* ``pictures_memory``: the one byte budget of every picture kept in memory (covers, tiles, stills:
  :class:`~castdeck.services.memory_budget.MemoryBudget`), so together they stay bounded;
* ``settings``: the typed settings (:class:`~castdeck.services.settings.Settings`), written behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .memory_budget import PICTURES_IN_MEMORY, MemoryBudget
from .settings import Settings
from .tasks import TaskRunner

__all__ = ["Runtime", "run_on"]

T = TypeVar("T")


async def run_on(executor: Executor, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on ``executor``, awaited from the event loop."""
    return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)


@dataclass(frozen=True)
class Runtime:
    tasks: TaskRunner
    disk: ThreadPoolExecutor
    files: ThreadPoolExecutor
    pictures: ThreadPoolExecutor
    settings: Settings
    pictures_memory: MemoryBudget

    @classmethod
    def build(
        cls,
        tasks: TaskRunner | None = None,
        settings: Settings | None = None,
        *,
        pictures_memory: int = PICTURES_IN_MEMORY,
    ) -> Runtime:
        return cls(
            tasks=tasks if tasks is not None else TaskRunner(),
            settings=settings if settings is not None else Settings(),
            pictures_memory=MemoryBudget(pictures_memory),
            disk=ThreadPoolExecutor(max_workers=1, thread_name_prefix="castdeck-disk"),
            files=ThreadPoolExecutor(max_workers=1, thread_name_prefix="castdeck-files"),
            pictures=ThreadPoolExecutor(max_workers=2, thread_name_prefix="castdeck-pictures"),
        )

    async def drained(self, executor: Executor) -> None:
        """Until what was asked of ``executor`` before now has been done (its one thread takes the
        work in order): a session's last writes are on disk before it reports closed."""
        await run_on(executor, lambda: None)

    def close(self) -> None:
        """Stop the threads once their work is done (the app's quit, on a worker thread: waiting for
        a write in flight must not hold the event loop)."""
        for executor in (self.disk, self.files, self.pictures):
            executor.shutdown(wait=True, cancel_futures=False)
