"""HTTP for the client: credentials only to the service's origin, retries only where safe, and
answers checked before anything trusts them.

Two httpx clients: one for the service (the bearer key is attached per request, and only when
the request's origin is the configured one, redirects included) and one bare client for signed
upload and download addresses, which never carries credentials.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from . import wire_json
from .addresses import redirect_target, web_address
from .budget import RequestBudget
from .clock import SYSTEM_CLOCK, Clock
from .errors import (
    APIConnectionError,
    APITimeoutError,
    InvalidResponseError,
    error_from_response,
    parse_retry_after,
)
from .retry import backoff_delay

__all__ = [
    "MAX_BODY_BYTES",
    "RawResponse",
    "RetryPolicy",
    "Transport",
    "new_idempotency_key",
    "origin_of",
]

MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_REDIRECTS = 5
RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""Answers retried at once within one call (reads and keyed writes). Narrower than
:func:`~castdeck.api.errors.is_transient`: a 500 is waited out by pollers, not hammered here."""
SAFE_METHODS = frozenset({"GET", "HEAD"})
USER_AGENT = "castdeck/0.1 (+https://castdeck.invalid)"


def new_idempotency_key() -> str:
    """A fresh key (printable ASCII, no spaces): store it before sending, reuse it after a failure."""
    return f"castdeck-{uuid.uuid4()}"


