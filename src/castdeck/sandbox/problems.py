"""Errors as the spec's part 7 describes them: ``application/problem+json`` for every non-2xx."""

from __future__ import annotations

import json
import secrets
from typing import Any

from starlette.responses import Response

PROBLEM_MEDIA_TYPE = "application/problem+json"

TITLES = {
    400: ("bad_request", "Bad request"),
    401: ("unauthorized", "Unauthorized"),
    403: ("forbidden", "Forbidden"),
    404: ("not_found", "Not found"),
    405: ("method_not_allowed", "Method not allowed"),
    409: ("conflict", "Conflict"),
    411: ("bad_request", "Length required"),
    415: ("unsupported_media_type", "Unsupported media type"),
    422: ("unprocessable_entity", "Unprocessable entity"),
    429: ("rate_limited", "Too many requests"),
    500: ("internal_error", "Internal error"),
    502: ("bad_gateway", "Bad gateway"),
    503: ("internal_error", "Service unavailable"),
    504: ("bad_gateway", "Gateway timeout"),
}


def new_request_id() -> str:
    """The ``X-Request-Id`` (and a problem's ``request_id``) of one request."""
    return "req_" + secrets.token_hex(10)


class ApiProblem(Exception):
    """Raised anywhere in a handler; rendered as problem+json by the application."""

    def __init__(
        self,
        status: int,
        detail: str | None = None,
        *,
        type: str | None = None,
        title: str | None = None,
        errors: list[dict[str, str]] | None = None,
        reason: str | None = None,
        speakers: list[str] | None = None,
        recovery: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        default_type, default_title = TITLES.get(status, ("internal_error", "Error"))
        self.status = status
        self.type = type or default_type
        self.title = title or default_title
        self.detail = detail
        self.errors = errors
        self.reason = reason
        self.speakers = speakers
        self.recovery = recovery
        self.headers = headers or {}
        self.extra = extra or {}
        super().__init__(f"{status} {self.type}: {detail}")

    def body(self, request_id: str) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "title": self.title, "type": self.type}
        if self.detail:
            body["detail"] = self.detail
        if self.errors is not None:
            body["errors"] = self.errors
        if self.reason:
            body["reason"] = self.reason
        if self.speakers is not None:
            body["speakers"] = self.speakers
        if self.recovery:
            body["recovery"] = self.recovery
        body.update(self.extra)
        body["request_id"] = request_id
        return body

    def response(self, request_id: str) -> Response:
        return problem_response(self.status, self.body(request_id), self.headers, request_id)


def problem_response(status: int, body: dict[str, Any], headers: dict[str, str], request_id: str) -> Response:
    return Response(
        json.dumps(body),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers={**headers, "X-Request-Id": request_id},
    )


def validation_problem(errors: list[dict[str, str]], detail: str | None = None) -> ApiProblem:
    fields = ", ".join(e["field"] or "body" for e in errors[:5])
    return ApiProblem(
        400,
        detail or f"The request is not valid: {fields}.",
        type="validation_error",
        title="Validation failed",
        errors=errors,
        recovery={"action": "correct_input"},
    )


def field_problem(field: str, message: str, status: int = 400) -> ApiProblem:
    if status == 400:
        return validation_problem([{"field": field, "message": message}], f"{field}: {message}")
    return ApiProblem(status, f"{field}: {message}", errors=[{"field": field, "message": message}])


def not_found(what: str, ident: str) -> ApiProblem:
    return ApiProblem(404, f"No {what} with id {ident!r} exists in this organization.")
