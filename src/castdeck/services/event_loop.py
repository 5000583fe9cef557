"""The app's event loop: asyncio on the Qt event loop (qasync).

One place creates it, so the app and the qasync checks of the test suite use the same loop.
"""

from __future__ import annotations

import qasync
from PySide6.QtCore import QCoreApplication


def new_event_loop(app: QCoreApplication) -> qasync.QEventLoop:
    """An asyncio loop driven by ``app``'s Qt event loop."""
    return qasync.QEventLoop(app)
