"""Shapes shared by every endpoint: errors, envelopes, pagination and idempotency keys."""

from __future__ import annotations

import re
from typing import Annotated, Any, Generic, TypeVar

from pydantic import Field, StringConstraints, field_validator

from ._base import FieldError, InputModel, ResourceModel
from .limits import PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PAGE_SIZE_MIN

__all__ = [
    "PAGE_SIZE_DEFAULT",
    "PAGE_SIZE_MAX",
    "PAGE_SIZE_MIN",
    "DataEnvelope",
    "IdempotencyKey",
    "LegacyError",
    "LegacyErrorDetail",
    "LegacyErrorEnvelope",
    "ListEnvelope",
    "ListQuery",
    "Pagination",
    "Problem",
    "Recovery",
    "is_valid_idempotency_key",
]

IDEMPOTENCY_KEY_PATTERN = r"^[!-~]{1,255}$"
_IDEMPOTENCY_KEY_RE = re.compile(r"[!-~]{1,255}")

IdempotencyKey = Annotated[str, StringConstraints(pattern=IDEMPOTENCY_KEY_PATTERN)]
"""1..255 printable ASCII characters, ``!`` to ``~``, no spaces."""


def is_valid_idempotency_key(key: str) -> bool:
    """Whether ``key`` is a well-formed ``Idempotency-Key`` header value."""
    return isinstance(key, str) and _IDEMPOTENCY_KEY_RE.fullmatch(key) is not None


class Recovery(ResourceModel):
    """What to do after a rejection (``action`` and the optional hints are open sets)."""

    action: str
    idempotency_key: str | None = None
    poll_after_seconds: Annotated[float, Field(ge=0)] | None = None
    tool: str | None = None


class Problem(ResourceModel):
    """The ``application/problem+json`` error envelope."""

    status: int
    title: str
    type: str
    detail: str | None = None
    errors: list[FieldError] | None = None
    reason: str | None = None
    speakers: list[str] | None = None
    recovery: Recovery | None = None
    request_id: str | None = None


class LegacyErrorDetail(ResourceModel):
    field: str | None = None
    message: str | None = None


class LegacyError(ResourceModel):
    code: str | None = None
    message: str | None = None
    request_id: str | None = None
    details: list[LegacyErrorDetail] | None = None


_LEGACY_TITLES: dict[int, str] = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    415: "Unsupported media type",
    422: "Unprocessable entity",
    429: "Too many requests",
    500: "Internal error",
    502: "Bad gateway",
}


class LegacyErrorEnvelope(ResourceModel):
    """The older ``{error: {code, message, request_id, details: [{field, message}]}}`` envelope."""

    error: LegacyError

    def to_problem(self, status: int) -> Problem:
        """The same error in the authoritative problem shape."""
        err = self.error
        errors = None
        if err.details is not None:
            errors = [
                FieldError(field=d.field or "", message=d.message or "invalid value") for d in err.details
            ]
        code = (err.code or "").strip().lower()
        if not code:
            code = "validation_error" if errors else "error"
        title = err.message or _LEGACY_TITLES.get(status, "Error")
        return Problem(
            status=status,
            title=title,
            type=code,
            detail=err.message,
            errors=errors,
            request_id=err.request_id,
        )


class Pagination(ResourceModel):
    """The body pagination object one reference rendering shows (the ``Link`` header is authoritative)."""

    has_more: bool | None = None
    next_cursor: str | None = None


T = TypeVar("T")


class DataEnvelope(ResourceModel, Generic[T]):
    """``{data: T}``."""

    data: T


class ListEnvelope(ResourceModel, Generic[T]):
    """``{data: [T]}`` with the optional body pagination object."""

    data: list[T]
    pagination: Pagination | None = None


def _reject_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be an integer")
    return value


class ListQuery(InputModel):
    """Query of every list endpoint (values may arrive as strings from a query string)."""

    limit: Annotated[int, Field(ge=PAGE_SIZE_MIN, le=PAGE_SIZE_MAX)] = PAGE_SIZE_DEFAULT
    cursor: Annotated[str, Field(min_length=1)] | None = None

    @field_validator("limit", mode="before")
    @classmethod
    def _limit_not_bool(cls, value: Any) -> Any:
        return _reject_bool(value)
