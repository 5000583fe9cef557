"""The client's typed errors.

Every failure the client reports is a :class:`CastdeckError`:

- :class:`InputValidationError`: the input broke a rule of the wire contract; nothing was sent.
- :class:`ApiError` and its subclasses: the service answered with an error (problem+json, or the
  older ``{error: {...}}`` envelope), with every problem field and the request id.
- :class:`APIConnectionError` / :class:`APITimeoutError`: no answer arrived.
- :class:`InvalidResponseError`: an answer arrived but is not what the interface promises (HTML
  instead of JSON, a truncated or enormous body, a redirect loop).
- :class:`UploadError`: a local file cannot be uploaded (too large, unsupported type, changed).
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import ValidationError

from . import wire_json
from .models import FieldError, LegacyErrorEnvelope, Problem, Recovery, field_errors

__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "ApiError",
    "BadGatewayError",
    "BadRequestError",
    "CastdeckError",
    "ConflictError",
    "ForbiddenError",
    "InputValidationError",
    "InvalidResponseError",
    "MethodNotAllowedError",
    "NotFoundError",
    "RateLimitedError",
    "ServerError",
    "ServiceUnavailableError",
    "UnauthorizedError",
    "UnprocessableError",
    "UnsupportedMediaTypeError",
    "UploadError",
    "error_from_response",
    "is_transient",
]


class CastdeckError(Exception):
    """Base of every error the client raises."""

    @property
    def retry_after(self) -> float | None:
        """Seconds the service asked to wait before trying again (``Retry-After``); None when it
        gave no such answer (errors without an answer never have one)."""
        return None


class InputValidationError(CastdeckError, ValueError):
    """The input breaks a rule of the interface; no request was made."""

    def __init__(self, errors: list[FieldError], model: str = "") -> None:
        self.errors = errors
        self.model = model
        parts = "; ".join(f"{e.field or 'body'}: {e.message}" for e in errors)
        super().__init__(f"invalid {model or 'input'}: {parts}")

    @classmethod
    def from_pydantic(cls, exc: ValidationError) -> InputValidationError:
        return cls(field_errors(exc), exc.title)

    @property
    def fields(self) -> list[str]:
        return [e.field for e in self.errors]


class APIConnectionError(CastdeckError):
    """No answer: the connection failed or broke. A write may still have happened on the service,
    unless ``sent`` is False: no connection could be made, so nothing of the request left."""

    def __init__(self, message: str, *, request: httpx.Request | None = None, sent: bool = True) -> None:
        # Only the method and address are kept: the request's headers hold the API key.
        self.method = request.method if request is not None else None
        self.url = str(request.url) if request is not None else None
        self.sent = sent
        super().__init__(message)


class APITimeoutError(APIConnectionError):
    """The service did not answer in time."""


class InvalidResponseError(CastdeckError):
    """An answer arrived but breaks the interface (not JSON, truncated, too large, a redirect loop)."""

    def __init__(self, message: str, *, status: int | None = None, request_id: str | None = None) -> None:
        self.message = message
        self.status = status
        self.request_id = request_id
        suffix = f" (HTTP {status}" + (f", request {request_id})" if request_id else ")") if status else ""
        super().__init__(message + suffix)


class UploadError(CastdeckError):
    """A local file cannot be uploaded; ``reason`` says why in words a creator understands."""

    def __init__(self, reason: str, *, path: str | None = None) -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{path}: {reason}" if path else reason)


class ApiError(CastdeckError):
    """The service answered with an error. Carries every field of the problem."""

    status: int

    def __init__(self, problem: Problem, *, headers: httpx.Headers | None = None) -> None:
        self.problem = problem
        self.status = problem.status
        self.type = problem.type
        self.title = problem.title
        self.detail = problem.detail
        self.errors: list[FieldError] = list(problem.errors or [])
        self.reason = problem.reason
        self.speakers: list[str] = list(problem.speakers or [])
        self.recovery: Recovery | None = problem.recovery
        self.request_id = problem.request_id or (headers.get("x-request-id") if headers else None)
        self.headers = headers or httpx.Headers()
        text = problem.detail or problem.title
        super().__init__(
            f"{self.status} {self.type}: {text}"
            + (f" [request {self.request_id}]" if self.request_id else "")
        )

    @property
    def retry_after(self) -> float | None:
        return parse_retry_after(self.headers.get("retry-after"))

    @property
    def code(self) -> str:
        """The error type (``validation_error``, ``not_found``, ...); the older envelope's ``code``."""
        return self.type

    @property
    def fields(self) -> list[str]:
        return [e.field for e in self.errors]

    @property
    def resource_id(self) -> str | None:
        """The resource the problem names (its ``resource_id`` extension member), else None.

        A 409 for an unresolved acceptance names what was already created under the key: poll
        that resource instead of creating again.
        """
        value = (self.problem.model_extra or {}).get("resource_id")
        return value if isinstance(value, str) and value else None


