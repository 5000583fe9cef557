"""Service fixtures: the GUI fixtures (session, cache, until, settle, keyring, settings), and a
session whose requests go through a test's own httpx transport (to count them or inject faults)."""

from __future__ import annotations

import httpx

from castdeck.api import Client
from castdeck.services.profiles import Profile
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from tests.conftest import DEMO_KEY
from tests.gui.conftest import *  # noqa: F403


async def session_through(
    base_url: str, cache: Cache, transport: httpx.AsyncBaseTransport, *, signed_too: bool = False
) -> Session:
    """A started session whose API requests (and signed-address requests with ``signed_too``) go
    through ``transport``; the client's own retries are off, so every resend is the service's under test."""
    session = Session(
        Profile("Sandbox", base_url, sandbox=True), DEMO_KEY, cache,
        client_factory=lambda url, key: Client(
            url, key, timeout=20.0, max_retries=0, http_transport=transport,
            signed_transport=transport if signed_too else None,
        ),
    )  # fmt: skip
    await session.start()
    return session
