"""The suite's task runner, and the work a test left running.

The app builds one :class:`~castdeck.services.runtime.Runtime` (its task runner and threads) and
hands it to each session; the suite hands every app, session and drafts folder its tests build
this one, :data:`RUNTIME`, so the checks after each test (tests/conftest.py) see what the
services left running on its runner, :data:`RUNNER`. A widget's own work runs on its
:class:`~castdeck.services.tasks.TaskScope`, found under the open top-level widgets.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtWidgets import QApplication

from castdeck.services.runtime import Runtime
from castdeck.services.tasks import owned_scopes

__all__ = ["RUNNER", "RUNTIME", "followers", "pending", "running"]

RUNTIME = Runtime.build()
RUNNER = RUNTIME.tasks


def _widget_work() -> list[asyncio.Task[Any]]:
    if QApplication.instance() is None:
        return []
    return [
        task
        for root in QApplication.topLevelWidgets()
        for scope in owned_scopes(root)
        for task in scope.pending()
    ]


def pending(*, followers: bool = True) -> list[asyncio.Task[Any]]:
    """The work still running, by name: the services' (with their long-running followers unless
    ``followers`` is false) and the open widgets'."""
    found = set(RUNNER.pending(followers=followers)) | set(_widget_work())
    return sorted(found, key=lambda task: task.get_name())


def followers() -> list[asyncio.Task[Any]]:
    """The long-running followers (job pollers) still running."""
    short = set(RUNNER.pending(followers=False))
    return [task for task in RUNNER.pending() if task not in short]


def running() -> int:
    """How many tasks that end by themselves (requests, loads) are still running."""
    return len(pending(followers=False))
