"""Typed async access to the service (no Qt). The wire contract lives in ``castdeck.api.models``."""

from .budget import RequestBudget
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
    is_transient,
)
from .resources import Accepted
from .response import ApiResponse


def request_id_of(resource: object) -> str | None:
    """The X-Request-Id of the answer a resource came from (for error reports)."""
    return getattr(resource, "_request_id", None)


__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "Accepted",
    "ApiError",
    "ApiResponse",
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
    "RequestBudget",
    "ServerError",
    "ServiceUnavailableError",
    "UnauthorizedError",
    "UnprocessableError",
    "UploadError",
    "is_transient",
    "new_idempotency_key",
    "request_id_of",
]
