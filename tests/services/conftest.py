"""Service fixtures: the GUI fixtures (session, cache, until, settle, keyring, settings); a session
whose requests go through a test's own httpx transport is ``tests.gui.helpers.session_through``."""

from __future__ import annotations

from tests.gui.conftest import *  # noqa: F403
from tests.gui.helpers import session_through  # noqa: F401  (test_outbox imports it from here)
