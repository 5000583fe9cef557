"""Typed async access to the service (no Qt). The wire contract lives in ``castdeck.api.models``."""

from .client import Client, new_idempotency_key
from .errors import (
    APIConnectionError,
    ApiError,
    APITimeoutError,
    BadGatewayError,
    BadRequestError,
    CastdeckError,
    ConflictError,
    ForbiddenError,
    InputValidationError,
    InvalidResponseError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceUnavailableError,
    UnauthorizedError,
    UnprocessableError,
    UploadError,
)
from .resources import Accepted


def request_id_of(resource: object) -> str | None:
    """The X-Request-Id of the answer a resource came from (for error reports)."""
    return getattr(resource, "_request_id", None)


__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "Accepted",
    "ApiError",
    "BadGatewayError",
    "BadRequestError",
    "CastdeckError",
    "Client",
    "ConflictError",
    "ForbiddenError",
    "InputValidationError",
    "InvalidResponseError",
    "NotFoundError",
    "RateLimitedError",
    "ServerError",
    "ServiceUnavailableError",
    "UnauthorizedError",
    "UnprocessableError",
    "UploadError",
    "new_idempotency_key",
    "request_id_of",
]
