"""What every resource shares: input validation before sending, answer parsing, lists."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from ..errors import parse_retry_after
from ..inputs import body_of, build_input, check_id, check_uuid, parse_input
from ..models import ListQuery
from ..pagination import AsyncPaginator
from ..response import ApiResponse, parse_data
from ..transport import RawResponse, Transport

if TYPE_CHECKING:
    from ..client import Client

__all__ = [
    "Accepted",
    "ApiResponse",
    "Resource",
    "body_of",
    "build_input",
    "check_id",
    "check_uuid",
    "parse_input",
]

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class Accepted(Generic[R]):
    """The answer to a write that starts generation (202): the resource, the idempotency key that
    was sent (keep it to resend after a failure), where to poll and how long to wait first."""

    data: R
    idempotency_key: str | None
    location: str | None
    retry_after: float | None
    request_id: str | None


class Resource:
    def __init__(self, client: Client) -> None:
        self._client = client

    @property
    def _transport(self) -> Transport:
        return self._client.transport

    def _data(self, response: RawResponse, model: type[R]) -> R:
        return parse_data(response, model)

    async def _get_response(
        self, path: str, model: type[R], params: dict[str, Any] | None = None
    ) -> ApiResponse[R]:
        response = await self._transport.request("GET", path, params=params)
        return ApiResponse(parse_data(response, model), response)

    async def _get(self, path: str, model: type[R], params: dict[str, Any] | None = None) -> R:
        return self._data(await self._transport.request("GET", path, params=params), model)

    async def _write(
        self,
        method: str,
        path: str,
        model: type[R],
        body: dict[str, Any] | None = None,
        *,
        content_type: str | None = None,
    ) -> R:
        headers = {"Content-Type": content_type} if content_type else None
        response = await self._transport.request(method, path, json_body=body, headers=headers)
        return self._data(response, model)

    async def _delete(self, path: str) -> None:
        await self._transport.request("DELETE", path, expect_body=False)

    async def _accepted(
        self, path: str, model: type[R], body: dict[str, Any] | None, idempotency_key: str
    ) -> Accepted[R]:
        response = await self._transport.request(
            "POST", path, json_body=body, idempotency_key=idempotency_key
        )
        return Accepted(
            data=self._data(response, model),
            idempotency_key=idempotency_key,
            location=response.headers.get("location"),
            retry_after=parse_retry_after(response.headers.get("retry-after")),
            request_id=response.request_id,
        )

    def _list(self, path: str, model: type[R], params: dict[str, Any] | None = None) -> AsyncPaginator[R]:
        params = {k: v for k, v in (params or {}).items() if v is not None}
        if "limit" in params:
            build_input(ListQuery, None, {"limit": params["limit"]})
        return AsyncPaginator(self._transport, path, model, params)
