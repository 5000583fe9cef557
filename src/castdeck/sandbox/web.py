"""Request helpers shared by the route modules: bodies, validation, queries, pagination."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import ListQuery, field_errors

from .db import Record
from .problems import ApiProblem, field_problem, validation_problem

MAX_JSON_BYTES = 2 * 1024 * 1024
JSON_TYPES = ("application/json",)
PATCH_TYPES = ("application/json", "application/merge-patch+json")

M = TypeVar("M", bound=BaseModel)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(body, separators=(",", ":")),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def data_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return json_response({"data": data}, status, headers)


def media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def has_body(request: Request) -> bool:
    length = request.headers.get("content-length")
    if length is not None:
        return length.strip() not in ("", "0")
    return "transfer-encoding" in request.headers


async def json_body(request: Request, *, accept: tuple[str, ...] = JSON_TYPES, optional: bool = False) -> Any:
    """The parsed JSON body, after the content-type (415), size and syntax (400) checks.

    ``optional`` bodies may be absent entirely (no bytes): the result is then None.
    """
    raw = b""
    if has_body(request):
        if media_type(request) not in accept:
            raise _unsupported(request, accept)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_JSON_BYTES:
            raise ApiProblem(400, f"The request body is larger than {MAX_JSON_BYTES} bytes.")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_JSON_BYTES:
                raise ApiProblem(400, f"The request body is larger than {MAX_JSON_BYTES} bytes.")
            chunks.append(chunk)
        raw = b"".join(chunks)
    if not raw.strip():
        if optional:
            return None
        raise validation_problem([{"field": "", "message": "a JSON object body is required"}])
    try:
        return json.loads(raw)
    except RecursionError:
        raise ApiProblem(400, "The body's JSON is nested too deeply.", title="Malformed JSON") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, integers beyond the digit limit
        raise ApiProblem(400, f"The body is not valid JSON: {exc}.", title="Malformed JSON") from None


def _unsupported(request: Request, accept: tuple[str, ...]) -> ApiProblem:
    got = media_type(request) or "none"
    return ApiProblem(415, f"Content-Type {got!r} is not supported here; send {' or '.join(accept)}.")


def validate(parser: type[M] | Callable[[Any], M], body: Any) -> M:
    """Validate a body with an input model (or a parser function); 400 naming each field."""
    if not isinstance(body, dict):
        raise validation_problem([{"field": "", "message": "the body must be a JSON object"}])
    try:
        if isinstance(parser, type) and issubclass(parser, BaseModel):
            return cast(M, parser.model_validate(body))
        return cast(Callable[[Any], M], parser)(body)
    except ValidationError as exc:
        raise validation_problem([e.model_dump() for e in field_errors(exc)]) from None


def query(request: Request, model: type[M]) -> M:
    """Query parameters through a query model (numeric strings are accepted there); unknown ones are ignored."""
    fields = model.model_fields
    params: dict[str, Any] = {k: v for k, v in request.query_params.multi_items() if k in fields}
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise validation_problem([e.model_dump() for e in field_errors(exc)]) from None


def uuid_param(request: Request, name: str) -> str:
    value = str(request.path_params[name])
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise field_problem(name, "must be a UUID") from None


def encode_cursor(kind: str, seq: int) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{seq}".encode()).decode().rstrip("=")


def decode_cursor(kind: str, cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        cursor_kind, seq = raw.split(":", 1)
        if cursor_kind != kind:
            raise ValueError(cursor_kind)
        return int(seq)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise field_problem("cursor", "is not a cursor this list handed out") from None


def page_response(
    request: Request,
    kind: str,
    records: list[Record],
    has_more: bool,
    present: Callable[[Record], dict[str, Any]],
) -> Response:
    """``{data: [...]}`` newest first; the next page is named by a ``Link: <...>; rel="next"`` header."""
    headers: dict[str, str] = {}
    if has_more and records:
        next_url = request.url.include_query_params(cursor=encode_cursor(kind, records[-1].seq))
        headers["Link"] = f'<{next_url}>; rel="next"'
    return json_response({"data": [present(r) for r in records]}, headers=headers)


def list_query(request: Request, model: type[M] = ListQuery) -> M:  # type: ignore[assignment]
    return query(request, model)