def origin_of(url: str | httpx.URL) -> tuple[str, str, int]:
    parsed = httpx.URL(str(url))
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return parsed.scheme, (parsed.host or "").lower(), port


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class RetryPolicy:
    """Capped exponential backoff with jitter; a ``Retry-After`` from the service takes precedence."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        return backoff_delay(
            attempt,
            retry_after,
            base=self.base_delay,
            cap=self.max_delay,
            max_retry_after=self.max_retry_after,
        )

    def retryable(self, method: str, idempotency_key: str | None) -> bool:
        """Reads, and writes that carry an idempotency key. A write without one is never repeated."""
        return method.upper() in SAFE_METHODS or idempotency_key is not None

    def should_retry_status(self, status: int, retry_after: float | None) -> bool:
        if status not in RETRY_STATUSES:
            return False
        return retry_after is None or retry_after <= self.max_retry_after


@dataclass(frozen=True)
class RawResponse:
    """A complete answer: status, headers, the body (bounded) and the request id."""

    status: int
    headers: httpx.Headers
    content: bytes
    url: httpx.URL

    @property
    def request_id(self) -> str | None:
        value: str | None = self.headers.get("x-request-id")
        return value

    def json(self) -> Any:
        """The body as JSON; anything else (HTML, a truncated body) is an :class:`InvalidResponseError`."""
        media = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if not (media == "application/json" or media.endswith("+json")):
            raise InvalidResponseError(
                f"expected JSON but the service answered {media or 'without a content type'}",
                status=self.status,
                request_id=self.request_id,
            )
        try:
            return wire_json.loads(self.content)
        except (RecursionError, ValueError) as exc:  # JSONDecodeError, UnicodeDecodeError, NotJson
            raise InvalidResponseError(
                f"the service's JSON is malformed ({exc})", status=self.status, request_id=self.request_id
            ) from None


class Transport:
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
        parsed = urlsplit(base_url)
        if parsed.scheme not in ("https", "http") or not parsed.hostname:
            raise ValueError(f"the base URL must be an http(s) address, not {base_url!r}")
        if parsed.scheme == "http" and not is_loopback(parsed.hostname):
            raise ValueError(
                f"refusing to send the API key over plain http to {parsed.hostname}; use https "
                "(plain http is allowed only for loopback addresses)"
            )
        if not api_key or any(c.isspace() for c in api_key) or not api_key.isprintable():
            raise ValueError("the API key is empty or contains spaces or control characters")
        self.base_url = base_url.rstrip("/")
        self.origin = origin_of(self.base_url)
        self._api_key = api_key
        self.policy = RetryPolicy(max_retries=max(0, max_retries))
        self.clock = clock
        """Every wait the client decides (retries, polls, a slot's expiry) is read from it."""
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        # Only encodings this module decodes itself (bounded); see _decode.
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json", "Accept-Encoding": "gzip, deflate"}
        if http_transport is None and parsed.scheme == "http":
            # A plain-http base URL is loopback only (checked above), and this client talks to that
            # origin alone (anything else goes through the credential-free client, which verifies
            # certificates), so it never makes a TLS connection: skip loading the CA bundle for it,
            # which costs tens of milliseconds of start-up.
            http_transport = httpx.AsyncHTTPTransport(verify=False)
        self._api = httpx.AsyncClient(
            timeout=self.timeout, follow_redirects=False, headers=headers, transport=http_transport
        )
        # Made on first use: most sessions never touch a signed address, and each client costs an
        # SSL context (tens of milliseconds at start-up).
        self._signed_transport = signed_transport
        self._bare: httpx.AsyncClient | None = None
        self._making: asyncio.Future[httpx.AsyncClient] | None = None
        self._download_disk: ThreadPoolExecutor | None = None
        self.last_request_id: str | None = None
        self.closed = False
        """Set by :meth:`aclose`: a request that loses its connection then is not tried again."""
        self.budget = budget if budget is not None else RequestBudget()
        """The background request budget: it hears every answer of the service (rate-limit
        headers, 429s); pollers wait on it before they ask."""

    def __repr__(self) -> str:  # never show the key
        return f"Transport({self.base_url!r})"

    async def aclose(self) -> None:
        self.closed = True
        await self._api.aclose()
        if self._bare is not None:
            await self._bare.aclose()

    @property
    def signed_client(self) -> httpx.AsyncClient:
        """The client for signed addresses: it never carries credentials."""
        if self._bare is None:
            self._bare = self._new_signed_client()
        return self._bare

    @property
    def download_disk(self) -> ThreadPoolExecutor:
        """Where this client's downloads write (each download awaits its own writes in order): one
        pool for all of them, made on the first, where a thread per download made four hundred
        threads for four hundred covers. Its threads end when the transport is gone."""
        if self._download_disk is None:
            self._download_disk = ThreadPoolExecutor(max_workers=4, thread_name_prefix="castdeck-download")
        return self._download_disk

    def _new_signed_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self.timeout, follow_redirects=False, transport=self._signed_transport,
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"},
        )  # fmt: skip

    async def ready_signed_client(self) -> httpx.AsyncClient:
        """:attr:`signed_client`, made on a worker thread the first time: loading the system's
        certificate authorities takes tens of milliseconds, too long for the event loop's thread.

        Callers that ask together before it exists share one making: a spare client would have to be
        closed, and closing an httpx client closes its transport, which the caller may have given to
        be shared (the tests' transport serves the API client too)."""
        if self._bare is not None:
            return self._bare
        if self._making is None:
            self._making = asyncio.ensure_future(asyncio.to_thread(self._new_signed_client))
        making = self._making
        try:
            made = await asyncio.shield(making)
        finally:
            if making.done() and self._making is making:
                self._making = None
        if self._bare is None:
            self._bare = made
        elif made is not self._bare and self._signed_transport is None:
            await made.aclose()  # made on the loop's thread meanwhile (signed_client): ours is spare
        return self._bare

    def url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return self.base_url + (path_or_url if path_or_url.startswith("/") else "/" + path_or_url)

    def _scrub(self, content: bytes) -> bytes:
        """An answer body with the key blanked out, for error messages (a proxy may echo headers)."""
        secret = self._api_key.encode()
        return content.replace(secret, b"[redacted]") if secret in content else content

    def _scrub_headers(self, response: RawResponse) -> RawResponse:
        """The answer with the key blanked out of its headers too (a proxy may echo it into
        ``X-Request-Id``, which error messages, banners and the log quote)."""
        secret = self._api_key.encode()
        if not any(secret in value for _, value in response.headers.raw):
            return response
        headers = httpx.Headers(
            [(name, value.replace(secret, b"[redacted]")) for name, value in response.headers.raw]
        )
        return RawResponse(response.status, headers, response.content, response.url)

    def _scrub_error(self, error: InvalidResponseError) -> InvalidResponseError:
        """The error with the key blanked out of its words and request id (read from headers an
        answer echoed it into, before :meth:`_scrub_headers` could see them)."""
        secret = self._api_key
        if secret not in str(error):
            return error
        request_id = error.request_id.replace(secret, "[redacted]") if error.request_id else None
        return InvalidResponseError(
            error.message.replace(secret, "[redacted]"), status=error.status, request_id=request_id
        )

    def _credentials_for(self, url: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if origin_of(url) == self.origin else {}

    # the service -----------------------------------------------------------------------------------------
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        expect_body: bool = True,
    ) -> RawResponse:
        """One call to the service, retried only where safe; raises a typed error for any failure."""
        method = method.upper()
        extra = dict(headers or {})
        if idempotency_key is not None:
            extra["Idempotency-Key"] = idempotency_key
        body: bytes | None = content
        if json_body is not None:
            body = json.dumps(json_body, separators=(",", ":")).encode()
            extra.setdefault("Content-Type", "application/json")
        retryable = self.policy.retryable(method, idempotency_key)
        clean_params = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = self._scrub_headers(
                    await self._send(method, self.url(path), clean_params, body, extra)
                )
            except InvalidResponseError as error:  # refused while reading (too large, a bad Location)
                raise self._scrub_error(error) from None
            except APIConnectionError:
                if retryable and attempt < self.policy.max_retries and not self.closed:
                    await self.clock.sleep(self.policy.delay(attempt))
                    attempt += 1
                    continue
                raise
            self.last_request_id = response.request_id or self.last_request_id
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            self.budget.observe(response.status, response.headers, retry_after)
            if response.status >= 400:
                if (
                    retryable
                    and attempt < self.policy.max_retries
                    and self.policy.should_retry_status(response.status, retry_after)
                ):
                    await self.clock.sleep(self.policy.delay(attempt, retry_after))
                    attempt += 1
                    continue
                raise error_from_response(response.status, self._scrub(response.content), response.headers)
            if response.status >= 300:
                raise InvalidResponseError(
                    f"unexpected redirect answer {response.status}", status=response.status,
                    request_id=response.request_id,
                )  # fmt: skip
            if expect_body and response.status != 204:
                scrubbed = self._scrub(response.content)
                _reject_error_body(RawResponse(response.status, response.headers, scrubbed, response.url))
            return response

    async def _send(
        self, method: str, url: str, params: dict[str, Any], body: bytes | None, headers: dict[str, str]
    ) -> RawResponse:
        """Send, following redirects by hand: credentials stay with the service's origin."""
        seen: set[str] = set()
        for _ in range(MAX_REDIRECTS + 1):
            request_headers = {**headers, **self._credentials_for(url)}
            client = self._api if request_headers.get("Authorization") else self.signed_client
            request = client.build_request(
                method, url, params=params or None, content=body, headers=request_headers
            )
            response = await _send_bounded(client, request)
            if response.status in (301, 302, 303, 307, 308) and "location" in response.headers:
                target = redirect_target(request.url, response.headers, response.status)
                if target in seen:
                    raise InvalidResponseError("the service redirects in a loop", status=response.status)
                seen.add(target)
                if response.status in (301, 302, 303) and method not in SAFE_METHODS:
                    method, body = "GET", None
                    headers = {k: v for k, v in headers.items() if k.lower() not in ("content-type",)}
                url, params = target, {}
                continue
            return response
        raise InvalidResponseError(f"more than {MAX_REDIRECTS} redirects")

    # signed addresses ----------------------------------------------------------------------------------------
    async def send_signed(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        content: bytes | AsyncIterable[bytes] | None = None,
        timeout: httpx.Timeout | None = None,
    ) -> RawResponse:
        """A request to a signed upload or download address: never with credentials, redirects
        followed (still without credentials), never retried here (the caller decides)."""
        request_headers = {k: v for k, v in (headers or {}).items() if k.lower() != "authorization"}
        await self.ready_signed_client()
        for _ in range(MAX_REDIRECTS + 1):
            web_address(url, "the signed address")
            request = self.signed_client.build_request(method, url, headers=request_headers, content=content)
            if timeout is not None:
                request.extensions["timeout"] = timeout.as_dict()
            response = await _send_bounded(self.signed_client, request)
            if (
                response.status in (307, 308)
                and "location" in response.headers
                and not isinstance(content, AsyncIterable)
            ):
                url = redirect_target(request.url, response.headers, response.status)
                continue
            if (
                response.status in (301, 302, 303)
                and "location" in response.headers
                and method in SAFE_METHODS
            ):
                url = redirect_target(request.url, response.headers, response.status)
                continue
            return response
        raise InvalidResponseError(f"more than {MAX_REDIRECTS} redirects from a signed address")


