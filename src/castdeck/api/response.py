"""Answers as the client hands them out: the parsed model beside the status, headers and request id.

:class:`ApiResponse` is what ``client.<resource>.with_raw_response.<method>(...)`` returns (in the
spirit of openai-python's ``with_raw_response``): code that needs the service's hints
(``Retry-After``, ``RateLimit-*``) or the request id reads them here instead of reaching into the
transport. :func:`parse_data` is the one way an answer's ``data`` object becomes a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from .errors import InvalidResponseError, parse_retry_after
from .transport import RawResponse

__all__ = ["ApiResponse", "parse_data", "parse_model"]

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class ApiResponse(Generic[R]):
    """A parsed answer and what came with it."""

    data: R
    raw: RawResponse

    @property
    def status(self) -> int:
        return self.raw.status

    @property
    def headers(self) -> httpx.Headers:
        return self.raw.headers

    @property
    def request_id(self) -> str | None:
        return self.raw.request_id

    @property
    def retry_after(self) -> float | None:
        """The ``Retry-After`` the service sent with this answer (seconds), if any."""
        return parse_retry_after(self.raw.headers.get("retry-after"))


def parse_data(response: RawResponse, model: type[R]) -> R:
    """The answer's ``data`` object as ``model``; anything else is an :class:`InvalidResponseError`."""
    body = response.json()
    if not isinstance(body, dict) or "data" not in body:
        raise InvalidResponseError(
            "the answer has no data object", status=response.status, request_id=response.request_id
        )
    return parse_model(response, body["data"], model)


def parse_model(response: RawResponse, data: Any, model: type[R]) -> R:
    try:
        result = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise InvalidResponseError(
            f"the answer does not match the interface ({where}: {first.get('msg')})",
            status=response.status, request_id=response.request_id,
        ) from None  # fmt: skip
    if hasattr(result, "_request_id"):
        result._request_id = response.request_id
    return result
