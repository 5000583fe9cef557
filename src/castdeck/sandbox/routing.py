"""The route table: each handler is registered once with what the OpenAPI description needs.

The same table builds the Starlette routes and the served OpenAPI 3.1 document, so the two
cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

Handler = Callable[[Request], Awaitable[Response]]

UUID_PATH_PARAMS = frozenset({"episode_id", "podcast_id", "source_id", "media_id"})
"""Path parameters that take a UUID: a path whose segment there is no UUID is not theirs."""


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    handler: Handler
    tag: str
    summary: str
    description: str = ""  # what a generated client should know beyond the summary
    status: int = 200
    body: Any = None  # an input model, a list of models (oneOf), or a media-type string for raw bodies
    body_required: bool = True
    body_media_types: tuple[str, ...] = ("application/json",)
    query: type[BaseModel] | None = None
    response: Any = None  # a model wrapped as {data: model}, ("list", model), or a dict schema
    response_media_types: tuple[str, ...] = ("application/json",)
    errors: tuple[int, ...] = (400, 401, 403, 404, 429, 500)
    auth: bool = True
    idempotency: str | None = None  # None, "optional" or "required"
    response_headers: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    in_schema: bool = True


ROUTES: list[RouteSpec] = []


def route(method: str, path: str, *, tag: str, summary: str, **options: Any) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ROUTES.append(RouteSpec(method.upper(), path, handler, tag, summary, **options))
        return handler

    return register
