"""The sandbox's ASGI application: the route table, error rendering and lifecycle."""

from __future__ import annotations

import html
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Scope

from . import routes as _routes  # registers every endpoint
from .clock import CLOCK
from .gateway import Chaos, Gateway, RateLimiter
from .jobs import JobRunner
from .openapi import openapi_document
from .problems import ApiProblem
from .routing import ROUTES, UUID_PATH_PARAMS
from .service import Sandbox

log = logging.getLogger("castdeck.sandbox")
_ = _routes


def _request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", "req_unknown"))


async def _problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiProblem)
    return exc.response(_request_id(request))


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        problem = ApiProblem(404, f"There is no endpoint at {request.url.path}.")
    elif exc.status_code == 405:
        allowed = _allowed_methods(request) or (exc.headers or {}).get("Allow", "")
        problem = ApiProblem(
            405,
            f"{request.method} is not allowed on {request.url.path}; use {allowed}.",
            headers={"Allow": allowed} if allowed else None,
        )
    else:
        problem = ApiProblem(exc.status_code, str(exc.detail))
    return problem.response(_request_id(request))


def _takes_its_uuids(child: Scope) -> bool:
    """Whether every UUID parameter of a matched route got a UUID (``generate`` is no episode id)."""
    for name, value in child.get("path_params", {}).items():
        if name in UUID_PATH_PARAMS:
            try:
                uuid.UUID(str(value))
            except ValueError:
                return False
    return True


def _allowed_methods(request: Request) -> str:
    """The methods of the routes whose parameters can take this path (one Route per method, so
    Starlette names only one). Where no route's parameters fit, the methods of those the path
    matches by shape, which answer 400 to such a path."""
    fitting: set[str] = set()
    shaped: set[str] = set()
    for candidate in request.app.routes:
        match, child = candidate.matches({**request.scope, "method": "\x00"})
        if match == Match.NONE or not isinstance(candidate, Route):
            continue
        shaped |= candidate.methods or set()
        if _takes_its_uuids(child):
            fitting |= candidate.methods or set()
    methods = fitting or shaped
    order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    return ", ".join(sorted(methods, key=lambda m: (order.index(m) if m in order else len(order), m)))


class _SandboxRoute(Route):
    """A route whose path parameters never take the whole path of a route with none: ``GET
    /v1/episodes/generate`` is a method that path does not have (405, ``Allow: POST``), not an
    episode id that is no UUID (400)."""

    def __init__(self, path: str, endpoint: Any, *, methods: list[str], fixed_paths: frozenset[str]) -> None:
        super().__init__(path, endpoint, methods=methods)
        self._fixed_paths = fixed_paths if "{" in path else frozenset()

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get("type") == "http" and scope.get("path") in self._fixed_paths:
            return Match.NONE, {}
        return super().matches(scope)


async def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return ApiProblem(
        500,
        "The sandbox hit an internal error; the request id identifies it in the sandbox log.",
        recovery={"action": "retry"},
    ).response(_request_id(request))


def build_app(sandbox: Sandbox) -> ASGIApp:
    document: dict[str, Any] = {}

    async def openapi(request: Request) -> Response:
        if not document:
            document.update(openapi_document(sandbox.base_url))
        return JSONResponse(document)

    async def llms(request: Request) -> Response:
        lines = [f"# Castdeck sandbox\n\nOpenAPI: {sandbox.base_url}/openapi.json\n\nEndpoints:"]
        lines += [f"- {r.method} {r.path}: {r.summary}" for r in ROUTES if r.in_schema]
        return PlainTextResponse("\n".join(lines) + "\n")

    async def docs(request: Request) -> Response:
        rows = "".join(
            f"<tr><td>{r.method}</td><td><code>{html.escape(r.path)}</code></td><td>{html.escape(r.summary)}</td></tr>"
            for r in ROUTES
            if r.in_schema
        )
        return HTMLResponse(
            "<!doctype html><title>Castdeck sandbox API</title><h1>Castdeck sandbox API</h1>"
            "<p>Machine-readable description: <a href='/openapi.json'>/openapi.json</a>.</p>"
            "<h2 id='authentication'>Authentication</h2><p>Send <code>Authorization: Bearer &lt;key&gt;</code> "
            "on every <code>/v1</code> request.</p>"
            "<h2 id='keys'>Keys</h2><ul><li><code>sk_sandbox_demo</code>: Demo Studio (creator plan)</li>"
            "<li><code>sk_sandbox_other</code>: Northwind Audio (creator plan)</li>"
            "<li><code>sk_sandbox_free</code>: Hobby Workshop (free plan, no API access)</li></ul>"
            "<h2 id='developers'>Endpoints</h2><table>" + rows + "</table>"
            "<h2 id='mcp'>MCP</h2><p>The sandbox has no MCP server; everything is available over HTTP.</p>"
        )

    async def no_mcp(request: Request) -> Response:
        raise ApiProblem(404, "The sandbox has no MCP server; use the HTTP API described at /openapi.json.")

    async def advance_clock(request: Request) -> Response:
        try:
            body = await request.json()
            seconds = float(body["advance_seconds"])
            CLOCK.advance(seconds)
        except (ValueError, KeyError, TypeError) as error:
            raise ApiProblem(
                400, f"advance_seconds must be a number of seconds, 0 or more ({error})"
            ) from error
        return JSONResponse({"now": CLOCK.now().isoformat(), "offset_seconds": CLOCK.offset})

    fixed_paths = frozenset(spec.path for spec in ROUTES if "{" not in spec.path)
    routes: list[Route] = [
        _SandboxRoute(spec.path, spec.handler, methods=[spec.method], fixed_paths=fixed_paths)
        for spec in ROUTES
    ]
    if sandbox.settings.test_clock:  # tests only: not part of the interface, not in its description
        routes.append(Route("/_sandbox/clock", advance_clock, methods=["POST"]))
    routes += [
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/llms.txt", llms, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
        Route("/mcp", no_mcp, methods=["GET", "POST"]),
        Route("/.well-known/mcp.json", no_mcp, methods=["GET"]),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sandbox.jobs = JobRunner(sandbox)
        sandbox.jobs.kick()
        try:
            yield
        finally:
            await sandbox.acceptances.close()  # held acceptances settle their rows before jobs stop
            await sandbox.jobs.close()

    app = Starlette(
        routes=routes,
        exception_handlers={ApiProblem: _problem, HTTPException: _http_exception, Exception: _server_error},
        lifespan=lifespan,
    )
    app.state.sandbox = sandbox
    # A trailing slash is an unknown path (404 problem+json), not a bare 307 redirect.
    app.router.redirect_slashes = False
    limiter = RateLimiter(sandbox.settings.rate_limit) if sandbox.settings.rate_limit > 0 else None
    return Gateway(app, sandbox.db, limiter, Chaos(sandbox.settings.chaos, sandbox.settings.chaos_seed))