def _param(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, uuid.UUID) else value


async def _send_bounded(client: httpx.AsyncClient, request: httpx.Request) -> RawResponse:
    """Send and read the whole answer, refusing bodies over :data:`MAX_BODY_BYTES`."""
    try:
        response = await client.send(request, stream=True)
    except (httpx.InvalidURL, UnicodeError) as exc:  # httpx reads a redirect's Location (and its IDNA
        # host) even when not following it
        raise InvalidResponseError(f"the answer's Location is not an address ({exc})") from None
    except httpx.TimeoutException as exc:
        raise APITimeoutError(
            f"no answer from {request.url.host} in time ({type(exc).__name__})", request=request,
            sent=not isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout),
        ) from None  # fmt: skip
    except httpx.TransportError as exc:
        raise APIConnectionError(
            f"could not reach {request.url.host}: {exc or type(exc).__name__}", request=request,
            sent=not isinstance(exc, httpx.ConnectError),  # refused, unknown host: nothing left
        ) from None  # fmt: skip
    except RuntimeError:
        if not client.is_closed:
            raise
        # The client was closed under a request (the app moved to a new address): a lost connection.
        raise APIConnectionError(
            "the connection was closed before the request was sent", request=request
        ) from None
    stream: AsyncIterator[bytes] | None = None
    try:
        declared = response.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY_BYTES:  # not "²"
            raise InvalidResponseError(
                f"the answer is {int(declared)} bytes, more than the {MAX_BODY_BYTES} allowed",
                status=response.status_code, request_id=response.headers.get("x-request-id"),
            )  # fmt: skip
        chunks: list[bytes] = []
        size = 0
        # Kept in a name so that an early stop does not leave the generator to the garbage collector:
        # on a loop without async-generator hooks (qasync) that finalises it outside the task and
        # httpcore's cleanup fails ("async generator ignored GeneratorExit"). Closed below, after
        # the response, so the inner generators have nothing left to await.
        stream = response.aiter_raw()
        async for chunk in stream:
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise InvalidResponseError(
                    f"the answer is larger than the {MAX_BODY_BYTES} bytes allowed",
                    status=response.status_code, request_id=response.headers.get("x-request-id"),
                )  # fmt: skip
            chunks.append(chunk)
        raw = b"".join(chunks)
        content = _decode(raw, response.headers.get("content-encoding", ""))
    except httpx.TimeoutException as exc:
        raise APITimeoutError(
            f"the answer from {request.url.host} stalled ({type(exc).__name__})", request=request
        ) from None
    except httpx.TransportError as exc:
        raise APIConnectionError(
            f"the answer from {request.url.host} broke off: {exc or type(exc).__name__}", request=request
        ) from None
    finally:
        await response.aclose()
        aclose = getattr(stream, "aclose", None)  # an async generator's
        if aclose is not None:
            await aclose()
    return RawResponse(response.status_code, response.headers, content, request.url)


