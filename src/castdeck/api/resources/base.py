"""What every resource shares: input validation before sending, answer parsing, lists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import InputValidationError, InvalidResponseError
from ..pagination import AsyncPaginator
from ..transport import RawResponse, Transport

if TYPE_CHECKING:
    from ..client import Client

M = TypeVar("M", bound=BaseModel)
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


def build_input(model: type[M], given: M | None, fields: dict[str, Any]) -> M:
    """The input model from either a model instance or keyword arguments; rules broken raise
    :class:`InputValidationError` before any request."""
    if given is not None:
        if fields:
            raise TypeError("pass either an input model or keyword arguments, not both")
        if not isinstance(given, model):
            raise TypeError(f"expected {model.__name__}, got {type(given).__name__}")
        return given
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise InputValidationError.from_pydantic(exc) from None


def parse_input(
    parser: Callable[[Any], M],
    given: M | None,
    fields: dict[str, Any],
    allowed: tuple[type[BaseModel], ...] = (),
) -> M:
    """Like :func:`build_input` for inputs with several shapes (a parser function picks the model);
    a given model must be one of ``allowed`` (so a Video input is never sent as a Short)."""
    if given is not None:
        if fields:
            raise TypeError("pass either an input model or keyword arguments, not both")
        if allowed and not isinstance(given, allowed):
            names = " or ".join(t.__name__ for t in allowed)
            raise TypeError(f"expected {names}, got {type(given).__name__}")
        return given
    try:
        return parser(fields)
    except ValidationError as exc:
        raise InputValidationError.from_pydantic(exc) from None


def body_of(payload: BaseModel, *, partial: bool = False) -> dict[str, Any]:
    """The JSON body of an input: only the fields the caller set (the service applies defaults)."""
    return payload.model_dump(mode="json", exclude_unset=True, exclude_none=not partial)


class Resource:
    def __init__(self, client: Client) -> None:
        self._client = client

    @property
    def _transport(self) -> Transport:
        return self._client.transport

    def _data(self, response: RawResponse, model: type[R]) -> R:
        body = response.json()
        if not isinstance(body, dict) or "data" not in body:
            raise InvalidResponseError(
                "the answer has no data object", status=response.status, request_id=response.request_id
            )
        return self._parse(response, body["data"], model)

    def _parse(self, response: RawResponse, data: Any, model: type[R]) -> R:
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
        from ..errors import parse_retry_after

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
            from ..models import ListQuery

            build_input(ListQuery, None, {"limit": params["limit"]})
        return AsyncPaginator(self._transport, path, model, params)


def check_id(value: object, name: str) -> str:
    """A path id: a non-empty string without separators (checked locally, before any request)."""
    text = str(value)
    if not text or any(c in text for c in "/?#\\") or not text.isprintable() or text != text.strip():
        raise InputValidationError([_field(name, "must be a non-empty id without '/', '?' or '#'")])
    return text


def check_uuid(value: object, name: str) -> str:
    import uuid

    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise InputValidationError([_field(name, "must be a UUID")]) from None


def _field(name: str, message: str) -> Any:
    from ..models import FieldError

    return FieldError(field=name, message=message)
