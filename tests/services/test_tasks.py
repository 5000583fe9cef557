"""Task scopes belong to their owners: found through the Qt object tree by type, closed with it."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject

from castdeck.services.tasks import TaskRunner, close_owned, owned_scopes


@pytest.mark.asyncio
async def test_a_scope_is_found_under_its_owner_at_any_depth_and_closed_with_it() -> None:
    runner = TaskRunner()
    window = QObject()
    pane = QObject(window)
    model = QObject(pane)
    bystander = QObject()
    pane_work, model_work = runner.scope(pane), runner.scope(model)
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
    assert runner.pending() == []


@pytest.mark.asyncio
async def test_destroying_the_owner_cancels_its_work() -> None:
    runner = TaskRunner()
    owner = QObject()
    work = runner.scope(owner)
    waiting = work.start(asyncio.Event().wait(), name="held read")
    await asyncio.sleep(0)
    owner.deleteLater()
    del owner
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert work.closed
    await asyncio.gather(waiting, return_exceptions=True)
    assert waiting.cancelled()