def _decode(raw: bytes, encoding: str) -> bytes:
    """Undo a gzip/deflate content encoding, still bounded (a small bomb must not blow up)."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return raw
    import zlib

    if encoding not in ("gzip", "deflate", "x-gzip"):
        raise InvalidResponseError(f"unsupported content encoding {encoding!r}")
    wbits = 16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS
    decompressor = zlib.decompressobj(wbits)
    try:
        out = decompressor.decompress(raw, MAX_BODY_BYTES + 1)
    except zlib.error as exc:
        raise InvalidResponseError(f"the answer's {encoding} encoding is broken ({exc})") from None
    if len(out) > MAX_BODY_BYTES or decompressor.unconsumed_tail:
        raise InvalidResponseError(f"the decoded answer is larger than the {MAX_BODY_BYTES} bytes allowed")
    return out


def _reject_error_body(response: RawResponse) -> None:
    """A 2xx whose body is an error envelope is an error, not a success."""
    media = response.headers.get("content-type", "")
    if "json" not in media or not response.content.lstrip().startswith(b"{"):
        return
    try:
        body = wire_json.loads(response.content)
    except (RecursionError, ValueError):
        return  # RawResponse.json() reports it when the body is read
    if isinstance(body, dict) and "data" not in body and isinstance(body.get("error"), dict):
        message = body["error"].get("message") or body["error"].get("code") or "an error"
        raise InvalidResponseError(
            f"the service answered {response.status} with an error body: {message}",
            status=response.status,
            request_id=body["error"].get("request_id") or response.request_id,
        )
