"""The connection to one service profile: the client, the account, online/offline state, the cache.

Every request the UI makes goes through :meth:`Session.guard`, which counts requests in flight (the
status bar's activity), notices when the service cannot be reached (the app goes offline and
probes until it returns) and refreshes the balance after writes. Cache reads and writes run on one
worker thread so the UI thread never waits on the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from collections.abc import Awaitable, Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from castdeck.api import (
    APIConnectionError,
    CastdeckError,
    Client,
    ForbiddenError,
    UnauthorizedError,
)
from castdeck.api.clock import SYSTEM_CLOCK, Clock
from castdeck.api.models import Account
from castdeck.store.cache import Cache, CachedList
from castdeck.store.picture_files import pictures_dir

from .artwork import Artwork
from .profiles import Profile
from .runtime import Runtime, run_on

__all__ = ["ConnectionState", "Session"]

log = logging.getLogger(__name__)
T = TypeVar("T")

PROBE_DELAYS = (1.0, 2.0, 3.0, 5.0, 8.0, 10.0)
"""Seconds between reconnection probes while offline (the last one repeats)."""
BALANCE_SPACING = 1.0
"""Seconds at least between two reads of the balance after writes: a burst of writes (two hundred
starts) read it again and again, each answer a little work for the window, while one read a second
and one after the last write show the same."""


def _offline_folder(cache: Cache) -> Path:
    """Where the offline copies beside the cache live (a cache in memory: the temporary folder)."""
    return cache.path.parent if cache.path is not None else Path(tempfile.gettempdir()) / "castdeck"


class ConnectionState(StrEnum):
    CONNECTING = "connecting"
    ONLINE = "online"
    OFFLINE = "offline"
    REJECTED = "rejected"  # the key was refused (401/403)


class Session(QObject):
    stateChanged = Signal(str)
    accountChanged = Signal(object)
    activityChanged = Signal(int)
    reconnected = Signal()

    def __init__(
        self,
        profile: Profile,
        api_key: str,
        cache: Cache,
        *,
        runtime: Runtime,
        client_factory: Callable[[str, str], Client] | None = None,
        clock: Clock = SYSTEM_CLOCK,
        parent: QObject | None = None,
    ) -> None:
        """``clock``: where the session and the work built on it (job polls, the reconnection
        probe, upload slots) read the time; the default client reads it there too (a factory's
        clients should be given the same one)."""
        super().__init__(parent)
        self.profile = profile
        self.cache = cache
        self.runtime = runtime
        """Where the session's work runs: the app's runner and threads (:mod:`castdeck.services.runtime`)."""
        self.tasks = runtime.tasks
        """Where the session and the services built on it start their work (the app's one runner)."""
        self.artwork = Artwork(self, pictures_dir(_offline_folder(cache)))
        """The pictures the service's items show (covers, host pictures), kept beside the cache."""
        self.clock = clock
        self._api_key = api_key
        self._client_factory = client_factory or (
            lambda url, key: Client(url, key, timeout=20.0, max_retries=2, clock=clock)
        )
        self._client = self._client_factory(profile.base_url, api_key)
        self._state = ConnectionState.CONNECTING
        self._state_detail = ""
        self._account: Account | None = None
        self._in_flight = 0
        self._probe: asyncio.Task[None] | None = None
        self._balance_task: asyncio.Task[None] | None = None
        self._balance_again = False
        self._balance_read_at = -BALANCE_SPACING
        """When the last read of the balance after writes started (the session's clock, monotonic)."""
        self._closed = False

    def __repr__(self) -> str:  # the key never appears
        return f"Session({self.profile.name!r}, {self.profile.base_url!r})"

    # --- state ---------------------------------------------------------------------------------------------

    @property
    def client(self) -> Client:
        return self._client

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def state_detail(self) -> str:
        return self._state_detail

    @property
    def online(self) -> bool:
        return self._state is ConnectionState.ONLINE

    @property
    def account(self) -> Account | None:
        return self._account

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def write_block_reason(self) -> str | None:
        """Why writing is not possible now, or ``None`` when it is."""
        if self._state is ConnectionState.ONLINE:
            return None
        if self._state is ConnectionState.OFFLINE:
            return "Offline: the service cannot be reached. Changes are possible again once it returns."
        if self._state is ConnectionState.REJECTED:
            return f"The service refused the API key: {self._state_detail}"
        return "Connecting to the service…"

    def _set_state(self, state: ConnectionState, detail: str = "") -> None:
        changed = state is not self._state or detail != self._state_detail
        was_offline = self._state is ConnectionState.OFFLINE
        self._state, self._state_detail = state, detail
        if changed:
            log.info("connection %s %s", state.value, detail)
            self.stateChanged.emit(state.value)
        if state is ConnectionState.ONLINE and was_offline:
            self.reconnected.emit()

    def rebind(self, base_url: str) -> None:
        """Point the session at a new address (the sandbox restarted on another port)."""
        old = self._client
        self.profile = Profile(self.profile.name, base_url, sandbox=self.profile.sandbox)
        self._client = self._client_factory(base_url, self._api_key)
        self.tasks.start(old.aclose(), name="close old client")
        self._set_state(ConnectionState.CONNECTING)

    # --- requests ------------------------------------------------------------------------------------------

    async def guard(self, work: Awaitable[T], *, write: bool = False) -> T:
        """Await one request (or a few): counts activity, and notices the service going away."""
        self._in_flight += 1
        self.activityChanged.emit(self._in_flight)
        try:
            result = await work
        except APIConnectionError as error:
            self.went_offline(str(error))
            raise
        except (UnauthorizedError, ForbiddenError) as error:
            self._set_state(ConnectionState.REJECTED, error.detail or error.title)
            raise
        finally:
            self._in_flight -= 1
            self.activityChanged.emit(self._in_flight)
        if self._state is not ConnectionState.ONLINE and not self._closed:
            self._set_state(ConnectionState.ONLINE)
        if write:
            self._refresh_balance_soon()
        return result

    def _refresh_balance_soon(self) -> None:
        """After a write: read the balance again. Writes while a read is on its way or waits cause
        one more read, at most one a second (:data:`BALANCE_SPACING`), the last after the last write."""
        if self._balance_task is not None and not self._balance_task.done():
            self._balance_again = True
            return
        self._balance_task = self.tasks.start(self._refresh_balance(), name="refresh balance")

    async def _refresh_balance(self) -> None:
        while True:
            wait = self._balance_read_at + BALANCE_SPACING - self.clock.monotonic()
            if wait > 0:
                await self.clock.sleep(wait)  # the writes meanwhile are read with the same read
            self._balance_again = False
            self._balance_read_at = self.clock.monotonic()
            await self.refresh_account()
            if not self._balance_again or self._closed:
                return

    async def call(self, fn: Callable[[Client], Awaitable[T]], *, write: bool = False) -> T:
        return await self.guard(fn(self._client), write=write)

    async def start(self) -> Account:
        """The first request: reads the account (which proves the key)."""
        self._set_state(ConnectionState.CONNECTING)
        return await self.refresh_account()

    async def refresh_account(self) -> Account:
        account = await self.guard(self._client.account.get())
        self._account = account
        self.accountChanged.emit(account)
        return account

    def went_offline(self, detail: str = "") -> None:
        if self._closed:
            return
        self._set_state(ConnectionState.OFFLINE, detail)
        if self._probe is None or self._probe.done():
            self._probe = self.tasks.start(self._probe_until_back(), name="reconnect")

    async def _probe_until_back(self) -> None:
        attempt = 0
        while not self._closed and self._state is ConnectionState.OFFLINE:
            await self.clock.sleep(PROBE_DELAYS[min(attempt, len(PROBE_DELAYS) - 1)])
            attempt += 1
            # Any refusal keeps probing: a 5xx or a 429 from a service that is coming back must not
            # end the probe (nothing else would bring the app back online: its pollers wait for it).
            # A refused key ends it, as the state is no longer offline (see guard).
            with contextlib.suppress(CastdeckError):
                await self.refresh_account()

    async def close(self) -> None:
        self._closed = True
        for owned in (self._probe, self._balance_task):  # the reconnection probe; a balance read waiting
            if owned is not None and not owned.done():
                owned.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await owned
        await self._client.aclose()
        await self.runtime.drained(self.runtime.disk)  # its last writes to the cache are on disk

    # --- cache (on the worker thread) ------------------------------------------------------------------------

    async def on_disk(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the disk thread (the cache database and small files, in order)."""
        return await run_on(self.runtime.disk, fn, *args)

    async def cache_page(
        self, list_key: str, kind: str, records: list[dict[str, Any]], *, offset: int, last: bool
    ) -> None:
        await self.on_disk(
            lambda: self.cache.put_page(self.profile.name, list_key, kind, records, offset=offset, last=last)
        )

    async def cache_record(self, kind: str, record: dict[str, Any]) -> None:
        await self.on_disk(self.cache.put, self.profile.name, kind, record)

    async def uncache_record(self, kind: str, record_id: str) -> None:
        await self.on_disk(self.cache.delete, self.profile.name, kind, record_id)

    async def cached_list(self, list_key: str) -> CachedList | None:
        return await self.on_disk(self.cache.get_list, self.profile.name, list_key)

    async def cached_record(self, kind: str, record_id: str) -> dict[str, Any] | None:
        return await self.on_disk(self.cache.get, self.profile.name, kind, record_id)
