"""The OpenAPI 3.1 description of the sandbox, built from the route table and the wire contract."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from castdeck.api.models import Problem

from .routing import ROUTES, UUID_PATH_PARAMS, RouteSpec

TAGS = {
    "Health": "The API index and a liveness probe; no key needed.",
    "Account": "The organization behind the key: its plan and credit balance.",
    "Podcasts": "Shows: their title, hosts, language and feed.",
    "Episodes": "Episodes of a podcast: create, generate from a prompt or script, import script text, "
    "edit, publish and unpublish, cover art and word timestamps.",
    "Analytics": "Downloads and video views of an episode or a whole podcast.",
    "Hosts": "The voices and characters who speak in episodes (Characters in the studio).",
    "Sources": "Research material for prompts and the visuals of voiceovers: URLs, YouTube videos, text "
    "and uploaded files.",
    "Videos": "Videos generated from a prompt or a finished script, followed to completion by polling.",
    "Shorts": "Videos of 30 or 60 seconds, portrait unless told otherwise, generated like videos.",
    "Voiceovers": "Narration over uploaded visuals (slides, images, documents).",
    "Voices": "The catalogue of voices a host can speak with.",
}
REF = "#/components/schemas/{model}"
ALWAYS_ERRORS = (400, 401, 403, 404, 429, 500)
ERROR_TEXT = {
    400: "Malformed request or failed validation",
    401: "Missing or invalid API key",
    403: "No access",
    404: "Not found",
    405: "Method not allowed",
    409: "Idempotency conflict or concurrent completion",
    411: "Content-Length required",
    415: "Unsupported Content-Type",
    422: "The resource's state does not allow this",
    429: "Rate limited",
    500: "Internal error",
    502: "The workflow could not be enqueued",
}


REQUEST_ID_HEADER = {
    "description": "Correlation id of this request; the same value as a problem's request_id",
    "required": True,
    "schema": {"type": "string", "minLength": 1},
}
SPEC_HEADERS: dict[str, dict[str, Any]] = {
    "Location": {"description": "Relative URL to poll", "schema": {"type": "string", "minLength": 1}},
    "Retry-After": {
        "description": "Seconds to wait before polling",
        "schema": {"type": "integer", "minimum": 1},
    },
    "Link": {
        "description": 'The next page as <absolute URL>; rel="next"; absent on the last page',
        "schema": {"type": "string"},
    },
}
RATE_LIMIT_HEADERS = (
    "RateLimit",
    "RateLimit-Policy",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)


def _headers(names: tuple[str, ...] | list[str], *, required: tuple[str, ...] = ()) -> dict[str, Any]:
    headers: dict[str, Any] = {"X-Request-Id": REQUEST_ID_HEADER}
    for name in names:
        header = dict(SPEC_HEADERS.get(name, {"schema": {"type": "string"}}))
        header["required"] = name in required
        headers[name] = header
    return headers


def _error_headers(status: int) -> dict[str, Any]:
    if status == 401:
        return {
            **_headers([]),
            "WWW-Authenticate": {"required": True, "schema": {"type": "string", "pattern": "^Bearer"}},
        }
    if status == 429:
        return _headers(["Retry-After", *RATE_LIMIT_HEADERS], required=("Retry-After",))
    return _headers([])


def _models(spec: RouteSpec) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    for item in (spec.body, spec.response, spec.query):
        if isinstance(item, tuple):
            item = item[1]
        candidates = item if isinstance(item, list) else [item]
        found.extend(c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel))
    return found


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _data(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["data"], "properties": {"data": schema}}


def _response_schema(spec: RouteSpec) -> dict[str, Any] | None:
    response = spec.response
    if response is None:
        return None
    if isinstance(response, tuple) and response[0] == "list":
        return _data({"type": "array", "items": _ref(response[1])})
    if spec.extra.get("bare"):
        return _ref(response)
    return _data(_ref(response))


def _parameters(spec: RouteSpec, component_schemas: dict[str, Any]) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    for name in re.findall(r"{(\w+)(?::\w+)?}", spec.path):
        schema: dict[str, Any] = {"type": "string", "minLength": 1}
        if name in UUID_PATH_PARAMS:
            schema = {"type": "string", "format": "uuid"}
        params.append({"name": name, "in": "path", "required": True, "schema": schema})
    if spec.query is not None:
        query_schema = component_schemas.get(spec.query.__name__, {})
        for name, prop in query_schema.get("properties", {}).items():
            params.append({"name": name, "in": "query", "required": False, "schema": prop})
    if spec.extra.get("format_param"):
        params.append(
            {
                "name": "format",
                "in": "query",
                "required": False,
                "schema": {"type": "string", "enum": ["json", "srt", "vtt"], "default": "json"},
            }
        )
    if spec.idempotency:
        params.append(
            {
                "name": "Idempotency-Key",
                "in": "header",
                "required": spec.idempotency == "required",
                "description": "1..255 printable ASCII characters; replays the original answer for 24 hours",
                "schema": {"type": "string", "pattern": "^[!-~]{1,255}$", "minLength": 1, "maxLength": 255},
            }
        )
    return params


def _request_body(spec: RouteSpec) -> dict[str, Any] | None:
    body = spec.body
    if body is None:
        return None
    if isinstance(body, str):
        schema: dict[str, Any] = {"type": "string", "format": "binary"}
    elif isinstance(body, list):
        schema = {"oneOf": [_ref(m) for m in body]}
    elif isinstance(body, type) and issubclass(body, BaseModel):
        schema = _ref(body)
    else:  # a union alias such as SourceCreate
        members = getattr(body, "__args__", ())
        inner = getattr(members[0], "__args__", members) if members else ()
        schema = {"oneOf": [_ref(m) for m in inner if isinstance(m, type)]} if inner else {"type": "object"}
    return {
        "required": spec.body_required,
        "content": {media: {"schema": schema} for media in spec.body_media_types},
    }


def _body_models(spec: RouteSpec) -> list[type[BaseModel]]:
    body = spec.body
    if (
        body is None
        or isinstance(body, (str, list))
        or (isinstance(body, type) and issubclass(body, BaseModel))
    ):
        return []
    members = getattr(body, "__args__", ())
    inner = getattr(members[0], "__args__", members) if members else ()
    return [m for m in inner if isinstance(m, type) and issubclass(m, BaseModel)]


def openapi_document(base_url: str) -> dict[str, Any]:
    specs = [r for r in ROUTES if r.in_schema]
    models: dict[str, type[BaseModel]] = {"Problem": Problem}
    for spec in specs:
        for model in [*_models(spec), *_body_models(spec)]:
            models[model.__name__] = model
    _, schemas = models_json_schema([(m, "validation") for m in models.values()], ref_template=REF)
    component_schemas: dict[str, Any] = schemas.get("$defs", {})
    paths: dict[str, dict[str, Any]] = {}
    for spec in specs:
        responses: dict[str, Any] = {}
        schema = _response_schema(spec)
        if spec.status == 204:
            responses["204"] = {"description": "Done; no content", "headers": _headers([])}
        else:
            content = {}
            for media in spec.response_media_types:
                content[media] = (
                    {"schema": schema}
                    if media.endswith("json") and schema
                    else {"schema": {"type": "string"}}
                )
            ok: dict[str, Any] = {"description": spec.summary, "content": content}
            names = list(spec.response_headers)
            if isinstance(spec.response, tuple) and spec.response[0] == "list":
                names.append("Link")
            ok["headers"] = _headers(names, required=tuple(spec.response_headers))
            responses[str(spec.status)] = ok
        errors = set(spec.errors) | (set(ALWAYS_ERRORS) if spec.auth else set())
        if spec.body is not None:
            errors.add(415)
        for status in sorted(errors):
            responses[str(status)] = {
                "description": ERROR_TEXT.get(status, "Error"),
                "headers": _error_headers(status),
                "content": {"application/problem+json": {"schema": _ref(Problem)}},
            }
        operation: dict[str, Any] = {
            "operationId": spec.handler.__name__
            if spec.handler.__name__ not in _seen_names(specs, spec)
            else f"{spec.handler.__name__}_{spec.tag.lower()}",
            "summary": spec.summary,
            "tags": [spec.tag],
            "parameters": _parameters(spec, component_schemas),
            "responses": responses,
        }
        if spec.description:
            operation["description"] = spec.description
        if not spec.auth:
            operation["security"] = []
        request_body = _request_body(spec)
        if request_body is not None:
            operation["requestBody"] = request_body
        openapi_path = re.sub(r"{(\w+):\w+}", r"{\1}", spec.path)
        paths.setdefault(openapi_path, {})[spec.method.lower()] = operation
    for spec in specs:  # a query model is described by its parameters, not as a component of its own
        if spec.query is not None:
            component_schemas.pop(spec.query.__name__, None)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "API",
            "version": "1.0.0",
            "description": "Castdeck sandbox: a local implementation of the podcast, video, short and "
            "voiceover generation interface.",
        },
        "servers": [{"url": base_url}],
        "tags": [{"name": name, "description": text} for name, text in TAGS.items()],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": component_schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def _seen_names(specs: list[RouteSpec], current: RouteSpec) -> set[str]:
    """Handler names used by more than one route (the media collections share handler names)."""
    names = [s.handler.__name__ for s in specs]
    return {n for n in names if names.count(n) > 1}
