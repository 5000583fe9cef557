"""Work and its owners: a widget's scope is found through the Qt object tree by type and closed with
it; the services' runner is the one the app built, and the app's quit ends both."""

from __future__ import annotations

import asyncio
import sys
from types import TracebackType

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject

from castdeck.api import CastdeckError
from castdeck.services.tasks import TaskRunner, TaskScope, close_owned, end_owned, owned_scopes


@pytest.mark.asyncio
async def test_a_scope_is_found_under_its_owner_at_any_depth_and_closed_with_it() -> None:
    window = QObject()
    pane = QObject(window)
    model = QObject(pane)
    bystander = QObject()
    pane_work, model_work = TaskScope(pane), TaskScope(model)
    never = asyncio.Event()
    waiting = model_work.start(never.wait(), name="held read")

    assert set(owned_scopes(window)) == {pane_work, model_work}
    assert owned_scopes(model) == [model_work]
    assert owned_scopes(bystander) == []

    close_owned(window)
    assert pane_work.closed and model_work.closed
    await asyncio.gather(waiting, return_exceptions=True)
    assert waiting.cancelled()
    late = pane_work.start(never.wait(), name="late")  # work started on a closed scope never runs
    await asyncio.gather(late, return_exceptions=True)
    assert late.cancelled()
    assert pane_work.pending() == [] and model_work.pending() == []


@pytest.mark.asyncio
async def test_destroying_the_owner_cancels_its_work() -> None:
    owner = QObject()
    work = TaskScope(owner)
    waiting = work.start(asyncio.Event().wait(), name="held read")
    await asyncio.sleep(0)
    owner.deleteLater()
    del owner
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert work.closed
    await asyncio.gather(waiting, return_exceptions=True)
    assert waiting.cancelled()


@pytest.mark.asyncio
async def test_the_quit_ends_every_owned_scope_and_waits_for_its_work() -> None:
    """What the app's shutdown does for its windows: each scope closed, each task ended, not only
    asked to end (the loop's close must find nothing pending)."""
    first, second = QObject(), QObject()
    child = QObject(second)
    ended: list[str] = []

    async def held(name: str) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            ended.append(name)

    tasks = [TaskScope(first).start(held("first")), TaskScope(child).start(held("child"))]
    await asyncio.sleep(0)
    await end_owned([first, second])
    assert sorted(ended) == ["child", "first"]
    assert all(task.cancelled() for task in tasks)


@pytest.mark.asyncio
async def test_the_runner_counts_short_work_apart_from_followers_and_cancels_all() -> None:
    runner = TaskRunner()
    never = asyncio.Event()
    read = runner.start(never.wait(), name="read")
    poll = runner.start(never.wait(), name="poll", long_running=True)
    await asyncio.sleep(0)
    assert runner.running == 1
    assert runner.pending(followers=False) == [read]
    assert runner.pending() == [poll, read]
    await runner.cancel_all()
    assert read.cancelled() and poll.cancelled()
    assert runner.pending() == [] and runner.running == 0


@pytest.mark.asyncio
async def test_a_failure_reaches_its_handler_and_a_bug_reaches_the_excepthook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scope and the runner report alike: a service's refusal to ``on_error``, anything else to
    ``sys.excepthook`` (where the app shows it and the suite fails)."""
    hooked: list[BaseException] = []

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        hooked.append(error)

    monkeypatch.setattr(sys, "excepthook", hook)
    refused: list[CastdeckError] = []

    async def refuse() -> None:
        raise CastdeckError("refused")

    async def bug() -> None:
        raise ZeroDivisionError

    owner = QObject()
    for started in (
        TaskScope(owner).start(refuse(), on_error=refused.append),
        TaskRunner().start(refuse(), on_error=refused.append),
    ):
        await asyncio.gather(started, return_exceptions=True)
    for started in (TaskScope(owner).start(bug()), TaskRunner().start(bug())):
        await asyncio.gather(started, return_exceptions=True)
    await asyncio.sleep(0)  # the done callbacks run on the next turn
    assert [str(error) for error in refused] == ["refused", "refused"]
    assert [type(error) for error in hooked] == [ZeroDivisionError, ZeroDivisionError]
