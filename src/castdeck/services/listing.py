"""One list of one resource for an item model: pages from the service, or the cache when offline.

``ListFeed.next_page()`` returns the next page. Every page read is stored in the cache (the first
page replaces what was cached for this list). When the service cannot be reached, the feed answers
with what was cached for the list, marked offline, and stops paging until it is reset. A read the
service failed (5xx, 429, a broken answer; the client repeats only some of those at once) is made
again after a short pause, a couple of times, before the error reaches the list or picker: a read
is safe to repeat, and one failed read would otherwise leave a dialog's picker empty for good.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from castdeck.api import (
    APIConnectionError,
    ApiError,
    CastdeckError,
    Client,
    InvalidResponseError,
    is_transient,
)
from castdeck.api.pagination import READ_BETWEEN_TURNS, AsyncPaginator, Page
from castdeck.api.retry import backoff_delay
from castdeck.api.transport import RETRY_STATUSES

from .session import Session

__all__ = ["READ_AGAIN", "FeedPage", "ListFeed"]

READ_AGAIN = 2
"""Times a page read is made again after a fault the client's transport does not repeat itself (a
500, an answer it could not read), after 0.5-1 s, then 1-2 s, or its Retry-After, on the session's
clock. What the transport repeats (429, 502-504, no answer) has had its tries there: one layer of
retries for each fault, never one over another."""

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class FeedPage(Generic[M]):
    items: list[M]
    has_more: bool
    offline: bool = False
    cached_at: float | None = None  # when the cached copy was read from the service
    problem: InvalidResponseError | None = None
    """Why some items of the page are not in ``items`` (the service sent them in a shape the
    client cannot read); the readable ones are shown, this says what is missing."""


def _read_again(error: CastdeckError) -> bool:
    """Whether the feed reads a failed page again itself (see :data:`READ_AGAIN`)."""
    repeated_below = isinstance(error, ApiError) and error.status in RETRY_STATUSES
    return is_transient(error) and not repeated_below


class ListFeed(Generic[M]):
    def __init__(
        self,
        session: Session,
        kind: str,
        list_key: str,
        open_list: Callable[[Client], AsyncPaginator[M]],
        model: type[M],
    ) -> None:
        self.session = session
        self.kind = kind
        self.list_key = list_key
        self._open_list = open_list
        self._model = model
        self._pages: AsyncIterator[Page[M]] | None = None
        self._next_url: str | None = None
        self._offset = 0
        self._done = False

    @property
    def has_more(self) -> bool:
        return not self._done

    async def next_page(self) -> FeedPage[M]:
        if self._done:
            return FeedPage([], has_more=False)
        for attempt in range(READ_AGAIN + 1):
            if self._pages is None:
                paginator = self._open_list(self.session.client)
                self._pages = paginator.pages(self._next_url, skip_invalid=True)
            try:
                page = await self.session.guard(anext(self._pages))
                break
            except StopAsyncIteration:
                self._done = True
                return FeedPage([], has_more=False)
            except APIConnectionError:
                await self._drop_pages()
                if self._offset == 0:
                    return await self._from_cache()
                raise
            except CastdeckError as error:
                await self._drop_pages()
                if attempt >= READ_AGAIN or not _read_again(error):
                    raise
                await self.session.clock.sleep(backoff_delay(attempt, getattr(error, "retry_after", None), base=1.0,
                                                             cap=4.0, max_retry_after=10.0))  # fmt: skip
            except BaseException:
                await self._drop_pages()
                raise
        records = []
        for number, item in enumerate(page.items, 1):
            records.append(item.model_dump(mode="json"))
            if number % READ_BETWEEN_TURNS == 0:
                await asyncio.sleep(0)  # as the page was read: the UI's work goes on between parts
        last = not page.has_more
        await self.session.cache_page(self.list_key, self.kind, records, offset=self._offset, last=last)
        self._offset += len(page.items)
        self._next_url = page.next_url
        if last:
            self._done = True
            await self._drop_pages()
        return FeedPage(page.items, has_more=not last, problem=self._unreadable(page))

    def _unreadable(self, page: Page[M]) -> InvalidResponseError | None:
        if not page.skipped:
            return None
        count, total = len(page.skipped), len(page.skipped) + len(page.items)
        more = f" and {count - 1} more" if count > 1 else ""
        verb = "is" if count == 1 else "are"
        return InvalidResponseError(
            f"{count} of the {total} {self.kind}s on this page could not be read and {verb} not shown "
            f"({page.skipped[0]}{more})",
            request_id=page.request_id,
        )

    async def _from_cache(self) -> FeedPage[M]:
        cached = await self.session.cached_list(self.list_key)
        self._done = True
        if cached is None:
            return FeedPage([], has_more=False, offline=True)
        items: list[M] = []
        for record in cached.items:
            with contextlib.suppress(ValidationError):
                items.append(self._model.model_validate(record))
        return FeedPage(items, has_more=False, offline=True, cached_at=cached.seen_at)

    async def _drop_pages(self) -> None:
        pages, self._pages = self._pages, None
        if pages is not None and hasattr(pages, "aclose"):
            with contextlib.suppress(Exception):
                await pages.aclose()

    async def close(self) -> None:
        await self._drop_pages()

    def close_later(self) -> None:
        """Close the feed in the background, on its session's runner (a view that drops the feed
        may be going away itself)."""
        self.session.tasks.start(self.close(), name="close feed")


def list_key(kind: str, **filters: Any) -> str:
    """The cache key of a list with its server-side filters."""
    shown = "&".join(f"{k}={v}" for k, v in sorted(filters.items()) if v not in (None, ""))
    return f"{kind}?{shown}" if shown else kind