class BadRequestError(ApiError):
    """400: the request is malformed or failed validation on the service (``errors`` per field)."""


class UnauthorizedError(ApiError):
    """401: the API key is missing or invalid."""


class ForbiddenError(ApiError):
    """403: the key is valid but has no access (plan, permission)."""


class NotFoundError(ApiError):
    """404: no such resource in this organization."""


class MethodNotAllowedError(ApiError):
    """405."""


class ConflictError(ApiError):
    """409: an idempotency key reused with other input, an unresolved acceptance, or a concurrent completion."""


class UnsupportedMediaTypeError(ApiError):
    """415."""


class UnprocessableError(ApiError):
    """422: the resource's state does not allow this, unresolved speakers, rejected content, credits."""


class RateLimitedError(ApiError):
    """429: too many requests; ``retry_after`` seconds to wait, when the service said."""


class ServerError(ApiError):
    """5xx: the service failed; a write may or may not have happened."""


class BadGatewayError(ServerError):
    """502: the asynchronous workflow could not be enqueued (or a gateway failed)."""


class ServiceUnavailableError(ServerError):
    """503 and 504."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    415: UnsupportedMediaTypeError,
    422: UnprocessableError,
    429: RateLimitedError,
    502: BadGatewayError,
    503: ServiceUnavailableError,
    504: ServiceUnavailableError,
}


TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})


def is_transient(error: BaseException) -> bool:
    """Whether trying the same thing again later may succeed: no answer arrived (connection,
    timeout), the service failed or was overloaded (5xx, 429), or the answer was broken. The one
    rule the transport's retries, the poll loop, the outbox and the upload queue share. (Whether a
    *write* may be repeated also needs an idempotency key: see ``RetryPolicy.retryable``.)"""
    if isinstance(error, APIConnectionError | InvalidResponseError):
        return True
    return isinstance(error, ApiError) and (error.status in TRANSIENT_STATUSES or error.status >= 500)


def error_class(status: int) -> type[ApiError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if status >= 500:
        return ServerError
    return BadRequestError if 400 <= status < 500 else ApiError


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); None when absent or unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
        if seconds < 0:
            return None  # delta-seconds is never negative: unusable, fall back to own backoff
    except ValueError:
        from datetime import UTC, datetime
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, OverflowError):  # a year of twenty digits overflows
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, seconds)


def problem_from_body(status: int, body: Any, headers: httpx.Headers | None = None) -> Problem:
    """A :class:`Problem` from either envelope, or a minimal one naming the status when neither fits."""
    request_id = headers.get("x-request-id") if headers else None
    if isinstance(body, dict):
        if isinstance(body.get("error"), dict):
            try:
                problem = LegacyErrorEnvelope.model_validate(body).to_problem(status)
            except ValidationError:
                problem = None
            if problem is not None:
                if not problem.request_id:
                    problem.request_id = request_id
                return problem
        candidate = dict(body)
        candidate.setdefault("status", status)
        candidate.setdefault("type", _default_type(status))
        candidate.setdefault("title", f"HTTP {status}")
        if not isinstance(candidate.get("status"), int):
            candidate["status"] = status
        try:
            problem = Problem.model_validate(candidate)
        except ValidationError:
            problem = None
        if problem is not None:
            problem.status = status  # the HTTP status wins over a body that disagrees
            if not problem.request_id:
                problem.request_id = request_id
            return problem
    return Problem(status=status, type=_default_type(status), title=f"HTTP {status}", request_id=request_id)


def _default_type(status: int) -> str:
    return {
        400: "bad_request",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        405: "method_not_allowed",
        409: "conflict",
        415: "unsupported_media_type",
        422: "unprocessable_entity",
        429: "rate_limited",
        502: "bad_gateway",
    }.get(status, "internal_error" if status >= 500 else "bad_request")


def error_from_response(status: int, content: bytes, headers: httpx.Headers) -> ApiError:
    """The typed error of an error answer; a body that is not JSON still yields the status."""
    body: Any = None
    if content:
        try:
            body = wire_json.loads(content)
        except (RecursionError, ValueError):
            body = None
    problem = problem_from_body(status, body, headers)
    if body is None and content:
        problem.detail = problem.detail or _snippet(content)
    return error_class(status)(problem, headers=headers)


def _snippet(content: bytes, limit: int = 200) -> str:
    text = content[:limit].decode("utf-8", errors="replace").strip()
    return f"the service answered with a body that is not JSON: {text!r}"
