"""A service for the GUI fuzz tests: an ``httpx.MockTransport`` handler answering what a case
sets, path by path, and a connected session (with its background work) that talks to it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from tests.fuzz.headers import BASE_URL
from tests.fuzz.hostile import Json, encode
from tests.gui.conftest import settle
from tests.gui.helpers import session_through


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, bytes]
    content: bytes

    def response(self) -> httpx.Response:
        return httpx.Response(self.status, headers=self.headers, stream=httpx.ByteStream(self.content))

    def __repr__(self) -> str:
        body = self.content if len(self.content) <= 300 else self.content[:300] + b"..."
        return f"Reply({self.status}, {self.headers!r}, {body!r} ({len(self.content)} bytes))"


def json_reply(body: Json, status: int = 200) -> Reply:
    return Reply(status, {"Content-Type": b"application/json"}, encode(body))


ACCOUNT = json_reply(
    {"data": {"organization_id": "org_fuzz", "plan": "creator", "credits": {"balance": 100}}}
)
EMPTY_LIST = json_reply({"data": []})
NOT_FOUND = json_reply({"status": 404, "title": "Not found", "type": "not_found"}, 404)
OPTIONS = json_reply({"data": {"supported_duration_seconds": [], "styles": []}})


@dataclass
class World:
    """The service of one case: replies by path (``/v1/podcasts``, ``/v1/podcasts?cursor=2``) or by
    pattern (``/v1/podcasts/*``, one segment); anything else gets an empty list or a 404."""

    replies: dict[str, Reply] = field(default_factory=dict)
    requests: int = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        path = request.url.path
        cursor = request.url.params.get("cursor")
        exact = f"{path}?cursor={cursor}" if cursor else path
        if exact in self.replies:
            return self.replies[exact].response()
        if path == "/v1/account":
            return ACCOUNT.response()
        if path.endswith("/options"):
            return OPTIONS.response()
        parts = path.rstrip("/").split("/")
        for key in ("/".join([*parts[:-1], "*"]), "/".join([*parts[:-2], "*", parts[-1]])):
            if key in self.replies:
                return self.replies[key].response()
        return (EMPTY_LIST if len(parts) == 3 else NOT_FOUND).response()


@dataclass
class Connected:
    world: World
    session: Session
    background: Background
    pane: Any = None


@pytest_asyncio.fixture
async def connected(tmp_path: Path) -> AsyncIterator[Connected]:
    """A session (and its background work) whose every request the :class:`World` answers."""
    cache = Cache(tmp_path / "cache.sqlite3")
    world = World()
    session = await session_through(BASE_URL, cache, httpx.MockTransport(world), signed_too=True)
    background = Background(session, tmp_path / "background")
    background.start()
    yield Connected(world, session, background)
    await settle()
    await background.close()
    await session.close()
    cache.close()
