"""``Client``: the typed async client for the whole interface.

async with Client("https://api.example", api_key) as client:
    account = await client.account.get()
    async for episode in client.episodes.list(status="published"):
        ...
    accepted = await client.episodes.generate(podcast_id=pid, prompt="...")
    episode = await client.episodes.wait(accepted.data.id)
"""

from __future__ import annotations

from types import TracebackType

import httpx

from .budget import RequestBudget
from .clock import SYSTEM_CLOCK, Clock
from .resources import (
    AccountResource,
    EpisodesResource,
    HostsResource,
    PodcastsResource,
    ShortsResource,
    SourcesResource,
    VideosResource,
    VoiceoversResource,
    VoicesResource,
)
from .transport import Transport, new_idempotency_key

__all__ = ["Client", "new_idempotency_key"]


class Client:
    """One organization's access to the service. The key is sent only to ``base_url``'s origin."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float | httpx.Timeout = 30.0,
        max_retries: int = 3,
        http_transport: httpx.AsyncBaseTransport | None = None,
        signed_transport: httpx.AsyncBaseTransport | None = None,
        budget: RequestBudget | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``clock``: where every wait the client decides is read from (tests move one themselves)."""
        self.transport = Transport(
            base_url,
            api_key,
            timeout=timeout,
            max_retries=max_retries,
            http_transport=http_transport,
            signed_transport=signed_transport,
            budget=budget,
            clock=clock,
        )
        self.account = AccountResource(self)
        self.podcasts = PodcastsResource(self)
        self.episodes = EpisodesResource(self)
        self.hosts = HostsResource(self)
        self.voices = VoicesResource(self)
        self.sources = SourcesResource(self)
        self.videos = VideosResource(self)
        self.shorts = ShortsResource(self)
        self.voiceovers = VoiceoversResource(self)

    def __repr__(self) -> str:  # never show the key
        return f"Client({self.transport.base_url!r})"

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    @property
    def budget(self) -> RequestBudget:
        """The request budget every poll of this client shares (see :mod:`castdeck.api.budget`)."""
        return self.transport.budget

    @property
    def last_request_id(self) -> str | None:
        """The X-Request-Id of the most recent answer (each resource also keeps its own)."""
        return self.transport.last_request_id

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
