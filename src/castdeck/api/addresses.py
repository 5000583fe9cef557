"""Addresses the service hands the client (redirects, signed upload and download URLs): only
http(s) addresses with a host, as the next request will parse them, are followed."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urljoin

import httpx

from .errors import InvalidResponseError

__all__ = ["redirect_target", "web_address"]


def web_address(url: str, what: str, status: int | None = None) -> str:
    """``url`` when it is an http(s) address with a host, as the next request will parse it; else
    an :class:`InvalidResponseError` naming ``what`` (``http://[::1``, a port beyond 65535, a
    control character, a malformed IDNA host, ``file:`` or ``javascript:``)."""
    try:
        parsed = httpx.URL(url)
        usable = parsed.scheme in ("http", "https") and bool(parsed.host)  # .host decodes IDNA
    except (httpx.InvalidURL, ValueError):  # idna.IDNAError is a ValueError ("http://xn--/")
        usable = False
    if not usable:
        raise InvalidResponseError(f"{what} is not a web address: {url[:200]!r}", status=status)
    return url


def redirect_target(base: httpx.URL, headers: Mapping[str, str], status: int) -> str:
    """Where a redirect points, resolved against the request's address (see :func:`web_address`)."""
    location = headers["location"]
    try:
        target = urljoin(str(base), location)
    except ValueError:  # urllib refuses "http://[::1"
        target = location
    return web_address(target, "the redirect's Location", status)
