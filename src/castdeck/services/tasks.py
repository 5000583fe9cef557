"""Background coroutines, kept referenced, reported when they fail, and cancelled by their owner.

Two owners start work:

* the app's services (sessions, job followers, the outbox, uploads) start theirs on the one
  :class:`TaskRunner` the app builds at start-up and hands to each :class:`Session` (``session.tasks``);
  the app cancels it all at quit (:meth:`TaskRunner.cancel_all`);
* a widget (a pane, a dialog, an item model) starts its own on a :class:`TaskScope`, a Qt child of
  the widget, which cancels them when the widget is closed (:func:`close_owned`) or destroyed, so
  nothing a window showed runs on after it is gone. A scope needs no runner: its work is its own.

A task that fails with a :class:`CastdeckError` reports it through ``on_error`` (a banner, a field);
anything else is a bug and goes to ``sys.excepthook`` (the app logs it and shows a banner; the test
suite fails).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

from PySide6.QtCore import QObject

from castdeck.api import CastdeckError

__all__ = ["TaskRunner", "TaskScope", "close_owned", "end_owned", "owned_scopes", "start_reported"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def start_reported(
    coro: Coroutine[Any, Any, T],
    *,
    on_error: Callable[[CastdeckError], None] | None = None,
    name: str | None = None,
) -> asyncio.Task[T]:
    """Start ``coro`` on the running loop; when it fails, report it (``on_error`` for a
    :class:`CastdeckError`, the log when none is given, ``sys.excepthook`` for anything else).
    The caller keeps the task referenced."""
    task = asyncio.get_event_loop().create_task(coro, name=name)

    def done(finished: asyncio.Task[T]) -> None:
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
        task = start_reported(coro, on_error=on_error, name=name)
        self._tasks.add(task)
        if long_running:
            self._long.add(task)

        def forget(finished: asyncio.Task[T]) -> None:
            self._tasks.discard(finished)
            self._long.discard(finished)

        task.add_done_callback(forget)
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
        """Cancel every task started here and wait for them to end (all but the caller's own)."""
        me = asyncio.current_task()
        pending = [t for t in self._tasks if not t.done() and t is not me]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


class TaskScope(QObject):
    """The tasks one owner started. :meth:`close` (or the owner's destruction) cancels those still
    running; work started after it is cancelled before it runs a single step (a signal that
    reaches a closing pane must not start requests for it, nor fail).

    A scope is a Qt child of its owner, so the scopes of a window and of everything it owns are
    found the Qt way, by type (:func:`owned_scopes`), not by an attribute set on the owner."""

    def __init__(self, owner: QObject) -> None:
        super().__init__(owner)
        self.setObjectName("task scope")
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = False
        owner.destroyed.connect(lambda *_: self.close())

    def start(
        self,
        coro: Coroutine[Any, Any, T],
        *,
        on_error: Callable[[CastdeckError], None] | None = None,
        name: str | None = None,
    ) -> asyncio.Task[T]:
        task = start_reported(coro, on_error=on_error, name=name)
        if self.closed:
            task.cancel()
            return task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def pending(self) -> list[asyncio.Task[Any]]:
        return [task for task in self._tasks if not task.done()]

    def close(self) -> None:
        """Cancel what is still running; start nothing more."""
        self.closed = True
        for task in self.pending():
            task.cancel()


def owned_scopes(root: QObject) -> list[TaskScope]:
    """The task scopes of ``root`` and of every object it owns (its Qt children, at any depth)."""
    return root.findChildren(TaskScope)


def close_owned(root: QObject) -> None:
    """Close the task scopes of ``root`` and of everything it owns: a window, pane or dialog that
    closes ends its work, and its children's."""
    for scope in owned_scopes(root):
        scope.close()


async def end_owned(roots: Iterable[QObject]) -> None:
    """Close the task scopes of ``roots`` and of everything they own, and wait for their work to
    end (the app's quit: nothing a window started is left for the loop's close to destroy)."""
    ending = []
    for root in roots:
        for scope in owned_scopes(root):
            ending += scope.pending()
            scope.close()
    if ending:
        await asyncio.gather(*ending, return_exceptions=True)
