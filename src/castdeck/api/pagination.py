"""Lists as lazy async iterators: pages follow ``Link: <...>; rel="next"``, or, when a page has no
Link header, a body ``pagination.next_cursor``."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast
from urllib.parse import urljoin

import httpx
from pydantic import BaseModel, ValidationError

from .errors import InvalidResponseError
from .transport import origin_of

if TYPE_CHECKING:
    from .transport import RawResponse, Transport

__all__ = ["AsyncPaginator", "Page", "parse_link_header"]

T = TypeVar("T", bound=BaseModel)

READ_BETWEEN_TURNS = 25
"""Items of a page read in one turn of the event loop: a page of a hundred episodes read at once
held a UI thread for several milliseconds."""

# A parameter value may be a quoted string holding commas and semicolons (``title="a, b; c"``).
_LINK = re.compile(r'<([^>]*)>((?:\s*;\s*[^\s;,=]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))?)*)')
_PARAM = re.compile(r';\s*([^\s;,=]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,]*))?')


def parse_link_header(values: list[str] | str | None) -> dict[str, str]:
    """``rel`` → URL from one or more RFC 8288 Link header values (the first URL of each rel wins)."""
    if not values:
        return {}
    if isinstance(values, str):
        values = [values]
    links: dict[str, str] = {}
    for value in values:
        for match in _LINK.finditer(value):
            url, params = match.group(1).strip(), match.group(2)
            for name, raw in _PARAM.findall(params):
                if name.lower() != "rel":
                    continue
                for rel in raw.strip().strip('"').lower().split():
                    links.setdefault(rel, url)
    return links


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    request_id: str | None
    next_url: str | None
    next_cursor: str | None
    skipped: tuple[str, ...] = ()
    """With ``pages(skip_invalid=True)``: why each item left out of ``items`` could not be read."""

    @property
    def has_more(self) -> bool:
        return self.next_url is not None or self.next_cursor is not None


class AsyncPaginator(Generic[T]):
    """``async for item in paginator`` walks every page lazily; ``pages()`` yields whole pages."""

    def __init__(
        self,
        transport: Transport,
        path: str,
        model: type[T] | Callable[[Any], T],
        params: dict[str, Any] | None = None,
        max_pages: int = 100_000,
    ) -> None:
        self._transport = transport
        self._path = path
        self._model = model
        self._params = {k: v for k, v in (params or {}).items() if v is not None}
        self._max_pages = max_pages

    def __aiter__(self) -> AsyncIterator[T]:
        return self._items()

    async def _items(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.items:
                yield item

    async def first_page(self) -> Page[T]:
        async for page in self.pages():
            return page
        raise AssertionError("pages() always yields at least one page")

    async def to_list(self, limit: int | None = None) -> list[T]:
        out: list[T] = []
        async for item in self:
            out.append(item)
            if limit is not None and len(out) >= limit:
                break
        return out

    async def pages(
        self, start_url: str | None = None, *, skip_invalid: bool = False
    ) -> AsyncIterator[Page[T]]:
        """Every page from the first (or from ``start_url``, a next link kept from before).

        An item that does not match the interface makes its page an :class:`InvalidResponseError`;
        with ``skip_invalid`` it is left out of the page instead, and said why in ``Page.skipped``
        (a list shows what it can read)."""
        url: str = self._next_address(start_url) if start_url else self._path
        params: dict[str, Any] | None = None if start_url else dict(self._params)
        seen: set[str] = set()
        for _ in range(self._max_pages):
            response = await self._transport.request("GET", url, params=params)
            page = await self._page(response, skip_invalid)
            yield page
            if page.next_url is not None:
                url, params = self._next_address(page.next_url), None
            elif page.next_cursor is not None:
                url, params = self._path, {**self._params, "cursor": page.next_cursor}
            else:
                return
            key = url + repr(sorted((params or {}).items()))
            if key in seen:
                raise InvalidResponseError("the list's next page points back to a page already read")
            seen.add(key)
        raise InvalidResponseError(f"the list has more than {self._max_pages} pages")

    def _next_address(self, link: str) -> str:
        """The next page's address (``link`` as resolved by :meth:`_page`), on the service's origin."""
        try:
            target = urljoin(self._transport.base_url + "/", link)  # a link kept from before
            same = origin_of(target) == self._transport.origin
        except (ValueError, httpx.InvalidURL):  # "http://[::1", a port beyond 65535, a NUL
            raise InvalidResponseError(f"the next page link is not an address: {link[:200]!r}") from None
        if not same:
            raise InvalidResponseError(f"the next page link points to another origin: {target[:200]}")
        return target

    async def _page(self, response: RawResponse, skip_invalid: bool = False) -> Page[T]:
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise InvalidResponseError(
                "a list answer must be an object with a data array", status=response.status,
                request_id=response.request_id,
            )  # fmt: skip
        items: list[T] = []
        skipped: list[str] = []
        for number, raw in enumerate(body["data"], 1):
            if number % READ_BETWEEN_TURNS == 0:
                await asyncio.sleep(0)  # the loop's other work goes on between parts of a long page
            try:
                if isinstance(self._model, type):
                    items.append(cast("type[T]", self._model).model_validate(raw))
                else:
                    items.append(self._model(raw))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first.get("loc", ()))
                reason = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
                if not skip_invalid:
                    raise InvalidResponseError(
                        f"a list item does not match the interface ({reason})",
                        status=response.status, request_id=response.request_id,
                    ) from None  # fmt: skip
                skipped.append(f"item {number}: {reason}")
        for item in items:  # each item keeps the request id of the page it came from
            if hasattr(item, "_request_id"):
                item._request_id = response.request_id
        links = parse_link_header(response.headers.get_list("link"))
        next_url = links.get("next")
        if next_url is not None:
            with contextlib.suppress(ValueError):  # kept as sent: following it says what is wrong
                next_url = urljoin(str(response.url), next_url)  # relative to the page (RFC 8288)
        next_cursor = None
        pagination = body.get("pagination")
        if next_url is None and isinstance(pagination, dict):
            cursor = pagination.get("next_cursor")
            if isinstance(cursor, str) and cursor and pagination.get("has_more") is not False:
                next_cursor = cursor
        return Page(items, response.request_id, next_url, next_cursor, tuple(skipped))
